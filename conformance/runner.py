"""Running cases: a scenario through an adapter's codec, checked by the rules."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from conformance.adapters import CodecAdapter
from conformance.cassette import CassetteError, load_cassette
from conformance.connectors.codec import AdapterFault, run_codec
from conformance.corpus import BugCase, Corpus, Scenario
from conformance.dialects import dialect_for
from conformance.dialects.base import DialectError
from conformance.diffing import request_diff
from conformance.outcomes import CaseResult
from conformance.rules import CheckContext, check
from conformance.sse import StreamError


class CorpusError(Exception):
    """A case or cassette of the corpus itself is broken: not the adapter's fault."""


def _context(corpus: Corpus, scenario: Scenario, profile: str) -> CheckContext:
    calls = tuple(scenario.all_calls())
    return CheckContext(
        corpus=corpus,
        dialect=dialect_for(scenario.api),
        profile=profile,
        expected_outputs={c.id: c.output for c in calls if c.id},
        tool_names=frozenset(t["name"] for t in scenario.tools),
        expected_calls=calls,
    )


def run_scenario(adapter: CodecAdapter, scenario: Scenario, corpus: Corpus, profile: str = "default") -> CaseResult:
    started = time.perf_counter()

    def done(result: CaseResult) -> CaseResult:
        result.duration = time.perf_counter() - started
        return result

    codec = adapter.codec(scenario.api)
    if codec is None:
        return done(CaseResult(scenario.id, scenario.api, "skip", summary=adapter.skip_reason(scenario.api)))
    try:
        dialect = dialect_for(scenario.api)
    except KeyError as exc:
        return done(CaseResult(scenario.id, scenario.api, "skip", summary=str(exc.args[0])))
    path = corpus.cassette_path(scenario)
    try:
        cassette = load_cassette(path)
        exchange = run_codec(codec, scenario, cassette, dialect)
    except AdapterFault as fault:
        return done(
            CaseResult(
                scenario.id,
                scenario.api,
                "error",
                summary=f"the adapter failed in {fault.phase} of turn {fault.turn}: {fault.summary}",
                detail=fault.detail,
            )
        )
    except (CassetteError, StreamError, DialectError, ValueError) as exc:
        raise CorpusError(f"{scenario.id}: cassette {path}: {exc}") from exc
    ctx = _context(corpus, scenario, profile)
    try:
        violations = check(exchange, ctx)
    except DialectError as exc:
        return done(
            CaseResult(
                scenario.id,
                scenario.api,
                "error",
                summary=f"the adapter sent a body that is not a {scenario.api} request: {exc}",
            )
        )
    errors = [v for v in violations if v.severity == "error"]
    result = CaseResult(scenario.id, scenario.api, "fail" if errors else "pass", violations=violations)
    if errors:
        codes = sorted({v.code for v in errors})
        result.summary = f"{len(errors)} violation(s): {', '.join(codes)}"
        result.diff = request_diff(exchange, dialect)
    return done(result)


def select(corpus: Corpus, apis: Sequence[str] | None = None) -> list[Scenario]:
    chosen = [s for s in corpus.scenarios.values() if not apis or s.api in apis]
    return sorted(chosen, key=lambda s: s.id)


def run_suite(
    adapter: CodecAdapter,
    corpus: Corpus,
    apis: Sequence[str] | None = None,
    profile: str = "default",
) -> list[CaseResult]:
    return [run_scenario(adapter, s, corpus, profile) for s in select(corpus, apis)]


def reproduce(bug: BugCase, corpus: Corpus, profile: str = "default") -> CaseResult:
    """Replay a bug case through its reproduction adapter; pass means exactly the expected codes."""
    from conformance.adapters import resolve_adapter

    scenario = corpus.scenarios[bug.scenario]
    adapter = resolve_adapter(bug.reproduction)
    result = run_scenario(adapter, scenario, corpus, profile)
    result.case_id = bug.id
    result.expected_codes = bug.expected
    if result.outcome in ("pass", "fail"):
        found = {v.code for v in result.errors}
        expected = set(bug.expected)
        result.outcome = "pass" if found == expected else "fail"
        missing, extra = sorted(expected - found), sorted(found - expected)
        if result.outcome == "pass":
            result.summary = f"reproduces: {', '.join(sorted(found))}"
        else:
            parts = []
            if missing:
                parts.append(f"expected but not found: {', '.join(missing)}")
            if extra:
                parts.append(f"found but not expected: {', '.join(extra)}")
            result.summary = "; ".join(parts)
    return result


def codes_of(results: Iterable[CaseResult]) -> set[str]:
    return {v.code for r in results for v in r.violations}
