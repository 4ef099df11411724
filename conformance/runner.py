"""Running cases: a scenario through an adapter's codec, checked by the rules."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from conformance.adapters import Adapter, CodecAdapter, OutOfProcess
from conformance.cassette import CassetteError, load_cassette
from conformance.connectors.client import ClientAdapter, Replay, run_client
from conformance.connectors.codec import AdapterFault, PlayedHistory, run_codec
from conformance.corpus import BugCase, Corpus, Scenario
from conformance.dialects import dialect_for
from conformance.dialects.base import Dialect, DialectError
from conformance.diffing import issued_ids, request_diff
from conformance.exchange import Exchange
from conformance.faults import describe, raised_in_suite, short_traceback
from conformance.outcomes import CaseResult
from conformance.quoting import quotes_for
from conformance.replay.session import ClientRun, listed
from conformance.rules import CheckContext, check
from conformance.sse import StreamError
from conformance.timeouts import DEFAULT_SECONDS, CaseTimeout, call_with_timeout
from conformance.wording import a


class CorpusError(Exception):
    """A case or cassette of the corpus itself is broken: not the adapter's fault."""


def scenario_context(corpus: Corpus, scenario: Scenario, profile: str) -> CheckContext:
    """What the rules need to judge a scenario's exchange."""
    calls = tuple(scenario.all_calls())
    return CheckContext(
        corpus=corpus,
        dialect=dialect_for(scenario.api),
        profile=profile,
        expected_outputs={c.id: c.output for c in calls if c.id},
        tool_names=frozenset(t["name"] for t in scenario.tools),
        expected_calls=calls,
        runs=_runs(scenario),
    )


def _runs(scenario: Scenario) -> tuple[int, ...]:
    """The session run of each served response: a turn with a prompt begins a new one."""
    run, runs = 0, []
    for turn in scenario.turns:
        run += 1 if turn.prompt else 0
        runs.append(run)
    return tuple(runs)


@dataclass(frozen=True)
class RunOptions:
    """How cases run: the profile, the per-case time limit, and for client adapters the vcrpy settings."""

    profile: str = "default"
    timeout: float | None = DEFAULT_SECONDS
    record_mode: str = "none"
    vcr_config: Mapping[str, Any] = field(default_factory=dict)
    base_url: str | None = None
    replay: Replay = "in-process"  # client adapters: vcrpy in this process, or the replay server over HTTP


def run_scenario(
    adapter: Adapter,
    scenario: Scenario,
    corpus: Corpus,
    profile: str = "default",
    options: RunOptions | None = None,
) -> CaseResult:
    options = options or RunOptions(profile=profile)
    started = time.perf_counter()

    def done(result: CaseResult) -> CaseResult:
        result.duration = time.perf_counter() - started
        return result

    if isinstance(adapter, OutOfProcess):
        # Another process runs the adapter; its supervisor keeps the time and turns faults into outcomes.
        return done(adapter.run(scenario, corpus, options))
    try:
        if isinstance(adapter, ClientAdapter):
            return done(call_with_timeout(lambda: _run_client(adapter, scenario, corpus, options), options.timeout))
        return done(call_with_timeout(lambda: _run_codec(adapter, scenario, corpus, options.profile), options.timeout))
    except CaseTimeout as exc:
        return done(CaseResult(scenario.id, scenario.api, "timeout", summary=f"the adapter gave {exc}"))
    except CorpusError as exc:
        return done(
            CaseResult(scenario.id, scenario.api, "error", summary=f"the corpus is at fault, not the adapter: {exc}")
        )
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        # Whatever escaped the adapter's own boundaries (SystemExit, a BaseException of its own) or
        # the judging of what it did: this case is an error, and the run goes on.
        return done(CaseResult(scenario.id, scenario.api, "error", summary=_escaped(exc), detail=short_traceback(exc)))


def _escaped(exc: BaseException) -> str:
    where = raised_in_suite(exc)
    if where is not None:
        return f"the suite failed while running this case (in {where}): {describe(exc)}"
    return f"the adapter raised {describe(exc)}"


