"""Plain-text rendering of results: failure reports that read like a review, and the summary."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

from conformance.outcomes import OUTCOMES, CaseResult, counts
from conformance.violations import Violation

PROVIDERS = {
    "openai-chat": "OpenAI",
    "openai-responses": "OpenAI",
    "anthropic-messages": "Anthropic",
    "gemini": "Gemini",
    "azure-foundry": "Azure AI Foundry",
    "mistral-chat": "Mistral",
    "kimi-chat": "Kimi",
    "bedrock-converse": "Bedrock",
    "ollama-chat": "Ollama",
    "openresponses": "OpenResponses",
    "cohere-v2": "Cohere",
}

_MARK = {"error": "x", "warning": "!"}


def _wrap(text: str, indent: str) -> str:
    return textwrap.fill(text, width=100, initial_indent=indent, subsequent_indent=indent)


def violation_text(v: Violation, api: str) -> str:
    lines = [f"  [{_MARK[v.severity]}] {v.code} ({v.severity}) at {v.location}", _wrap(v.message, "      ")]
    if v.expected is not None or v.received is not None:
        lines.append(f"      expected: {v.expected!r}")
        lines.append(f"      received: {v.received!r}")
    if v.provider_error:
        provider = PROVIDERS.get(api, api)
        lines.append(f"      {provider}'s error for this: {v.provider_error}")
        if v.provider_error_source:
            lines.append(f"        (as reported in {v.provider_error_source})")
    if v.hint:
        lines.append(_wrap(f"fix: {v.hint}", "      "))
    if v.related:
        lines.append(_wrap(f"the same in: {', '.join(v.related)}", "      "))
    return "\n".join(lines)


def diff_text(diff: str) -> str:
    lines = ["  What was sent, against what a correct adapter sends (id-bearing fields only):"]
    lines += [f"    {line}" for line in diff.splitlines()]
    return "\n".join(lines)


def case_text(result: CaseResult, adapter: str = "") -> str:
    who = f" [{adapter}]" if adapter else ""
    head = f"{result.case_id}{who}: {result.outcome.upper()}"
    if result.summary:
        head += f": {result.summary}"
    lines = [head]
    shown = result.violations if result.outcome != "pass" else result.warnings
    if shown:
        lines.append("")
        lines.extend(violation_text(v, result.api) for v in shown)
    if result.diff:
        lines += ["", diff_text(result.diff)]
    if result.detail:
        lines += ["", "  Adapter traceback (last frames):"]
        lines += [f"    {line}" for line in result.detail.splitlines()]
    return "\n".join(lines)


def summary_table(results: Iterable[CaseResult]) -> str:
    """Outcome counts per API, then the total: the compact matrix a run closes with."""
    results = list(results)
    apis = sorted({r.api for r in results})
    shown = [o for o in OUTCOMES if any(r.outcome == o for r in results)] or ["pass"]
    header = ["api", *shown, "total"]
    rows = []
    for api in apis:
        tally = counts([r for r in results if r.api == api])
        rows.append([api, *(str(tally[o]) for o in shown), str(sum(tally.values()))])
    tally = counts(results)
    rows.append(["all", *(str(tally[o]) for o in shown), str(len(results))])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def fmt(row: list[str]) -> str:
        return "  ".join(cell.ljust(widths[0]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row))

    return "\n".join([fmt(header), *(fmt(r) for r in rows)])
