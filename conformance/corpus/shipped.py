"""The corpus snapshot a wheel ships, so that a fresh install's first run parses no YAML.

A fresh CI runner has no snapshot in its cache (conformance.corpus.snapshot): its first run, which
is often its only one, would build the corpus from some 650 YAML files. The wheel's build step
(`hatch_build.py`, conformance.corpus.shipping) loads the bundled corpus once and ships it beside the files, as
`conformance/_corpus/snapshot.pickle`, with the paths it holds written relative to the corpus
directory and the digest of every file it was built from.

It is used only for the bundled corpus of an installed wheel, only while the files beside it are
byte for byte the ones it was built from (the digest, read again: about 12 ms), and it is read by
the same unpickler as any snapshot, which builds the suite's data classes and nothing else. It is
then kept in the cache like any other snapshot, so later runs find it there.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path
from typing import IO, Any

from conformance.corpus.snapshot import FORMAT, DataUnpickler, cache_dir
from conformance.recordings.cassette import Cassette, stamp

NAME = "snapshot.pickle"
DIRECTORIES = ("cases", "cassettes")


def digest(root: Path) -> str:
    """Every file under root's cases/ and cassettes/, by relative path and content."""
    found = hashlib.sha256()
    for directory in DIRECTORIES:
        for where, subdirectories, files in os.walk(root / directory):
            subdirectories.sort()
            for name in sorted(files):
                path = Path(where, name)
                found.update(path.relative_to(root).as_posix().encode() + b"\0")
                found.update(path.read_bytes() + b"\0")
    return found.hexdigest()


class _RelocatingUnpickler(DataUnpickler):
    """Data classes only, as for any snapshot; a relative path is placed under the installed corpus."""

    def __init__(self, stream: IO[bytes], root: Path) -> None:
        super().__init__(stream)
        self._root = root

    def persistent_load(self, pid: Any) -> Any:
        if isinstance(pid, tuple) and len(pid) == 2 and pid[0] in ("path", "text") and isinstance(pid[1], str):
            located = self._root.joinpath(*pid[1].split("/"))
            return located if pid[0] == "path" else str(located)
        raise pickle.UnpicklingError("a shipped snapshot names corpus paths only")


def read(root: Path) -> tuple[Any, dict[str, tuple[tuple[int, int], Cassette]]] | None:
    """The snapshot shipped in `root` (an installed wheel's corpus directory), when the files beside it
    are those it was built from: the corpus and its cassettes, stamped as the files stand now."""
    if cache_dir() is None:  # snapshots turned off: the corpus is built from its files
        return None
    try:
        with (root / NAME).open("rb") as stream:
            found = _RelocatingUnpickler(stream, root).load()
    except Exception:  # absent, truncated, or not data: the corpus is built from its files
        return None
    if not (isinstance(found, tuple) and len(found) == 4 and found[0] == FORMAT and isinstance(found[3], dict)):
        return None
    if found[1] != digest(root):
        return None  # a file of the installed corpus was changed after the wheel was built
    cassettes = {}
    for path, (_, cassette) in found[3].items():
        now = stamp(Path(path))
        if now is not None:
            cassettes[path] = (now, cassette)
    return found[2], cassettes
