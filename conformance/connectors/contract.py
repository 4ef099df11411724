"""The adapter contract: what a codec adapter is, and what every adapter is checked for when built.

A codec adapter gives, per API, a codec with two methods:

    decode(response: dict) -> Message       # {"stream": False, "body": {...}}
                                            # or {"stream": True, "events": [{"event", "data"}]}
    encode(conversation: Conversation) -> dict   # the next request body

The suite plays the tool loop itself (it answers every decoded call with the scenario's canned
output, under the call's own id), so a codec run isolates translation bugs.

An adapter names the APIs it serves by the keys of its codecs (or clients): a misspelt key would
silently turn every case into a skip, so unknown names are refused when the adapter is built.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from conformance.engine.neutral import Conversation, Message
from conformance.engine.wording import a

if TYPE_CHECKING:
    from conformance.corpus.loading import Corpus, Scenario
    from conformance.engine.outcomes import CaseResult


@runtime_checkable
class Codec(Protocol):
    def decode(self, response: dict[str, Any]) -> Message: ...

    def encode(self, conversation: Conversation) -> dict[str, Any]: ...


class AdapterSpecError(ValueError):
    """An adapter spec that names nothing runnable (a missing module, object or bug id)."""


class AdapterDefinitionError(ValueError):
    """An adapter built with APIs the suite does not know, or with nothing to run."""


def known_apis() -> tuple[str, ...]:
    from conformance.corpus.caseschema import vocabulary

    return vocabulary("api")


def unknown_api_message(names: Iterable[str], what: str = "API") -> str | None:
    """None when every name is a known API; else one sentence naming the unknown ones, the closest
    known name for each, and every known name."""
    known = known_apis()
    unknown = [n for n in names if n not in known]
    if not unknown:
        return None
    parts = []
    for name in unknown:
        close = difflib.get_close_matches(str(name).replace("_", "-"), known, n=1, cutoff=0.6)
        parts.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    return f"unknown {what} {', '.join(parts)}; known: {', '.join(known)}"


def check_api_keys(owner: str, field_name: str, mapping: Mapping[str, Any], unsupported: Mapping[str, str]) -> None:
    """The checks every adapter's API mapping passes: not empty, known API names only, and no API both
    served and declared unsupported. `owner` names the adapter in the message."""
    if not isinstance(mapping, Mapping):
        raise AdapterDefinitionError(f"{owner}: {field_name} must be a mapping of API name to {field_name[:-1]}")
    if not len(mapping):
        raise AdapterDefinitionError(
            f"{owner}: {field_name} is empty, so every case would be skipped; give one for at least one of: "
            f"{', '.join(known_apis())}"
        )
    for name, keys in ((field_name, list(mapping)), ("unsupported", list(unsupported))):
        message = unknown_api_message(keys, f"API key in {name}")
        if message:
            raise AdapterDefinitionError(f"{owner}: {message}")
    both = sorted(set(mapping) & set(unsupported))
    if both:
        raise AdapterDefinitionError(f"{owner}: {', '.join(both)} both in {field_name} and declared unsupported")


class Codecs(Protocol):
    """Where the codec connector gets an API's codec: a codec adapter, or one in a worker process."""

    def codec(self, api: str) -> Codec | None: ...

    def skip_reason(self, api: str) -> str: ...


@dataclass(frozen=True)
class CodecAdapter:
    """An adapter under test, reached through its codecs."""

    name: str
    version: str
    codecs: Mapping[str, Codec]
    homepage: str = ""
    notes: str = ""
    # API -> reason, for APIs the adapter declares unsupported (reported as skip with the reason)
    unsupported: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        owner = f"CodecAdapter {self.name!r}"
        check_api_keys(owner, "codecs", self.codecs, self.unsupported)
        if isinstance(self.codecs, dict):  # a lazy mapping (the reference's) is not loaded to be checked
            for api, codec in self.codecs.items():
                if not isinstance(codec, Codec):
                    missing = [m for m in ("decode", "encode") if not callable(getattr(codec, m, None))]
                    raise AdapterDefinitionError(
                        f"{owner}: codecs[{api!r}] is {a(type(codec).__name__)} without {' or '.join(missing)}"
                    )

    def codec(self, api: str) -> Codec | None:
        return self.codecs.get(api)

    def skip_reason(self, api: str) -> str:
        if api in self.unsupported:
            return self.unsupported[api]
        return f"{self.name} has no codec for {api}"

    def identity(self) -> dict[str, str]:
        info = {"name": self.name, "version": self.version, "connector": "codec"}
        if self.homepage:
            info["homepage"] = self.homepage
        return info


@runtime_checkable
class OutOfProcess(Protocol):
    """An adapter run in another process: an isolated Python adapter, or a harness in any language.
    Its own supervisor keeps the time and turns its faults into outcomes."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def apis(self) -> tuple[str, ...]: ...

    def identity(self) -> dict[str, str]: ...

    def run(self, scenario: Scenario, corpus: Corpus, options: Any) -> CaseResult: ...


def check_client_adapter(name: str, clients: Mapping[str, Any], unsupported: Mapping[str, str]) -> None:
    """What `ClientAdapter` checks when it is built: known API keys, and a callable per API."""
    owner = f"ClientAdapter {name!r}"
    check_api_keys(owner, "clients", clients, unsupported)
    for api, fn in clients.items():
        if not callable(fn):
            raise AdapterDefinitionError(f"{owner}: clients[{api!r}] is {a(type(fn).__name__)}, not a callable")
