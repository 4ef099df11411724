"""Verdicts: a scenario's exchange judged into the case's outcome.

The same verdict whichever way the requests came (a codec, a client in process, the replay server,
a harness in another language), so that every connector gets every check and the same wording.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from conformance.corpus.loading import Corpus, Scenario
from conformance.engine.dialects import dialect_for
from conformance.engine.dialects.base import Dialect, DialectError
from conformance.engine.diffing import issued_ids, request_diff
from conformance.engine.exchange import Exchange
from conformance.engine.faults import describe, short_traceback
from conformance.engine.outcomes import CaseResult
from conformance.engine.quoting import quotes_for
from conformance.engine.requests_view import requests_of
from conformance.engine.rules import CheckContext, check
from conformance.engine.turn_end import asks_client
from conformance.engine.violations import Violation
from conformance.engine.wording import a
from conformance.replay import closing
from conformance.replay.continued import not_continued, runs_left
from conformance.replay.renaming import UNTHOUGHT
from conformance.replay.session import ClientRun, listed


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
        prior_calls=tuple(c for t in scenario.history.turns for c in t.calls) if scenario.history else (),
        model=scenario.model,
    )


def _runs(scenario: Scenario) -> tuple[int, ...]:
    """The session run of each served response: a turn with a prompt begins a new one."""
    run, runs = 0, []
    for turn in scenario.turns:
        run += 1 if turn.prompt else 0
        runs.append(run)
    return tuple(runs)


def codec_only(scenario: Scenario, continues: Collection[str] = ()) -> str | None:
    """Why a client (in process or a harness) cannot be handed the scenario, if it cannot: a restored
    history or a session of several runs, unless the client `continues` them (connectors/continuing.py)."""
    return not_continued(scenario, continues)


def judged(scenario: Scenario, exchange: Exchange, ctx: CheckContext, dialect: Dialect, who: str) -> CaseResult:
    """The case's outcome from its exchange: fail on any error-severity violation, with the diff."""
    try:
        violations = check(exchange, ctx)
    except DialectError as exc:
        return CaseResult(
            scenario.id,
            scenario.api,
            "error",
            summary=f"the {who} sent a body that is not {a(scenario.api)} request: {exc}",
            requests=requests_of(exchange),
        )
    errors = [v for v in violations if v.severity == "error"]
    result = CaseResult(scenario.id, scenario.api, "fail" if errors else "pass", violations=violations)
    result.quotes = quotes_for(violations, exchange)
    result.requests = requests_of(exchange)
    if errors:
        result.summary = _errors_summary(errors)
        result.diff = request_diff(exchange, dialect, issued_ids(scenario))
    return result


def timed_out(
    scenario: Scenario, run: ClientRun | None, ctx: CheckContext, dialect: Dialect, summary: str
) -> CaseResult:
    """A client over its time limit, with the requests it sent by then judged. The outcome stays
    `timeout` (the run never ended, so nothing can be said of what it would have sent next), but a
    hang after a broken request still shows the broken request: its violations and the requests are
    kept. `run` is None where nothing of the run survived (a process killed mid-case)."""
    if run is None:
        return CaseResult(scenario.id, scenario.api, "timeout", summary=summary)
    if not run.exchange.turns:
        return CaseResult(scenario.id, scenario.api, "timeout", summary=f"{summary}; it had sent no request by then")
    if run.tools_ran is not None:
        ctx = replace(ctx, tools_ran=tuple(run.tools_ran))
    partial = judged(scenario, run.exchange, ctx, dialect, "client")
    sent = (
        f"by then it had sent {len(run.exchange.turns)} of the {run.recorded + run.closing} request(s) the replay holds"
    )
    if partial.outcome == "error":  # a body that is no request of the API: said as the judging said it
        sent = f"{sent}, and {partial.summary}"
    elif partial.errors:
        sent = f"{sent}, with {_errors_summary(partial.errors)}"
    return replace(partial, outcome="timeout", summary=f"{summary}; {sent}")


