"""Plain-text rendering of results: failure reports that read like a review, and the summary."""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Collection, Iterable, Sequence

from conformance.engine.outcomes import OUTCOMES, CaseResult, counts, judged
from conformance.engine.printable import printable
from conformance.engine.quoting import Quote
from conformance.engine.violations import Violation
from conformance.engine.wording import plural

PROVIDERS = {
    "openai-chat": "OpenAI",
    "openai-responses": "OpenAI",
    "anthropic-messages": "Anthropic",
    "gemini": "Gemini",
    "gemini-interactions": "Gemini",
    "azure-foundry": "Azure AI Foundry",
    "mistral-chat": "Mistral",
    "kimi-chat": "Kimi",
    "bedrock-converse": "Bedrock",
    "ollama-chat": "Ollama",
    "openresponses": "OpenResponses",
    "mistral-responses": "Mistral",
    "ollama-responses": "Ollama",
    "ollama-messages": "Ollama",
    "cohere-v2": "Cohere",
}

_MARK = {"error": "x", "warning": "!"}
# Longer runs without a space are cut for display (an adapter may send a megabyte id): textwrap's cost
# grows with the square of a word's length, and no reader wants the whole of one.
LONGEST_WORD = 200
_LONG_WORD = re.compile(rf"\S{{{LONGEST_WORD + 1},}}")


def clip(text: str, limit: int = LONGEST_WORD) -> str:
    """`text` with every run of more than `limit` non-space characters cut to its start and its length,
    and every character a terminal would act on shown as its escape (printable)."""

    def cut(match: re.Match[str]) -> str:
        word = match.group(0)
        return f"{word[: limit // 2]}…[{len(word):,} characters]"

    text = printable(text)
    return _LONG_WORD.sub(cut, text) if len(text) > limit else text


def _wrap(text: str, indent: str) -> str:
    return textwrap.fill(clip(text), width=100, initial_indent=indent, subsequent_indent=indent)


def _value(value: object) -> str:
    return clip(repr(value))


def provider_error_lines(v: Violation, api: str, quote: Quote | None = None) -> list[str]:
    """The provider's error, with the case's ids in place of the quoted report's when `quote` says so,
    and where the verbatim text comes from."""
    if not v.provider_error:
        return []
    provider = PROVIDERS.get(api, api)
    if quote is None:
        lines = [f"      {provider}'s error for this: {clip(v.provider_error)}"]
        if v.provider_error_source:
            lines.append(f"        (as reported in {v.provider_error_source})")
        return lines
    swaps = ", ".join(f"{clip(case)!r} for {clip(quoted)!r}" for quoted, case in quote.substituted)
    where = f" in {v.provider_error_source}" if v.provider_error_source else ""
    return [
        f"      {provider}'s error for this: {clip(quote.text)}",
        _wrap(f"(with this case's {swaps}; verbatim, as reported{where}:", "        "),
        _wrap(f"{v.provider_error})", "        "),
    ]


def violation_text(v: Violation, api: str, quote: Quote | None = None) -> str:
    lines = [f"  [{_MARK[v.severity]}] {v.code} ({v.severity}) at {clip(v.location)}", _wrap(v.message, "      ")]
    if v.expected is not None or v.received is not None:
        lines.append(f"      expected: {_value(v.expected)}")
        lines.append(f"      received: {_value(v.received)}")
    lines += provider_error_lines(v, api, quote)
    if v.hint:
        lines.append(_wrap(f"fix: {v.hint}", "      "))
    if v.related:
        lines.append(_wrap(f"the same in: {', '.join(v.related)}", "      "))
    return "\n".join(lines)


# Diff lines shown per case; the results JSON holds the whole diff.
DIFF_LINES = 30


def diff_text(diff: str) -> str:
    lines = ["  What was sent, against what a correct adapter sends (id-bearing fields only):"]
    changes = diff.splitlines()
    lines += [f"    {clip(line)}" for line in changes[:DIFF_LINES]]
    if len(changes) > DIFF_LINES:
        lines.append(f"    … and {len(changes) - DIFF_LINES} more changes (the results JSON holds them all)")
    if "<minted " in diff:
        lines.append(
            "    (<minted N>: an id minted where the wire had none; any id the API accepts will do, "
            "paired the same way)"
        )
    return "\n".join(lines)


def case_text(result: CaseResult, adapter: str = "") -> str:
    who = f" [{adapter}]" if adapter else ""
    head = f"{result.case_id}{who}: {result.outcome.upper()}"
    if result.summary:
        head += f": {clip(result.summary)}"
    lines = [head]
    shown = [(i, v) for i, v in enumerate(result.violations) if result.outcome != "pass" or v.severity == "warning"]
    if shown:
        from conformance.reports.folding import fold

        lines.append("")
        for group in fold(shown):
            lines.append(violation_text(group.first, result.api, result.quotes.get(group.index)))
            if group.more:
                lines.append(group.more_line())
    if result.diff:
        lines += ["", diff_text(result.diff)]
    if result.detail:
        lines += ["", "  Adapter traceback (last frames):"]
        lines += [f"    {clip(line)}" for line in result.detail.splitlines()]
    return "\n".join(lines)


