"""The results JSON file: one per run, the input of the compatibility matrix."""

from __future__ import annotations

import json
import platform
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conformance import CONTRACT_VERSION, __version__
from conformance.engine.outcomes import INCOMPLETE, CaseResult, counts
from conformance.engine.portable import stable_detail, stable_text

if TYPE_CHECKING:
    from conformance.connectors.serving import ScenarioServer

FORMAT = "toolcall-conformance/results"
FORMAT_VERSION = 1
# Who a replay server's results name: the clients it served are not known to it.
SERVER_IDENTITY = {"name": "replay-server", "version": __version__, "connector": "server"}


def results_document(
    results: Sequence[CaseResult],
    *,
    adapter: Mapping[str, Any],
    corpus_revision: str,
    profile: str,
    apis: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The results file of one run. `results` holds every case the run selected, those it did not judge
    as `not-run`: `complete` is true only when each of them was judged."""
    ordered = sorted(results, key=lambda r: r.case_id)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "suite_version": __version__,
        "contract_version": CONTRACT_VERSION,
        "corpus_revision": corpus_revision,
        "adapter": dict(adapter),
        "profile": profile,
        "apis": list(apis) if apis else "all",
        "run_info": {"python": platform.python_version()},
        "counts": counts(ordered),
        "cases": [_portable(r.to_json()) for r in ordered],
        "complete": bool(ordered) and not any(r.outcome in INCOMPLETE for r in ordered),
    }


def _portable(case: dict[str, Any]) -> dict[str, Any]:
    """A case as a results file holds it: no path of the machine that ran it (a committed results file
    would otherwise name the runner's checkout and virtual environment)."""
    if case.get("summary"):
        case["summary"] = stable_text(str(case["summary"]))
    if case.get("detail"):
        case["detail"] = stable_detail(str(case["detail"]))
    return case


def served_document(server: ScenarioServer, results: Sequence[CaseResult] | None = None) -> dict[str, Any]:
    """The results file of what a replay server judged (its verdicts so far, unless given)."""
    judged = server.verdicts() if results is None else results
    return results_document(
        judged, adapter=SERVER_IDENTITY, corpus_revision=server.corpus.revision(), profile=server.profile
    )


def write_results(path: Path, document: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def read_results(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} file")
    return data