def _errors_summary(errors: list[Violation]) -> str:
    """A failed case's one line: how many errors, and their codes."""
    return f"{len(errors)} violation(s): {', '.join(sorted({v.code for v in errors}))}"


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
    result = judged(scenario, run.exchange, ctx, dialect, "client")
    if result.outcome == "error":
        return result
    if run.undeclared is not None:
        return _undeclared(scenario, run.undeclared, result)
    if run.forced_end is not None:
        return _forced_end(run.forced_end, result)
    errors = result.errors
    notes: list[str] = []
    if run.refused:
        where = run.refused[0].location.split(".", 1)[0]
        notes.append(f"the replay answered {where} with the provider's error, as the provider would")
    if run.malformed and run.fault is None:
        notes.append(f"the replay answered 400 to {listed(run.malformed)}")
    past_blank = _asked_past_a_blank_end(run)
    if past_blank is not None:
        notes.append(past_blank)
    past_end = _asked_past_the_end(scenario, run) if past_blank is None else None
    if past_end is not None:
        notes.append(past_end)
        result.outcome = "fail"
        if run.fault is not None:  # what it made of the replay's 400 for that request
            notes.append(f"the client then raised {describe(run.fault)}")
    if run.fault is not None and not run.refused and past_blank is None and past_end is None:
        summary = describe(run.fault)
        if run.malformed:  # the body itself is what went wrong, before what the client made of the 400
            summary = f"{summary}, after the replay answered 400 to {listed(run.malformed)}"
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
                quotes=result.quotes,
                requests=result.requests,
            )
    played = run.recorded + run.closing
    if run.sent < played and run.fault is None:
        ended = _loop_ended(scenario, run)
        if ended is not None:
            notes.append(ended)
        else:
            notes.append(_unrequested(run))
            result.outcome = "fail"
            stopped = _stopped_with_calls(run, ctx)
            if stopped is not None:
                result.violations.append(stopped)
                result.summary = _errors_summary(result.errors)
    if run.closing and run.sent > run.recorded:
        _mark_closing(result, run.recorded)
        notes.append(f"{closing.NOTE} (response[{run.recorded}])")
    renamed = [note for note in run.renamed if UNTHOUGHT not in note]
    unthought = [note.split(":", 1)[0] for note in run.renamed if UNTHOUGHT in note]
    if renamed:
        notes.append(f"the replay served calls under the names the client declared: {listed(renamed)}")
    if unthought:
        # Claude thinks only when asked: the provider would have answered this request without it.
        notes.append(f"the replay served {listed(unthought)} without the thinking the request did not ask for")
    if run.extra:
        notes.append(f"the replay answered requests the recording does not hold with 404: {listed(run.extra)}")
    result.summary = "; ".join([result.summary, *notes] if result.summary else notes)
    return result


def _asked_past_a_blank_end(run: ClientRun) -> str | None:
    """Why a request past the recording is the recording's limit, when it is: the recording ends on
    an answer with no text and no call (the model said nothing), and a client that asks again after
    an empty answer (a retry, as some frameworks do by design) asks what the provider answered next,
    which the recording does not hold. The requests up to there are judged; what the client made of
    the replay's refusal of the extra request is not its verdict."""
    if run.sent <= run.recorded or len(run.exchange.turns) != run.recorded or not run.exchange.turns:
        return None
    last = run.exchange.turns[-1].served
    if last.calls or last.text.strip():
        return None
    return (
        f"the recording ends on a blank answer (response[{run.recorded - 1}]) and the client asked again; "
        "what the provider answered next is not recorded, so that request was not played"
    )