def _in_scope(results: Iterable[CaseResult], served: Collection[str] | None) -> list[CaseResult]:
    return [r for r in results if served is None or r.api in served]


def summary_table(
    results: Iterable[CaseResult], served: Collection[str] | None = None, *, selected: bool = False
) -> str:
    """Outcome counts per API, then the total: the compact matrix a run closes with. With `served` (the APIs
    the adapter serves, narrowed to the run's selection), only those APIs are counted, and a last line says
    what was left out; `selected` says the run named its APIs (--api), which the line then speaks of."""
    results = list(results)
    counted = _in_scope(results, served)
    apis = sorted({r.api for r in counted})
    shown = [o for o in OUTCOMES if any(r.outcome == o for r in counted)] or ["pass"]
    header = ["api", *shown, "total"]
    rows = []
    for api in apis:
        tally = counts([r for r in counted if r.api == api])
        rows.append([api, *(str(tally[o]) for o in shown), str(sum(tally.values()))])
    tally = counts(counted)
    rows.append(["all", *(str(tally[o]) for o in shown), str(len(counted))])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def fmt(row: list[str]) -> str:
        return "  ".join(cell.ljust(widths[0]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row))

    lines = [fmt(header), *(fmt(r) for r in rows)]
    left_out = [r for r in results if served is not None and r.api not in served]
    if served is not None:
        others = sorted({r.api for r in left_out})
        whose = "selected" if selected else "the adapter serves"
        if not apis:
            scope = "counted: none"
        elif selected:
            scope = f"counted: the {plural(len(apis), f'{whose} API')}"
        else:
            scope = f"counted: the {plural(len(apis), 'API')} {whose}"
        if others:
            names = f" ({', '.join(others)})" if len(others) <= 3 else ""
            scope += f"; not counted: {plural(len(left_out), 'case')} of {plural(len(others), 'other API')}{names}"
        lines.append(scope)
    return "\n".join(lines)


def skip_lines(results: Iterable[CaseResult]) -> list[str]:
    """The skipped cases summarised: one line per reason, with how many cases it covers."""
    reasons = Counter(r.summary or "no reason given" for r in results if r.outcome == "skip")
    if not reasons:
        return []
    total = sum(reasons.values())
    lines = [f"{plural(total, 'case')} skipped (-v lists each):"]
    width = len(str(max(reasons.values())))
    ordered = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    lines += [f"  {n:>{width}}  {clip(reason)}" for reason, n in ordered]
    return lines


def warning_lines(results: Iterable[CaseResult], prefix: str = "") -> list[str]:
    """One line per warning-severity violation: case, code, location and what is wrong."""
    from conformance.reports.folding import fold

    lines = []
    for result in results:
        for group in fold(list(enumerate(result.warnings))):
            v = group.first
            title = v.message.splitlines()[0] if v.message else v.code
            more = f" (and {len(group.more)} more like it)" if group.more else ""
            lines.append(f"{prefix}{result.case_id}: warning {v.code} at {clip(v.location)}: {clip(title)}{more}")
    return lines


def warnings_summary(results: Iterable[CaseResult]) -> str | None:
    """`3 warnings in 2 cases: encode/unstable-id 2, roundtrip/invented-id 1`, or None when there are none."""
    results = list(results)
    codes = Counter(v.code for r in results for v in r.warnings)
    if not codes:
        return None
    cases = sum(bool(r.warnings) for r in results)
    tally = ", ".join(f"{code} {n}" for code, n in sorted(codes.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"{plural(sum(codes.values()), 'warning')} in {plural(cases, 'case')}: {tally}"


def nothing_judged(results: Sequence[CaseResult], served: Collection[str] | None = None) -> str | None:
    """Why a run judged no case (a failure: it tested nothing), or None when it judged at least one."""
    if judged(list(results)):
        return None
    if not results:
        return "no case was selected, so nothing was tested"
    tally = Counter(r.outcome for r in results)
    parts = [f"{tally['skip']} skipped"] if tally["skip"] else []
    if tally["not-run"]:
        parts.append(f"{tally['not-run']} not run (deselected, or the run stopped)")
    if tally["crash"]:
        parts.append(f"{tally['crash']} crashed")
    text = f"no case was judged: of {plural(len(results), 'case')}, {', '.join(parts)}"
    if served is not None:
        text += f"; the adapter serves {', '.join(sorted(served)) or 'none of the selected APIs'}"
    return text
