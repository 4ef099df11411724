"""The end of a pytest session that ran the corpus: whether it fails though no case did, and the
summary the terminal shows (each line with its colour)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING

from conformance.reports.textreport import nothing_judged, summary_table, warning_lines, warnings_summary
from conformance.running.baseline import summary_lines

if TYPE_CHECKING:
    from conformance.engine.outcomes import CaseResult
    from conformance.running.baseline import Baseline
    from conformance.running.results_merge import Written

# A line of the summary and its markup for pytest's terminal writer (red, yellow, bold).
Line = tuple[str, dict[str, bool]]


def session_gate(
    results: Sequence[CaseResult],
    served: Collection[str],
    *,
    baseline_gate: Callable[[], str | None],
    fail_on_warnings: bool,
    generated: int = 0,
) -> str | None:
    """Why the run fails though no case did: it judged nothing (no corpus case, and none of the
    `generated` items of generated scenarios that ran), the baseline is stale (asked only when it judged
    something: asking may rewrite the file), or --conformance-fail-on-warnings found some."""
    gate = nothing_judged(results, served) if not generated else None
    if gate is None:
        gate = baseline_gate()
    if gate is None and fail_on_warnings:
        found = warnings_summary(results)
        gate = f"--conformance-fail-on-warnings: {found}" if found else None
    return gate


def session_summary(
    results: Sequence[CaseResult],
    served: Collection[str],
    *,
    headline: str,
    narrowed: bool,
    prefix: str,
    baseline: Baseline | None,
    known: Collection[str],
    baseline_note: str,
    written: Written | None,
    gate: str | None,
) -> list[Line]:
    lines: list[Line] = [(headline, {})]
    lines += [(line, {}) for line in summary_table(results, served, selected=narrowed).splitlines()]
    warned = warning_lines(results, prefix)
    if warned:
        lines.append(("", {}))
        lines += [(line, {"yellow": True}) for line in warned]
        lines.append((str(warnings_summary(results)), {"yellow": True}))
    if baseline is not None:
        lines += [(line, {}) for line in summary_lines(baseline, results, known)]
    if baseline_note:
        lines.append((baseline_note, {}))
    if written is not None:
        lines.append((f"results: {written.path}", {}))
        if written.note:
            lines.append((f"  ({written.note})", {}))
    else:
        lines.append(("results: not written (give --conformance-report=PATH)", {}))
    if gate:
        lines.append((f"FAILED: {gate}", {"red": True, "bold": True}))
    return lines
