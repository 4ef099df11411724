"""The first screen of the matrix: an API x library grid, and the versions of one library side by side.

Columns are laid out in sections: the reference alone, then real adapters grouped by language and, within
a language, by library (the versions of one library as neighbouring columns, oldest first), then the bug
reproductions in a section of their own. A grid cell is one API and one column: its pass share, and how
many cases failed or erred. A library with several versions also gets a table of scenario by version, rows
where the versions differ first, so that a fix can be seen landing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

# Outcomes that mean the adapter did not run the case: left out of the pass share.
NOT_RUN = ("skip", "not-run")
# The outcomes counted as errors in a grid cell: the adapter raised, died or hung.
ERRORS = ("error", "crash", "timeout")
# A library's major versions published as separate adapters (`vercel-ai-v5`) belong with the library.
_MAJOR_SUFFIX = re.compile(r"-v\d+$")
_NUMBER = re.compile(r"\d+")


def library_of(name: str) -> str:
    return _MAJOR_SUFFIX.sub("", name)


def language_of(language: str, connector: str) -> str:
    """The harness's language; client and codec adapters run in the suite's own process, in Python."""
    if language:
        return language.lower()
    return "python" if connector in ("client", "codec") else "unknown"


def version_key(version: str) -> tuple[tuple[int, ...], str]:
    """Versions in release order: by their numbers (1.12.0 after 1.4.0), then as text."""
    return tuple(int(n) for n in _NUMBER.findall(version)), version


def share(counts: Mapping[str, int] | None) -> dict[str, Any] | None:
    """A grid cell: passes over the cases run (skips and cases not run left out), fails, errors."""
    if not counts or not counts.get("total"):
        return None
    ran = counts["total"] - sum(counts.get(o, 0) for o in NOT_RUN)
    passed = counts.get("pass", 0)
    return {
        "pass": passed,
        "ran": ran,
        "percent": None if ran == 0 else (100 * passed) // ran,
        "fail": counts.get("fail", 0),
        "error": sum(counts.get(o, 0) for o in ERRORS),
    }


def sections(columns: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The column sections in display order: each with its libraries, each with its column keys."""
    found: dict[tuple[int, str], dict[str, list[Mapping[str, Any]]]] = {}
    for c in columns:
        if c["kind"] == "reference":
            place = (0, "reference")
        elif c["kind"] == "reproduction":
            place = (2, "bug reproductions")
        else:
            place = (1, str(c["language"]))
        found.setdefault(place, {}).setdefault(str(c["library"]), []).append(c)
    out = []
    for (rank, title), libraries in sorted(found.items()):
        out.append(
            {
                "title": title,
                "kind": ("reference", "adapter", "reproduction")[rank],
                "libraries": [
                    {
                        "library": library,
                        "columns": [
                            str(c["key"])
                            for c in sorted(members, key=lambda c: (version_key(str(c["version"])), str(c["key"])))
                        ],
                    }
                    for library, members in sorted(libraries.items())
                ],
            }
        )
    return out


def grid(apis: Sequence[Mapping[str, Any]], failed: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """One row per API: each column's cell, or none where the column does not serve the API. A column that
    could not run (`failed`: key -> the stage that failed, `build`) has that failure in every row, whatever
    it would have served, so that it shows on the first screen."""
    failed = failed or {}
    return [
        {
            "api": a["api"],
            "cells": {
                **{k: share(a["counts"][k]) for k in a["columns"] if k not in failed},
                **{k: {"failed": stage} for k, stage in failed.items()},
            },
        }
        for a in apis
    ]


def versions(
    sections_: Sequence[Mapping[str, Any]], apis: Sequence[Mapping[str, Any]], version: Mapping[str, str]
) -> list[dict[str, Any]]:
    """Per library with several versions: each case any version ran, its outcome per version; the cases
    whose outcome differs between the versions that ran them first, then the others, each in API and
    case order."""
    out = []
    for section in sections_:
        if section["kind"] != "adapter":
            continue
        for library in section["libraries"]:
            keys = library["columns"]
            if len(keys) < 2:
                continue
            rows = []
            for a in apis:
                for wire in a["wire_types"]:
                    for case in wire["cases"]:
                        outcomes = {k: (case["cells"].get(k) or {}).get("outcome") for k in keys}
                        if not any(outcomes.values()):
                            continue
                        rows.append(
                            {
                                "id": case["id"],
                                "api": a["api"],
                                "outcomes": outcomes,
                                # among the versions that ran it: a case only newer versions hold (their adapter
                                # came to serve its API) shows in the grid, not here
                                "differs": len({o for o in outcomes.values() if o}) > 1,
                            }
                        )
            rows.sort(key=lambda r: not r["differs"])  # stable: API and case order kept within each part
            out.append(
                {
                    "library": library["library"],
                    "language": section["title"],
                    "columns": keys,
                    "versions": [version[k] for k in keys],
                    "differ": sum(r["differs"] for r in rows),
                    "cases": rows,
                }
            )
    return out
