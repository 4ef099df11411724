"""The wheel's build step (`hatch_build.py`): the bundled corpus loaded, checked and written as the
snapshot a wheel ships (read by conformance.corpus.shipped), every path in it relative to the corpus
directory so that an install can place it."""

from __future__ import annotations

import os
import pickle
from pathlib import Path, PurePath
from typing import IO, Any

from conformance.corpus.loading import build_corpus, read_case_files
from conformance.corpus.problems import InputError
from conformance.corpus.shipped import DIRECTORIES, digest
from conformance.corpus.snapshot import FORMAT, cassettes_of


class _RelativePickler(pickle.Pickler):
    """Writes every path under the corpus directories (as a Path or as text) relative to `root`."""

    def __init__(self, stream: IO[bytes], root: Path) -> None:
        super().__init__(stream, protocol=pickle.HIGHEST_PROTOCOL)
        self._root = root
        self._prefixes = tuple(str(root / directory) for directory in DIRECTORIES)

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, PurePath):
            kind, text = "path", str(obj)
        elif type(obj) is str:
            kind, text = "text", obj
        else:
            return None
        for prefix in self._prefixes:
            if text == prefix or text.startswith(prefix + os.sep):
                return kind, Path(text).relative_to(self._root).as_posix()
        return None


def write(root: Path, out: Path) -> None:
    """The wheel's build step: the corpus under `root` loaded, checked and written to `out`. Raises
    InputError for a corpus with problems: no wheel ships a snapshot of a broken corpus."""
    cases, cassettes = root / "cases", root / "cassettes"
    files, problems = read_case_files([cases])
    corpus, more = build_corpus(files, [cases], [cassettes])
    problems.extend(more)
    if problems:
        raise InputError(sorted(problems))
    loaded = cassettes_of(corpus.cassette_path(s) for s in corpus.scenarios.values())
    with out.open("wb") as stream:
        _RelativePickler(stream, root).dump((FORMAT, digest(root), corpus, loaded))
