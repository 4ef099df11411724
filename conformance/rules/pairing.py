"""pairing/*: every result answers a call of the turn it follows, every call is answered once."""

from __future__ import annotations

from conformance.rules.alignment import Echo
from conformance.rules.context import CheckContext
from conformance.rules.diagnose import resembles
from conformance.violations import Violation
from conformance.wire import History, WireCall, WireResult


def check_request(ctx: CheckContext, history: History, echoes_here: list[Echo]) -> list[Violation]:
    out: list[Violation] = []
    dropped = {e.served.call_id for e in echoes_here if e.sent is None and e.served.call_id}
    served_ids = {e.served.call_id for e in echoes_here if e.served.call_id}

    out.extend(_duplicate_calls(ctx, history))

    def orphan(result: WireResult) -> None:
        if result.call_id in dropped:
            out.append(
                ctx.violation(
                    "pairing/call-dropped",
                    result.id_path,
                    f"The result for {result.call_id!r} is sent, but the call it answers, which the "
                    "provider issued, is missing from the history.",
                    wire_type=result.wire_type,
                    expected=f"the call {result.call_id!r} before its result",
                    received="the result alone",
                )
            )
            return
        why = ""
        if result.call_id and result.call_id not in served_ids:
            names = {*ctx.tool_names, *([result.name] if result.name else [])}
            looks = resembles(result.call_id, names=names, output=str(result.output))
            why = f" ({looks})" if looks else ""
        out.append(
            ctx.violation(
                "pairing/orphan-result",
                result.id_path,
                f"The result's id {result.call_id!r} matches no call of the assistant turn it follows{why}.",
                wire_type=result.wire_type,
                expected="the id of a call in the preceding assistant turn",
                received=result.call_id,
            )
        )

    open_calls: tuple[WireCall, ...] | None = None
    answered: set[str] = set()

    def close() -> None:
        if not open_calls:
            return
        missing = [c for c in open_calls if not c.call_id or c.call_id not in answered]
        for call in missing:
            out.append(
                ctx.violation(
                    "pairing/missing-result",
                    call.id_path,
                    f"The call {call.call_id!r} ({call.name}) has no result after it.",
                    wire_type=call.wire_type,
                    expected=f"a result with id {call.call_id!r}",
                    received="none",
                )
            )

    for message in history.messages:
        if message.results and ctx.dialect.placement == "following-messages":
            ids = {c.call_id for c in open_calls or () if c.call_id}
            for result in message.results:
                if open_calls is None or result.call_id not in ids:
                    orphan(result)
                elif result.call_id in answered:
                    out.append(
                        ctx.violation(
                            "pairing/duplicate-result",
                            result.id_path,
                            f"The call {result.call_id!r} is answered more than once.",
                            wire_type=result.wire_type,
                            expected="one result per call",
                            received=f"another result for {result.call_id!r}",
                        )
                    )
                else:
                    answered.add(str(result.call_id))
            continue
        close()
        open_calls = message.calls or None
        answered = set()
    close()

    out.extend(_by_position(ctx, history))
    return out


def _duplicate_calls(ctx: CheckContext, history: History) -> list[Violation]:
    out: list[Violation] = []
    first: dict[str, WireCall] = {}
    for call in history.calls():
        if not call.call_id:
            continue
        if call.call_id in first:
            out.append(
                ctx.violation(
                    "pairing/duplicate-call-id",
                    call.id_path,
                    f"The id {call.call_id!r} is used by two calls ({first[call.call_id].name} at "
                    f"{first[call.call_id].id_path} and {call.name} here); results cannot tell them apart.",
                    wire_type=call.wire_type,
                    expected="a distinct id per call",
                    received=call.call_id,
                )
            )
        else:
            first[call.call_id] = call
    return out


def _by_position(ctx: CheckContext, history: History) -> list[Violation]:
    """A result under one call's id carrying another call's canned output.

    Silent at the provider (token-js PR #36 swapped two cities' temperatures); visible here
    because the harness knows which output belongs to which id.
    """
    expected = ctx.expected_outputs
    out: list[Violation] = []
    for result in history.results():
        if result.call_id is None or result.call_id not in expected:
            continue
        content = str(result.output)
        own = expected[result.call_id]
        if own in content:
            continue
        other = next((i for i, o in expected.items() if i != result.call_id and o in content), None)
        if other is None:
            continue
        out.append(
            ctx.violation(
                "pairing/by-position",
                result.path,
                f"The result sent under {result.call_id!r} carries the output of {other!r}: results "
                "were matched to calls by position.",
                wire_type=result.wire_type,
                expected=own,
                received=content,
            )
        )
    return out
