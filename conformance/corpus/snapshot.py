"""A snapshot of a loaded corpus, kept between runs so that the next run starts without parsing YAML.

Loading the corpus means parsing some 340 YAML files and validating every case file against its
schema: about half a second, most of what the plugin adds to a pytest run. The typed corpus and
its cassettes are pickled once, after a load that found no problem, and read back (in about a
hundredth of the time) while nothing they were built from has changed. They are written in three
parts (the wire types and roots, the scenarios and bug cases, the cassettes), so that lint, whose
rules read wire types alone, stops after the first.

What "nothing has changed" means is a fingerprint of every input, taken by `stat` alone: each case
and cassette file under the roots (path, size, modification time), the suite's own source files
(a snapshot written by other code is never read by this one), and the Python version. A file
added, removed, edited or touched changes it. A snapshot that cannot be read is ignored and
replaced; one that cannot be written (a read-only home) costs nothing but the time it saves.

The snapshots live in `$CONFORMANCE_CACHE_DIR`, else `$XDG_CACHE_HOME/toolcall-conformance`, else
`~/.cache/toolcall-conformance`; `CONFORMANCE_CACHE_DIR=off` turns them off.

A snapshot can never run code. It is read by an unpickler that builds only the suite's own data
classes (the corpus's and the cassettes') and paths, and refuses every other name a pickle may
call (`os.system`, `builtins.eval`, ...), so a planted or swapped file is at worst a snapshot that
is refused and rebuilt. And it is read only when it and its directory belong to the user and
nobody else may write to them, checked on what was opened (the directory's descriptor, then the
file opened under it without following a link), never by a `stat` before an `open` that a swapped
directory would escape.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import stat
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from conformance.recordings.cassette import Cassette, CassetteError, load_cassette, stamp

FORMAT = 2  # bump when what a snapshot holds changes shape (2: in parts)
KEEP = 8  # snapshots kept in the cache directory, the one being written included
_PACKAGE = Path(__file__).resolve().parents[1]  # the conformance package


def cache_dir() -> Path | None:
    """Where snapshots live, or None when they are turned off."""
    configured = os.environ.get("CONFORMANCE_CACHE_DIR")
    if configured is not None:
        return None if configured.strip().lower() in ("", "off", "0", "no", "false") else Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "toolcall-conformance"


def _stamped(root: Path, suffix: str) -> list[tuple[str, tuple[int, int] | None]]:
    """Every file under `root` ending in `suffix`, sorted, with its (size, modification time): one
    directory scan, whose entries carry their own status (a pathlib walk and a stat per file cost
    a warm run's start as much as reading the snapshot)."""
    found: list[tuple[str, tuple[int, int] | None]] = []
    pending = [str(root)]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                elif entry.name.endswith(suffix):
                    status = entry.stat(follow_symlinks=True)
                    regular = stat.S_ISREG(status.st_mode)
                    found.append((entry.path, (status.st_size, status.st_mtime_ns) if regular else None))
            except OSError:
                found.append((entry.path, None))
    return sorted(found)


def fingerprint(case_roots: Sequence[Path], cassette_roots: Sequence[Path]) -> str:
    """A digest of everything a loaded corpus is built from, by path, size and modification time."""
    digest = hashlib.sha256(f"{FORMAT} {sys.version}".encode())
    sources = [*_stamped(_PACKAGE, ".py"), *_stamped(_PACKAGE / "schemas", ".json")]
    for group, files in (
        ("suite", sources),
        *((f"cases {root.resolve()}", _stamped(root, ".yaml")) for root in case_roots),
        *((f"cassettes {root.resolve()}", _stamped(root, ".yaml")) for root in cassette_roots),
    ):
        digest.update(f"\0{group}".encode())
        for path, stamped in files:
            digest.update(f"\0{path}\0{stamped}".encode())
    return digest.hexdigest()[:32]


# What a snapshot is made of: the classes of these modules, and paths. Nothing else is ever built.
_DATA_MODULES = ("conformance.corpus.loading", "conformance.recordings.cassette", "conformance.recordings.yamlio")
_DATA_NAMES = frozenset(
    {
        ("pathlib", "Path"),
        ("pathlib", "PosixPath"),
        ("pathlib", "WindowsPath"),
        ("pathlib", "PurePosixPath"),
        ("pathlib", "PureWindowsPath"),
        ("builtins", "set"),
        ("builtins", "frozenset"),
    }
)


class DataUnpickler(pickle.Unpickler):
    """Builds the suite's data classes only: a name outside them is refused, never imported or called."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _DATA_NAMES or (module in _DATA_MODULES and "." not in name):
            found = getattr(sys.modules.get(module) or __import__(module, fromlist=[name]), name, None)
            # A class, and one its module defines (not one it imported from elsewhere).
            if isinstance(found, type) and ((module, name) in _DATA_NAMES or found.__module__ == module):
                return found
        raise pickle.UnpicklingError(f"a snapshot holds data only, not {module}.{name}")


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _open_private(where: Path, name: str) -> int | None:
    """A descriptor of `where/name`, when the directory and the file opened (not a link) are the user's
    alone; checked on the descriptors, so nothing swapped in between is read."""
    if not hasattr(os, "getuid") or os.open not in os.supports_dir_fd:
        return os.open(where / name, os.O_RDONLY)  # no POSIX ownership (Windows): the profile is private
    directory = os.open(where, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        if not _owned(os.fstat(directory)):
            return None
        handle = os.open(name, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=directory)
    finally:
        os.close(directory)
    status = os.fstat(handle)
    if not (stat.S_ISREG(status.st_mode) and _owned(status)):
        os.close(handle)
        return None
    return handle


def _owned(status: os.stat_result) -> bool:
    return status.st_uid == os.getuid() and not status.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def read(
    key: str, *, wire_types_only: bool = False
) -> tuple[tuple[Any, ...], dict[str, tuple[tuple[int, int], Cassette]]] | None:
    """The snapshot stored under `key`, if there is a readable one: the corpus's fields (wire types,
    scenarios, bug cases, case roots, cassette roots) and its cassettes. `wire_types_only` reads the
    first of its parts alone (what lint's rules need): no scenarios, bug cases or cassettes."""
    where = cache_dir()
    if where is None:
        return None
    path = where / f"corpus-{key}.pickle"
    try:
        handle = _open_private(where, path.name)
    except OSError:  # absent, or a link (O_NOFOLLOW): nothing to read
        return None
    if handle is None:
        return None
    try:
        with os.fdopen(handle, "rb") as stream:
            # The parts, in the order `write` wrote them, through one unpickler (later parts refer to
            # objects of earlier ones).
            unpickler = DataUnpickler(stream)
            first = unpickler.load()
            if not (isinstance(first, tuple) and len(first) == 4 and first[0] == key):
                return None
            _, wire_types, case_roots, cassette_roots = first
            scenarios, bugs = ({}, {}) if wire_types_only else unpickler.load()
            cassettes = {} if wire_types_only else unpickler.load()
            with contextlib.suppress(OSError):
                os.utime(stream.fileno())  # its last use, which keeps it among those pruning spares
    except Exception:  # truncated, written by another version, or not data: rebuilt below
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    if not all(isinstance(part, dict) for part in (wire_types, scenarios, bugs, cassettes)):
        return None
    return (wire_types, scenarios, bugs, case_roots, cassette_roots), cassettes


def _private(path: Path) -> bool:
    """Whether only this user can have written `path` (where snapshots are written)."""
    if not hasattr(os, "getuid"):
        return True  # no POSIX ownership to check (Windows): the user's profile directory is private
    try:
        status = os.stat(path)
    except OSError:
        return False
    return status.st_uid == os.getuid() and not status.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def write(key: str, corpus: Any, cassettes: dict[str, tuple[tuple[int, int], Cassette]]) -> None:
    """Store a snapshot, atomically (a reader never sees half of one); failures are ignored."""
    where = cache_dir()
    if where is None:
        return
    try:
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(where):
            return  # someone else's directory, or one others may write to: keep nothing there
        # Every change to the corpus or the suite leaves a snapshot no key will name again: those not
        # used for a week go, and past the KEEP most recently used (a day of edits makes dozens).
        for rank, old in enumerate(_by_last_use(where.glob("corpus-*.pickle"))):
            if rank >= KEEP - 1 or _stale(old):
                old.unlink(missing_ok=True)
        handle, temporary = tempfile.mkstemp(dir=where, prefix=".corpus-", suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            # In parts, so that a reader needing the wire types alone stops after the first.
            pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
            pickler.dump((key, corpus.wire_types, corpus.case_roots, corpus.cassette_roots))
            pickler.dump((corpus.scenarios, corpus.bugs))
            pickler.dump(cassettes)
        os.replace(temporary, where / f"corpus-{key}.pickle")
    except OSError:
        return


def _by_last_use(paths: Iterable[Path]) -> list[Path]:
    """Newest first, by modification time (a snapshot read is touched, so this is its last use)."""
    dated = []
    for path in paths:
        with contextlib.suppress(OSError):
            dated.append((path.stat().st_mtime, path))
    return [path for _, path in sorted(dated, reverse=True)]


def _stale(path: Path, days: float = 7) -> bool:
    import time

    try:
        return time.time() - path.stat().st_mtime > days * 86400
    except OSError:
        return False


def cassettes_of(paths: Iterable[Path]) -> dict[str, tuple[tuple[int, int], Cassette]]:
    """Each cassette, parsed, with the stamp of the file it was parsed from; a cassette that does
    not load is left out (the run reports it where it is used)."""
    found: dict[str, tuple[tuple[int, int], Cassette]] = {}
    for path in paths:
        stamped = stamp(path)
        if stamped is None:
            continue
        try:
            found[str(path)] = (stamped, load_cassette(path))
        except CassetteError:
            continue
    return found
