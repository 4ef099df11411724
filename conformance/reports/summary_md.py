"""The run's summary as Markdown, for `conformance run --summary-md` (a CI step summary, a PR comment).

A table of outcomes per API over the APIs counted, the verdict, and the cases that fail with their
codes (the first `LIMIT`; the results JSON holds them all).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from conformance.engine.outcomes import FAILING, OUTCOMES, CaseResult, counts

LIMIT = 50


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def summary_markdown(
    results: Sequence[CaseResult],
    *,
    adapter: str,
    served: Collection[str] | None,
    verdict: str,
    notes: Sequence[str] = (),
) -> str:
    counted = [r for r in results if served is None or r.api in served]
    shown = [o for o in OUTCOMES if any(r.outcome == o for r in counted)] or ["pass"]
    lines = [f"### Tool-call id conformance: {_cell(adapter)}", "", f"**{_cell(verdict)}**", ""]
    lines.append("| API | " + " | ".join(shown) + " | total |")
    lines.append("|---|" + "---:|" * (len(shown) + 1))
    for api in sorted({r.api for r in counted}):
        tally = counts([r for r in counted if r.api == api])
        lines.append(f"| `{api}` | " + " | ".join(str(tally[o]) for o in shown) + f" | {sum(tally.values())} |")
    tally = counts(counted)
    lines.append("| **all** | " + " | ".join(f"**{tally[o]}**" for o in shown) + f" | **{len(counted)}** |")
    failing = [r for r in counted if r.outcome in FAILING]
    if failing:
        lines += ["", "| failing case | outcome | codes |", "|---|---|---|"]
        for result in failing[:LIMIT]:
            codes = sorted({v.code for v in result.errors}) or [result.summary or result.outcome]
            lines.append(f"| `{result.case_id}` | {result.outcome} | {_cell(', '.join(codes))} |")
        if len(failing) > LIMIT:
            lines.append(f"| … and {len(failing) - LIMIT} more (see the results JSON) | | |")
    expected = [r for r in counted if r.outcome == "xfail"]
    if expected:
        lines += ["", f"{len(expected)} expected failure(s) (xfail) by the baseline or a known bug."]
    if notes:
        lines.append("")
        lines += [f"- {_cell(n)}" for n in notes]
    return "\n".join(lines) + "\n"


def write_summary_md(path: Path, text: str) -> None:
    """Appended, not replaced: $GITHUB_STEP_SUMMARY gathers every step's summary in one file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(text)
