"""Adapter specs that name a file: `./myadapter.py:ADAPTER` as well as `myadapter:ADAPTER`.

`importlib.import_module("./myadapter.py")` fails with a TypeError about a missing `package`
argument, which tells a user nothing; a spec that looks like a path is loaded from the file instead,
under the file's stem as module name, with the file's directory importable so that it can import
its neighbours as `python path/to/file.py` would.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

_SEPARATORS = ("/", "\\")


def is_file_spec(spec: str) -> bool:
    """Whether the part before the object names a file (ends in .py, or holds a path separator)."""
    target, sep, _ = spec.rpartition(":")
    return bool(sep) and (target.endswith(".py") or any(s in target for s in _SEPARATORS))


def split_file_spec(spec: str) -> tuple[str, str]:
    """(file, object) of `path/to/file.py:object`; the last colon splits, so a drive letter stays."""
    from conformance.adapters import AdapterSpecError

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
    from conformance.adapters import AdapterSpecError, importable, located

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