def codec_only(scenario: Scenario) -> str | None:
    """Why a client (in process or a harness) cannot be handed the scenario, if it cannot: a history
    begun on another API, or a session of several runs, only a codec can be handed."""
    if scenario.history is not None:
        return f"begins with {a(scenario.history.api)} history, which only a codec adapter can be handed"
    if any(turn.prompt or any(c.interrupted for c in turn.calls) for turn in scenario.turns):
        return "a session of several runs, which only a codec adapter can be handed run by run"
    if scenario.recorded and scenario.turns and any(not c.provider_executed for c in scenario.turns[-1].calls):
        # The recording stops where the client would send the results: a tool loop goes past it.
        return (
            "a recording that ends on the provider's calls, before their results were sent; "
            "only a codec adapter can be handed it"
        )
    return None


def _run_client(adapter: ClientAdapter, scenario: Scenario, corpus: Corpus, options: RunOptions) -> CaseResult:
    fn = adapter.client(scenario.api)
    if fn is None:
        return CaseResult(scenario.id, scenario.api, "skip", summary=adapter.skip_reason(scenario.api))
    reason = codec_only(scenario)
    if reason is not None:
        return CaseResult(scenario.id, scenario.api, "skip", summary=reason)
    dialect = dialect_for(scenario.api)
    ctx = scenario_context(corpus, scenario, options.profile)
    path = corpus.cassette_path(scenario)
    try:
        run = run_client(
            fn,
            scenario,
            path,
            dialect,
            lambda exchange: check(exchange, ctx),
            record_mode=options.record_mode,
            user_config=options.vcr_config,
            base_url=options.base_url,
            replay=options.replay,
        )
    except (CassetteError, StreamError) as exc:
        raise CorpusError(f"{scenario.id}: cassette {path}: {exc}") from exc
    return client_verdict(scenario, run, ctx, dialect)


def client_verdict(scenario: Scenario, run: ClientRun, ctx: CheckContext, dialect: Dialect) -> CaseResult:
    """The outcome of a client's run, whichever way it reached the replay (in process, the server,
    a harness in another language)."""
    if run.unsupported is not None:
        return CaseResult(scenario.id, scenario.api, "skip", summary=f"the client declares: {run.unsupported}")
    if run.unservable is not None:
        summary = f"the recording cannot be served the way this client asks: {run.unservable}"
        return CaseResult(scenario.id, scenario.api, "skip", summary=summary)
    if run.tools_ran is not None:
        ctx = replace(ctx, tools_ran=tuple(run.tools_ran))
    result = _judged(scenario, run.exchange, ctx, dialect, "client")
    if result.outcome == "error":
        return result
    errors = result.errors
    notes: list[str] = []
    if run.refused:
        where = run.refused[0].location.split(".", 1)[0]
        notes.append(f"the replay answered {where} with the provider's error, as the provider would")
    if run.fault is not None and not run.refused:
        summary = describe(run.fault)
        if errors:
            notes.append(f"the client then raised {summary}")
        else:
            return CaseResult(
                scenario.id,
                scenario.api,
                "error",
                violations=result.violations,
                summary=f"the client raised {summary}",
                detail=getattr(run.fault, "detail", "") or short_traceback(run.fault),
            )
    if run.sent < run.recorded and run.fault is None:
        notes.append(f"{run.recorded - run.sent} of {run.recorded} recorded interaction(s) were never requested")
        result.outcome = "fail"
    if run.sent > run.recorded:
        notes.append(f"the client sent {run.sent} requests; the recording holds {run.recorded}")
        result.outcome = "fail"
    if run.extra:
        notes.append(f"the replay answered requests the recording does not hold with 404: {listed(run.extra)}")
    result.summary = "; ".join([result.summary, *notes] if result.summary else notes)
    return result


