"""Resolving `--conformance-adapter` to an adapter, and describing it.

The contract itself is in conformance.connectors.contract. A codec adapter gives, per API, a codec with two methods:

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
import importlib.util
import os
import re
import sys
import sysconfig
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from conformance.connectors.client import ClientAdapter
from conformance.connectors.contract import (
    AdapterSpecError as AdapterSpecError,  # raised here; defined apart so the CLI can catch it without this import
)
from conformance.connectors.contract import (
    CodecAdapter,
    OutOfProcess,
    known_apis,
)
from conformance.engine.wording import a

if TYPE_CHECKING:
    from conformance.corpus.loading import BugCase, Corpus


Adapter: TypeAlias = "CodecAdapter | ClientAdapter | OutOfProcess"


def served_apis(adapter: Adapter) -> tuple[str, ...]:
    """The APIs the adapter has a codec or client for (or, out of process, declares), in the vocabulary's order."""

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


_OWN = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # the conformance package


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
        from conformance.corpus.loading import load_corpus

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


# Adapter specs that name a file: `./myadapter.py:ADAPTER` as well as `myadapter:ADAPTER`.
# `importlib.import_module("./myadapter.py")` fails with a TypeError about a missing `package`
# argument, which tells a user nothing; a spec that looks like a path is loaded from the file instead,
# under the file's stem as module name, with the file's directory importable so that it can import
# its neighbours as `python path/to/file.py` would.
_SEPARATORS = ("/", "\\")


def is_file_spec(spec: str) -> bool:
    """Whether the part before the object names a file (ends in .py, or holds a path separator)."""
    target, sep, _ = spec.rpartition(":")
    return bool(sep) and (target.endswith(".py") or any(s in target for s in _SEPARATORS))


def split_file_spec(spec: str) -> tuple[str, str]:
    """(file, object) of `path/to/file.py:object`; the last colon splits, so a drive letter stays."""
    target, _, attribute = spec.rpartition(":")
    if not target.endswith(".py"):
        stem = Path(target).name
        raise AdapterSpecError(
            f"{spec!r} names a path without .py: write {target}.py:{attribute or 'OBJECT'} (a file) "
            f"or {stem}:{attribute or 'OBJECT'} (a module on sys.path)"
        )
    if not attribute:
        raise AdapterSpecError(f"{spec!r} names no object: write {target}:ADAPTER")
    return target, attribute


def load_file_module(file_name: str, spec: str, base: Path | None = None) -> Any:
    """The module loaded from `file_name` (relative to `base`, else the current directory)."""
    path = Path(file_name)
    if not path.is_absolute():
        path = Path(base or os.getcwd()) / path
    path = path.resolve()
    if not path.is_file():
        raise AdapterSpecError(f"no file {file_name!r} for {spec!r} (looked for {path})")
    name = path.stem
    loaded = sys.modules.get(name)
    if loaded is not None and getattr(loaded, "__file__", None) == str(path):
        return loaded
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise AdapterSpecError(f"{file_name!r} for {spec!r} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    importable(path.parent)
    # Registered before it runs: dataclasses and pickling look a module up by name while it loads.
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        sys.modules.pop(name, None)
        raise AdapterSpecError(located(exc)) from None
    return module
