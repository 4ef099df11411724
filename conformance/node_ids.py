"""Case node ids on pytest's command line: `pytest "conformance::openai-chat/one-call"` reruns that case.

Conformance items hang off the session, not a file, so pytest would look for a file named
`conformance` and stop with "file or directory not found". The plugin takes such arguments out of
the paths pytest collects (before collection starts) and collects only the cases they name. An
argument names a case id, or every case under an id prefix (`conformance::openai-chat` runs all of
openai-chat's cases); `conformance` alone names them all.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conformance.corpus.loading import Scenario


class NodeIdError(ValueError):
    """A node id that names no case."""


def take_case_args(args: list[str], prefix: str, base: Path) -> list[str] | None:
    """Remove the case node ids from `args` (in place); the case ids they name ("" for all), or None
    when there were none. A bare `conformance` that is a path under `base` stays a path."""
    bare = prefix.rstrip(":")
    taken: list[str] = []
    kept: list[str] = []
    for arg in args:
        if arg == prefix or (arg == bare and not (base / bare).exists()):
            taken.append("")
        elif arg.startswith(prefix):
            taken.append(arg[len(prefix) :].strip("/"))
        else:
            kept.append(arg)
    if not taken:
        return None
    args[:] = kept
    return taken


def named(
    scenarios: Sequence[Scenario], requested: Sequence[str], known: Collection[str], prefix: str
) -> list[Scenario]:
    """The scenarios (of those selected) that the requested ids name, in their order. An id that names no
    case of the corpus is an error with the closest ids; one outside the selected APIs names nothing."""
    if "" in requested:
        return list(scenarios)
    unknown = [r for r in requested if not _matches_any(r, known)]
    if unknown:
        parts = []
        for case_id in unknown:
            close = difflib.get_close_matches(case_id, list(known), n=3)
            parts.append(f"{prefix}{case_id}" + (f" (did you mean {', '.join(close)}?)" if close else ""))
        raise NodeIdError(f"no conformance case {'; '.join(parts)}")
    return [s for s in scenarios if any(_names(r, s.id) for r in requested)]


def _names(requested: str, case_id: str) -> bool:
    return case_id == requested or case_id.startswith(requested + "/")


def _matches_any(requested: str, known: Collection[str]) -> bool:
    return any(_names(requested, case_id) for case_id in known)
