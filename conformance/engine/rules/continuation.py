"""Requests that continue a stored response (OpenAI Responses `previous_response_id`, Gemini
Interactions `previous_interaction_id`).

Such a request sends only what is new: the outputs of the continued response's calls go without
their calls, which the provider holds. So the pairing rules cannot see those calls in the body; this
module finds them in the served response the request names, and checks that every call of it is
answered (the provider answers `No tool output found for function call ...` otherwise) and that
every output answers a call of the stored chain.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.engine.exchange import Exchange
from conformance.engine.rules.context import CheckContext
from conformance.engine.rules.outputs import outputs
from conformance.engine.rules.pairing import needs_result
from conformance.engine.violations import Violation
from conformance.engine.wire import History, Served, WireCall, WireResult


def check_request(ctx: CheckContext, exchange: Exchange, index: int, history: History) -> list[Violation]:
    response_id: Callable[[Served], str | None] | None = getattr(ctx.dialect, "response_id", None)
    if not history.continues or response_id is None:
        return []
    chain: list[Any] = []
    for turn in exchange.turns:
        if turn.index >= index:
            break
        chain.append(turn)
        if response_id(turn.served) == history.continues:
            break
    else:
        return []  # a response this exchange did not serve: stored elsewhere, not judged here
    if not chain or response_id(chain[-1].served) != history.continues:
        return []
    continued = chain[-1]
    field = getattr(ctx.dialect, "continuation_field", "previous_response_id")  # what the request names it by
    stored: dict[str, WireCall] = {c.call_id: c for t in chain for c in t.served.calls if c.call_id}
    sent = {c.call_id for c in history.calls() if c.call_id}
    results = [r for r in history.results() if not r.provider_executed]
    answered = {r.call_id for r in results if r.call_id}
    out: list[Violation] = []
    for call in continued.served.calls:
        if call.call_id and needs_result(ctx, call) and call.call_id not in answered and call.call_id not in sent:
            out.append(
                ctx.violation(
                    "pairing/missing-result",
                    f"request[{index}]",
                    f"The request continues response[{continued.index}] ({field} "
                    f"{history.continues!r}), whose call {call.call_id!r} ({call.name}) it does not answer: "
                    "the provider holds the call, and the output must come with the continuation.",
                    wire_type=call.wire_type,
                    expected=f"an output for {call.call_id!r}",
                    received="none",
                )
            )
    pairs: list[tuple[WireResult, WireCall]] = []
    for result in results:
        if not result.call_id or result.call_id in sent:
            continue  # answers a call of the body itself: the pairing rules judge it
        call = stored.get(result.call_id)
        if call is not None:
            pairs.append((result, call))
            continue
        out.append(
            ctx.violation(
                "pairing/orphan-result",
                result.id_path,
                f"The output for {result.call_id!r} answers no call of the stored responses it continues "
                f"({field} {history.continues!r}) nor of the request itself.",
                wire_type=result.wire_type,
                expected="the call_id of a call the provider issued in the stored chain",
                received=result.call_id,
            )
        )
    out.extend(outputs(ctx, history, pairs))
    return out
