"""The adapter contract, and resolving `--conformance-adapter` to an adapter.

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
import importlib
import os
import re
import sys
import sysconfig
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

from conformance.neutral import Conversation, Message
from conformance.wording import a

if TYPE_CHECKING:
    from conformance.connectors.client import ClientAdapter
    from conformance.corpus import BugCase, Corpus, Scenario
    from conformance.outcomes import CaseResult


@runtime_checkable
class Codec(Protocol):
    def decode(self, response: dict[str, Any]) -> Message: ...

    def encode(self, conversation: Conversation) -> dict[str, Any]: ...


class AdapterDefinitionError(ValueError):
    """An adapter built with APIs the suite does not know, or with nothing to run."""


def known_apis() -> tuple[str, ...]:
    from conformance.caseschema import vocabulary

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


Adapter: TypeAlias = "CodecAdapter | ClientAdapter | OutOfProcess"


def check_client_adapter(adapter: ClientAdapter) -> None:
    """What `ClientAdapter` checks when it is built: known API keys, and a callable per API."""
    owner = f"ClientAdapter {adapter.name!r}"
    check_api_keys(owner, "clients", adapter.clients, adapter.unsupported)
    for api, fn in adapter.clients.items():
        if not callable(fn):
            raise AdapterDefinitionError(f"{owner}: clients[{api!r}] is {a(type(fn).__name__)}, not a callable")


def served_apis(adapter: Adapter) -> tuple[str, ...]:
    """The APIs the adapter has a codec or client for (or, out of process, declares), in the vocabulary's order."""
    from conformance.connectors.client import ClientAdapter

    if isinstance(adapter, CodecAdapter):
        keys = set(adapter.codecs)
    elif isinstance(adapter, ClientAdapter):
        keys = set(adapter.clients)
    else:
        keys = set(adapter.apis)
    return tuple(api for api in known_apis() if api in keys)


def describe(adapter: Adapter, bug: BugCase | None = None) -> dict[str, Any]:
    """The adapter's identity as the results file records it: who, which connector, which APIs it serves.
    A bug's reproduction goes by the bug's id and report."""
    info: dict[str, Any] = {**adapter.identity(), "apis": list(served_apis(adapter))}
    if bug is not None:
        info.update(name=bug.id, homepage=bug.report)
    return info


class AdapterSpecError(ValueError):
    pass


BUNDLED = {"reference": "conformance.reference:ADAPTER"}
REPRODUCTIONS = "conformance.reproductions"


def importable(directory: Path) -> None:
    """Put `directory` on sys.path (first, as `python -m` does for the current directory), once."""
    entry = os.path.abspath(directory)
    if entry not in (os.path.abspath(p or os.curdir) for p in sys.path):
        sys.path.insert(0, entry)
        importlib.invalidate_caches()


