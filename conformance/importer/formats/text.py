"""A recording file's text, read within the suite's bounds, for the readers of each format."""

from __future__ import annotations

from pathlib import Path

from conformance.recordings.bounds import BoundsError, read_file
from conformance.recordings.cassette import CassetteError


def read_text(path: Path) -> str:
    try:
        data = read_file(path)
    except BoundsError as exc:
        raise CassetteError(str(path), str(exc)) from None
    return data.decode("utf-8", "surrogateescape")
