"""roundtrip/*: ids the provider issued come back unchanged, on calls and on their results."""

from __future__ import annotations

from conformance.rules.alignment import Echo
from conformance.rules.context import CheckContext
from conformance.rules.diagnose import diagnose
from conformance.violations import Violation
from conformance.wire import History


def check_request(ctx: CheckContext, index: int, history: History, found: list[Echo]) -> list[Violation]:
    out: list[Violation] = []
    served_ids = [e.served.call_id for e in found if e.served.call_id]
    for echo in found:
        served = echo.served
        if served.call_id is None:
            continue  # nothing to round-trip: rules for id-less wire types live elsewhere
        if echo.sent is None:
            out.append(
                ctx.violation(
                    "roundtrip/call-lost",
                    f"request[{index}]",
                    f"The call {served.call_id!r} ({served.name}) that response[{echo.served_turn}] "
                    "issued is missing from the history sent back.",
                    wire_type=served.wire_type,
                    expected=served.call_id,
                    received="no such call",
                )
            )
            continue
        sent = echo.sent
        if sent.call_id == served.call_id:
            continue
        if not sent.call_id:
            out.append(
                ctx.violation(
                    "roundtrip/empty-id",
                    sent.id_path,
                    f"The call {served.name} is sent back with an empty id instead of {served.call_id!r}.",
                    wire_type=sent.wire_type,
                    expected=served.call_id,
                    received=sent.call_id,
                )
            )
            continue
        outputs = [ctx.expected_outputs.get(served.call_id, "")]
        slug, sentence = diagnose(
            sent.call_id,
            served.call_id,
            call_name=served.name,
            tool_names=ctx.tool_names,
            outputs=outputs,
            other_ids=[i for i in served_ids if i != served.call_id],
        )
        out.append(
            ctx.violation(
                "roundtrip/id-altered",
                sent.id_path,
                f"The call {served.name} goes back with id {sent.call_id!r}, but the provider issued "
                f"{served.call_id!r}: {sentence}.",
                wire_type=sent.wire_type,
                expected=served.call_id,
                received=sent.call_id,
                diagnosis=slug,
            )
        )
        for result in history.results():
            if result.call_id == sent.call_id:
                out.append(
                    ctx.violation(
                        "roundtrip/id-altered",
                        result.id_path,
                        f"The result for {served.name} carries {sent.call_id!r} instead of "
                        f"{served.call_id!r}: {sentence}.",
                        wire_type=result.wire_type,
                        expected=served.call_id,
                        received=result.call_id,
                        diagnosis=slug,
                    )
                )
    return out
