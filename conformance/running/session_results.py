"""A session's results as its cases report them, made whole: a case that failed with no result of its
own, and every case of the selected APIs that has none at all, still gets an outcome saying why."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from conformance.engine.outcomes import CaseResult

if TYPE_CHECKING:
    from conformance.corpus.loading import Scenario


def failed_without_result(case_id: str, api: str, *, crashed: bool, when: str, detail: str) -> CaseResult:
    """A case whose test failed with no result of its own: the process running it died, or the suite
    raised around it."""
    if crashed:
        summary = "the pytest-xdist worker running this case died (the adapter ended or crashed the process)"
        return CaseResult(case_id, api, "crash", summary=summary, detail=detail)
    text = detail.strip().splitlines()
    summary = f"the suite failed in {when}: {text[-1] if text else 'no detail'}"
    return CaseResult(case_id, api, "error", summary=summary, detail=detail)


def case_results(
    judged: Mapping[str, dict[str, Any]], scenarios: Iterable[Scenario], selected: Collection[str]
) -> list[CaseResult]:
    """Every case of the selected APIs: judged, or `not-run` with why (stopped early, or deselected)."""
    results = [CaseResult.from_json(d) for d in judged.values()]
    for scenario in scenarios:
        if scenario.id in judged:
            continue
        stopped = scenario.id in selected
        why = "the run stopped before this case" if stopped else "deselected (-k, -m, --lf, case ids named, ...)"
        results.append(CaseResult(scenario.id, scenario.api, "not-run", summary=why))
    return results