def _asked_past_the_end(scenario: Scenario, run: ClientRun) -> str | None:
    """What a client did that sent more requests than the replay holds (the recording, and the suite's
    closing answer where the recording ends on calls), when it did: asked again after the final
    answer (the last response asks nothing of it: the provider had answered, and a tool loop ends
    there), or sent past the replay otherwise. Either is the client's doing, and one outcome whether
    it then raised on the replay's 400 or swallowed it."""
    played = run.recorded + run.closing
    if run.sent <= played:
        return None
    holds = f"the recording holds {run.recorded}"
    if run.closing:
        holds = f"the replay holds {played} (the recording's {run.recorded} and the suite's closing answer)"
    turns = run.exchange.turns
    if len(turns) == played and turns and asks_client(scenario.api, turns[-1].served) is None:
        return (
            f"the client asked again after the final answer (response[{played - 1}]): "
            f"it sent {run.sent} requests; {holds}"
        )
    return f"the client sent {run.sent} requests; {holds}"


def _unrequested(run: ClientRun) -> str:
    """What a client that stopped short left out: recorded interactions, or only the request with the
    last recorded calls' results, which the suite's closing answer would have answered."""
    if run.sent < run.recorded:
        return f"{run.recorded - run.sent} of {run.recorded} recorded interaction(s) were never requested"
    return f"the client never sent the results of response[{run.recorded - 1}]'s calls"


def _mark_closing(result: CaseResult, index: int) -> None:
    """The verdict says the answer to request `index` was the suite's own, in its results and its
    --show-requests listing."""
    result.suite_answered = True
    for entry in result.requests or ():
        if entry.get("turn") == index:
            entry["closing"] = True


def _stopped_with_calls(run: ClientRun, ctx: CheckContext) -> Violation | None:
    """The violation of a client that sent no further request after a response holding calls for it:
    the provider waits for their results (a Responses conversation refuses to go on without them),
    and no request of the client's says why."""
    if not run.sent or len(run.exchange.turns) < run.sent:
        return None
    served = run.exchange.turns[run.sent - 1].served
    calls = [c for c in served.calls if not c.provider_executed]
    if not calls:
        return None
    shown = ", ".join(f"{c.call_id or '(no id)'} ({c.name or 'unnamed'})" for c in calls)
    return ctx.violation(
        "pairing/calls-unanswered",
        f"response[{run.sent - 1}]",
        f"The client sent no request after response[{run.sent - 1}], which called {shown}; "
        f"their results were never sent{_not_requested(run)}.",
        wire_type=calls[0].wire_type,
        expected=f"a request answering {len(calls)} call(s)",
        received="no further request",
    )


def _not_requested(run: ClientRun) -> str:
    missing = run.recorded - run.sent
    return f" ({missing} recorded interaction(s) not requested)" if missing > 0 else ""


def _loop_ended(scenario: Scenario, run: ClientRun) -> str | None:
    """Why stopping short of the recording was right, when it was: the last response the client got
    asks nothing of it (text and the provider's own tools, no call for the client, no `pause_turn`),
    so a tool loop ends there; what the recording holds after it (a follow-up message of the
    recorded application) is no request of the client's loop, unless it begins a run of the session the
    client was handed."""
    played = run.exchange.turns[: run.sent]
    if not played or asks_client(scenario.api, played[-1].served) is not None or runs_left(scenario, run.sent):
        return None
    index = len(played) - 1
    return (
        f"the client's loop ended after response[{index}], which holds no call for the client; "
        f"the recording's {run.recorded - run.sent} later interaction(s) go beyond a tool loop and were not played"
    )


def _undeclared(scenario: Scenario, reason: str, result: CaseResult) -> CaseResult:
    """A client whose request could not have produced the recorded turn: the case stops there. The
    requests it sent up to that turn were served as recorded and their violations stand; otherwise
    the case is a `skip` with the reason, never a violation of what the replay could not serve."""
    if result.errors:
        result.summary = f"{result.summary}; then {reason}, and the replay stopped there"
        return result
    return CaseResult(scenario.id, scenario.api, "skip", summary=reason)


def _forced_end(reason: str, result: CaseResult) -> CaseResult:
    """A client whose request forced a tool call where the recording answers in text: the conversation
    ends at that request, as the case says. Every request it sent, that one included, is judged; what
    it made of the replay's refusal is not its verdict, as no provider text was recorded for it."""
    result.summary = "; ".join(part for part in (result.summary, reason) if part)
    return result
