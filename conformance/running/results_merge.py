"""Writing a run's results without losing a complete file to a partial run (`--lf`, `-k`, `-x`, Ctrl-C).

A partial run (some case `not-run`) written over a complete results file of the same adapter,
corpus revision, profile and API selection is merged into it: the cases this run judged take their
new outcome, the others keep the earlier one, and `carried_over` lists those. A partial run that
does not match the complete file (another adapter, corpus or selection) is written beside it, as
`<name>.partial.json`, and the complete file is left as it was. A complete run always replaces the file.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.engine.outcomes import INCOMPLETE, OUTCOMES
from conformance.running.results import write_results

# What must be equal for an earlier case record to stand for this run's.
_SAME = ("corpus_revision", "profile", "apis", "format_version")


@dataclass(frozen=True)
class Written:
    path: Path
    note: str = ""  # what was done besides writing the file as it was given


def write_run_results(path: Path, document: Mapping[str, Any]) -> Written:
    if document.get("complete"):
        write_results(path, document)
        return Written(path)
    earlier = _complete_document(path)
    if earlier is None:
        write_results(path, document)
        return Written(path)
    if not _comparable(earlier, document):
        beside = path.with_name(f"{path.stem}.partial{path.suffix or '.json'}")
        write_results(beside, document)
        return Written(
            beside,
            f"a partial run, written beside the complete {path.name} (of another adapter, corpus or selection), "
            "which is left as it was",
        )
    merged, carried = merge(earlier, document)
    write_results(path, merged)
    return Written(path, f"a partial run, merged into the complete file: {carried} case(s) kept from the earlier run")


def merge(earlier: Mapping[str, Any], partial: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
    """`partial`'s judged cases over `earlier`'s; the document's counts and `complete` recomputed."""
    before = {c["id"]: c for c in earlier.get("cases", ())}
    cases: list[dict[str, Any]] = []
    carried: list[str] = []
    for case in partial.get("cases", ()):
        old = before.get(case["id"])
        if case.get("outcome") == "not-run" and old is not None:
            cases.append(old)
            carried.append(case["id"])
        else:
            cases.append(case)
    tally = Counter(c["outcome"] for c in cases)
    merged = dict(partial)
    merged["cases"] = cases
    merged["counts"] = {o: tally.get(o, 0) for o in OUTCOMES}
    merged["complete"] = bool(cases) and not any(c["outcome"] in INCOMPLETE for c in cases)
    merged["carried_over"] = carried
    return merged, len(carried)


def _complete_document(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("complete") is True else None


def _comparable(earlier: Mapping[str, Any], document: Mapping[str, Any]) -> bool:
    if any(earlier.get(k) != document.get(k) for k in _SAME):
        return False
    who = ("name", "version", "connector")
    return all((earlier.get("adapter") or {}).get(k) == (document.get("adapter") or {}).get(k) for k in who)