def _run_codec(adapter: CodecAdapter, scenario: Scenario, corpus: Corpus, profile: str) -> CaseResult:
    codec = adapter.codec(scenario.api)
    if codec is None:
        return CaseResult(scenario.id, scenario.api, "skip", summary=adapter.skip_reason(scenario.api))
    dialect = dialect_for(scenario.api)
    path = corpus.cassette_path(scenario)
    try:
        cassette = load_cassette(path)
        exchange = run_codec(codec, scenario, cassette, dialect, _played_history(adapter, scenario, corpus))
    except AdapterFault as fault:
        if fault.summary.startswith("returned "):  # what it returned breaks the codec contract
            summary = f"the adapter's {fault.phase} of turn {fault.turn} {fault.summary}"
        else:
            summary = f"the adapter failed in {fault.phase} of turn {fault.turn}: {fault.summary}"
        return CaseResult(scenario.id, scenario.api, "error", summary=summary, detail=fault.detail)
    except (CassetteError, StreamError, DialectError, ValueError) as exc:
        # Everything the adapter returns is checked on its way in (AdapterFault above): what is
        # left is the scenario's cassette.
        raise CorpusError(f"{scenario.id}: cassette {path}: {exc}") from exc
    return _judged(scenario, exchange, scenario_context(corpus, scenario, profile), dialect, "adapter")


def _played_history(adapter: CodecAdapter, scenario: Scenario, corpus: Corpus) -> PlayedHistory | None:
    """Chained mode: a history begun on another API is played through the adapter's own codec for
    that API when it has one and the scenario names the history's cassette; else the history is
    built from the scenario's declared turns."""
    history = scenario.history
    if history is None or not history.cassette:
        return None
    codec = adapter.codec(history.api)
    if codec is None:
        return None
    return PlayedHistory(codec, load_cassette(corpus.find_cassette(history.cassette)), dialect_for(history.api))


def _judged(scenario: Scenario, exchange: Exchange, ctx: CheckContext, dialect: Dialect, who: str) -> CaseResult:
    """The case's outcome from its exchange: fail on any error-severity violation, with the diff."""
    try:
        violations = check(exchange, ctx)
    except DialectError as exc:
        return CaseResult(
            scenario.id,
            scenario.api,
            "error",
            summary=f"the {who} sent a body that is not {a(scenario.api)} request: {exc}",
        )
    errors = [v for v in violations if v.severity == "error"]
    result = CaseResult(scenario.id, scenario.api, "fail" if errors else "pass", violations=violations)
    result.quotes = quotes_for(violations, exchange)
    if errors:
        codes = sorted({v.code for v in errors})
        result.summary = f"{len(errors)} violation(s): {', '.join(codes)}"
        result.diff = request_diff(exchange, dialect, issued_ids(scenario))
    return result


def select(corpus: Corpus, apis: Sequence[str] | None = None) -> list[Scenario]:
    chosen = [s for s in corpus.scenarios.values() if not apis or s.api in apis]
    return sorted(chosen, key=lambda s: s.id)


def run_suite(
    adapter: Adapter,
    corpus: Corpus,
    apis: Sequence[str] | None = None,
    profile: str = "default",
    options: RunOptions | None = None,
) -> list[CaseResult]:
    """Every selected case's result. An interrupt (Ctrl-C) stops the run: the case it stopped is an
    error, the cases after it are not run, and the results are returned all the same."""
    chosen = select(corpus, apis)
    results: list[CaseResult] = []
    for scenario in chosen:
        try:
            results.append(run_scenario(adapter, scenario, corpus, profile, options))
        except KeyboardInterrupt:
            results.append(
                CaseResult(
                    scenario.id, scenario.api, "error", summary="interrupted (KeyboardInterrupt) during this case"
                )
            )
            break
    results += [
        CaseResult(s.id, s.api, "not-run", summary="the run was interrupted before this case")
        for s in chosen[len(results) :]
    ]
    return results


def reproduce(bug: BugCase, corpus: Corpus, profile: str = "default", adapter: Adapter | None = None) -> CaseResult:
    """Replay a bug case through its reproduction adapter (resolved here unless given, e.g. isolated);
    pass means exactly the expected codes."""
    from conformance.adapters import resolve_reproduction

    scenario = corpus.scenarios[bug.scenario]
    if adapter is None:
        adapter = resolve_reproduction(bug.reproduction)
    result = run_scenario(adapter, scenario, corpus, profile)
    result.case_id = bug.id
    result.expected_codes = bug.expected
    if result.outcome in ("pass", "fail"):
        expected = set(bug.expected)
        # A bug whose provider has since relaxed the limit it broke reproduces as a warning (format/* limits
        # that compatible servers still enforce): an expected code counts at either severity.
        found = {v.code for v in result.errors} | ({v.code for v in result.warnings} & expected)
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