def _text(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # an exception whose __str__ raises still gets a message
        text = f"<{type(exc).__name__} whose message cannot be shown>"
    return " ".join(text.split())


def _shown_path(filename: str) -> str:
    try:
        relative = os.path.relpath(filename)
    except ValueError:  # another drive (Windows)
        return filename
    return filename if relative.startswith(os.pardir) else relative


_OWN = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _library_dirs() -> tuple[str, ...]:
    """Where installed libraries and the standard library live: a frame there is not the adapter author's."""
    paths = sysconfig.get_paths()
    keys = ("stdlib", "platstdlib", "purelib", "platlib")
    return tuple(sorted({os.path.abspath(paths[k]) + os.sep for k in keys if k in paths}))


def _said(name: str, exc: BaseException) -> str:
    text = _text(exc)
    return f"{name}: {text}" if text else name


def located(exc: BaseException) -> str:
    """`file:line: Type: message` for where `exc` was raised: a SyntaxError's own position, else the
    innermost frame of the user's code (outside the suite, the import machinery and installed
    libraries), else the innermost frame outside the suite."""
    name = type(exc).__name__
    if isinstance(exc, SyntaxError) and exc.filename:
        where = f"{_shown_path(exc.filename)}:{exc.lineno}" if exc.lineno else _shown_path(exc.filename)
        return f"{where}: {name}: {exc.msg}"
    frames = traceback.extract_tb(exc.__traceback__)
    # Generated code (`<string>`: a dataclass __init__), the import machinery and the suite are not the place.
    theirs = [f for f in frames if not f.filename.startswith(("<", _OWN))]
    libraries = _library_dirs()
    own = [f for f in theirs if not os.path.abspath(f.filename).startswith(libraries)]
    if not theirs:
        return _said(name, exc)
    frame = (own or theirs)[-1]
    return f"{_shown_path(frame.filename)}:{frame.lineno}: {_said(name, exc)}"


def _import(module_name: str, spec: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (module_name == missing or module_name.startswith(missing + ".")):
            raise AdapterSpecError(
                f"cannot import {module_name!r} for {spec!r}: no module {missing!r} in the current directory "
                "or on sys.path"
            ) from None
        raise AdapterSpecError(f"importing {module_name!r} for {spec!r}: {located(exc)}") from None
    except (Exception, SystemExit) as exc:  # a SyntaxError, or anything the module raises as it loads
        raise AdapterSpecError(located(exc)) from None


def load_object(spec: str, base: Path | None = None) -> Any:
    """The object `module:attribute` or `path/to/file.py:attribute` names; `base` (the invocation
    directory) is importable, and a relative file path is taken from it."""
    from conformance.adapter_files import is_file_spec, load_file_module, split_file_spec

    if is_file_spec(spec):
        file_name, attribute = split_file_spec(spec)
        module_name = file_name
        target: Any = load_file_module(file_name, spec, base)
    else:
        module_name, sep, attribute = spec.partition(":")
        if not sep or not module_name or not attribute:
            raise AdapterSpecError(f"{spec!r} is not of the form module:object or path/to/file.py:object")
        if base is not None:
            importable(base)
        target = _import(module_name, spec)
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AdapterSpecError(f"{module_name!r} has no attribute {attribute!r}") from None
    return target


def _adapter(target: Any, spec: str) -> Adapter:
    from conformance.connectors.client import ClientAdapter

    if not isinstance(target, (CodecAdapter, ClientAdapter)) and callable(target):
        try:
            target = target()
        except (Exception, SystemExit) as exc:
            raise AdapterSpecError(f"calling {spec!r} for an adapter raised: {located(exc)}") from None
    if not isinstance(target, (CodecAdapter, ClientAdapter)):
        raise AdapterSpecError(
            f"{spec!r} is {a(type(target).__name__)}, not a conformance.CodecAdapter or ClientAdapter "
            "(or a callable returning one)"
        )
    return target


@dataclass(frozen=True)
class Resolved:
    """What an adapter spec names: the adapter, and the known bug when the spec was a bug id."""

    adapter: Adapter
    bug: BugCase | None = None


def resolve(spec: str, *, corpus: Corpus | None = None, base: Path | None = None) -> Resolved:
    """A bundled name (`reference`), a bug id (its reproduction), or `module:object`.

    The object may be an adapter (codec or client) or a zero-argument callable returning one.
    `base` is made importable first: the directory the user ran the command from.
    """
    spec = spec.strip()
    if not spec:
        raise AdapterSpecError("no adapter given: name 'reference', a bug id, or module:object")
    if ":" in spec:
        return Resolved(_adapter(load_object(spec, base), spec))
    if spec in BUNDLED:
        return Resolved(_adapter(load_object(BUNDLED[spec]), spec))
    if corpus is None:
        from conformance.corpus import load_corpus

        corpus = load_corpus()
    bug = corpus.bugs.get(spec)
    if bug is None:
        close = difflib.get_close_matches(spec, [*BUNDLED, *corpus.bugs], n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise AdapterSpecError(
            f"unknown adapter {spec!r}{hint}: use module:object, a bug id, or one of: {', '.join(sorted(BUNDLED))}"
        )
    return Resolved(resolve_reproduction(bug.reproduction), bug)


def resolve_adapter(spec: str, *, base: Path | None = None) -> Adapter:
    return resolve(spec, base=base).adapter


_REPRODUCTION = re.compile(rf"{re.escape(REPRODUCTIONS)}\.[a-z_][a-z0-9_]*:[A-Za-z_][A-Za-z0-9_]*")


def resolve_reproduction(spec: str) -> Adapter:
    """A bug case's reproduction: an adapter object of the project's own reproductions package, never a
    callable to call, so that a case file cannot make the suite run arbitrary code."""
    from conformance.connectors.client import ClientAdapter

    if not _REPRODUCTION.fullmatch(spec):
        raise AdapterSpecError(
            f"reproduction {spec!r} must name an adapter object of the project's reproductions, "
            f"as {REPRODUCTIONS}.<module>:<NAME>"
        )
    target = load_object(spec)
    if not isinstance(target, (CodecAdapter, ClientAdapter)):
        raise AdapterSpecError(
            f"reproduction {spec!r} is {a(type(target).__name__)}, not an adapter object "
            "(a reproduction is never called)"
        )
    return target
