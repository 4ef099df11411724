"""Running cases: a scenario through an adapter's codec, checked by the rules."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.connectors.adapters import Adapter
from conformance.connectors.client import ClientAdapter, Replay, TimedOutRun, run_client
from conformance.connectors.codec import AdapterFault, PlayedHistory, run_codec
from conformance.connectors.contract import Codecs, OutOfProcess
from conformance.corpus.loading import BugCase, Corpus, Scenario
from conformance.engine.dialects import dialect_for
from conformance.engine.dialects.base import DialectError
from conformance.engine.faults import CaseTimeout, describe, raised_in_suite, short_traceback
from conformance.engine.outcomes import CaseResult
from conformance.engine.rules import check
from conformance.recordings.cassette import CassetteError, load_cassette
from conformance.recordings.sse import StreamError
from conformance.replay.verdicts import client_verdict, codec_only, judged, scenario_context, timed_out
from conformance.running.exits import ProcessExit, exits_trapped
from conformance.running.timeouts import DEFAULT_SECONDS, call_with_timeout


class CorpusError(Exception):
    """A case or cassette of the corpus itself is broken: not the adapter's fault."""


@dataclass(frozen=True)
class RunOptions:
    """How cases run: the profile, the per-case time limit, and for client adapters the vcrpy settings."""

    profile: str = "default"
    timeout: float | None = DEFAULT_SECONDS
    record_mode: str = "none"
    vcr_config: Mapping[str, Any] = field(default_factory=dict)
    base_url: str | None = None
    replay: Replay = "in-process"  # client adapters: vcrpy in this process, or the replay server over HTTP
    show_requests: bool = False  # keep each request sent (and the recorded one) on the result


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
        if not options.show_requests:
            result.requests = None  # kept by the judging; the results file holds them only when asked
        return result

    if isinstance(adapter, OutOfProcess):
        # Another process runs the adapter; its supervisor keeps the time and turns faults into outcomes.
        return done(adapter.run(scenario, corpus, options))
    try:
        with exits_trapped():
            if isinstance(adapter, ClientAdapter):
                return done(call_with_timeout(lambda: _run_client(adapter, scenario, corpus, options), options.timeout))
            return done(
                call_with_timeout(lambda: run_codec_case(adapter, scenario, corpus, options.profile), options.timeout)
            )
    except ProcessExit as exc:
        summary = f"{exc}, which would have ended the run as a success with no report"
        return done(CaseResult(scenario.id, scenario.api, "crash", summary=summary, detail=short_traceback(exc)))
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


def announce(adapter: Adapter, upcoming: Iterable[tuple[Scenario, RunOptions]]) -> None:
    """Tell an adapter in another process which cases run after the next one, in their order, each
    with its options (empty: none, or not known), so that it can start on them while this process
    judges the next one. Read lazily: as far as the adapter looks ahead."""
    then = getattr(adapter, "then", None)
    if callable(then):
        then(upcoming)


def _escaped(exc: BaseException) -> str:
    where = raised_in_suite(exc)
    if where is not None:
        return f"the suite failed while running this case (in {where}): {describe(exc)}"
    return f"the adapter raised {describe(exc)}"


def _run_client(adapter: ClientAdapter, scenario: Scenario, corpus: Corpus, options: RunOptions) -> CaseResult:
    fn = adapter.client(scenario.api)
    if fn is None:
        return CaseResult(scenario.id, scenario.api, "skip", summary=adapter.skip_reason(scenario.api))
    reason = codec_only(scenario, adapter.continues)
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
    except TimedOutRun as exc:
        return timed_out(scenario, exc.run, ctx, dialect, f"the adapter gave {exc}")
    except (CassetteError, StreamError) as exc:
        raise CorpusError(f"{scenario.id}: cassette {path}: {exc}") from exc
    return client_verdict(scenario, run, ctx, dialect)


def run_codec_case(adapter: Codecs, scenario: Scenario, corpus: Corpus, profile: str) -> CaseResult:
    """A scenario played through a codec (in this process, or one in the adapter's worker process),
    judged here."""
    codec = adapter.codec(scenario.api)
    if codec is None:
        return CaseResult(scenario.id, scenario.api, "skip", summary=adapter.skip_reason(scenario.api))
    dialect = dialect_for(scenario.api)
    path = corpus.cassette_path(scenario)
    try:
        cassette = load_cassette(path)
        exchange = run_codec(codec, scenario, cassette, dialect, played_history(adapter, scenario, corpus))
    except AdapterFault as fault:
        return fault_result(scenario, fault)
    except (CassetteError, StreamError, DialectError, ValueError) as exc:
        # Everything the adapter returns is checked on its way in (AdapterFault above): what is
        # left is the scenario's cassette.
        raise CorpusError(f"{scenario.id}: cassette {path}: {exc}") from exc
    return judged(scenario, exchange, scenario_context(corpus, scenario, profile), dialect, "adapter")


def fault_result(scenario: Scenario, fault: AdapterFault) -> CaseResult:
    """A codec that raised, or returned what breaks the codec contract: the case's error, located."""
    if fault.summary.startswith("returned "):
        summary = f"the adapter's {fault.phase} of turn {fault.turn} {fault.summary}"
    else:
        summary = f"the adapter failed in {fault.phase} of turn {fault.turn}: {fault.summary}"
    return CaseResult(scenario.id, scenario.api, "error", summary=summary, detail=fault.detail)


def played_history(adapter: Codecs, scenario: Scenario, corpus: Corpus) -> PlayedHistory | None:
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
    from conformance.connectors.adapters import resolve_reproduction

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
