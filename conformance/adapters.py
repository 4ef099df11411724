"""The adapter contract, and resolving `--conformance-adapter` to an adapter.

A codec adapter gives, per API, a codec with two methods:

    decode(response: dict) -> Message       # {"stream": False, "body": {...}}
                                            # or {"stream": True, "events": [{"event", "data"}]}
    encode(conversation: Conversation) -> dict   # the next request body

The suite plays the tool loop itself (it answers every decoded call with the scenario's canned
output, under the call's own id), so a codec run isolates translation bugs.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from conformance.neutral import Conversation, Message

if TYPE_CHECKING:
    from conformance.connectors.client import ClientAdapter


@runtime_checkable
class Codec(Protocol):
    def decode(self, response: dict[str, Any]) -> Message: ...

    def encode(self, conversation: Conversation) -> dict[str, Any]: ...


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


class AdapterSpecError(ValueError):
    pass


BUNDLED = {"reference": "conformance.reference:ADAPTER"}


def load_object(spec: str) -> Any:
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise AdapterSpecError(f"{spec!r} is not of the form module:object")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise AdapterSpecError(f"cannot import {module_name!r} for {spec!r}: {exc}") from None
    target: Any = module
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AdapterSpecError(f"{module_name!r} has no attribute {attribute!r}") from None
    return target


def resolve_adapter(spec: str) -> CodecAdapter | ClientAdapter:
    """A bundled name (`reference`, or a bug id for its reproduction) or `module:object`.

    The object may be an adapter (codec or client) or a zero-argument callable returning one.
    """
    from conformance.connectors.client import ClientAdapter

    if ":" not in spec:
        if spec in BUNDLED:
            spec = BUNDLED[spec]
        else:
            from conformance.corpus import load_corpus

            bug = load_corpus().bugs.get(spec)
            if bug is None:
                known = ", ".join(sorted(BUNDLED))
                raise AdapterSpecError(f"unknown adapter {spec!r}: use module:object, a bug id, or one of: {known}")
            spec = bug.reproduction
    target = load_object(spec)
    if not isinstance(target, (CodecAdapter, ClientAdapter)) and callable(target):
        try:
            target = target()
        except TypeError as exc:
            raise AdapterSpecError(f"{spec!r} is a callable that did not return an adapter: {exc}") from None
    if not isinstance(target, (CodecAdapter, ClientAdapter)):
        raise AdapterSpecError(
            f"{spec!r} is a {type(target).__name__}, not a conformance.CodecAdapter or ClientAdapter "
            "(or a callable returning one)"
        )
    return target
