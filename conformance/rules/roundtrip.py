"""roundtrip/*: what the provider issued with a call comes back unchanged.

The call id (on the call and on its results), the item id where the wire has one besides the
call id (OpenAI Responses `fc_...`), and opaque fields (Gemini `thought_signature`, Anthropic
`caller`). Where the wire had no id, none is sent back.
"""

from __future__ import annotations

from dataclasses import replace

from conformance.rules.alignment import Echo
from conformance.rules.context import CheckContext
from conformance.rules.diagnose import diagnose
from conformance.violations import Violation
from conformance.wire import History, WireCall


def check_request(ctx: CheckContext, index: int, history: History, found: list[Echo]) -> list[Violation]:
    out: list[Violation] = []
    served_ids = [e.served.call_id for e in found if e.served.call_id]
    for echo in found:
        served = echo.served
        if echo.sent is None:
            out.append(
                ctx.violation(
                    "roundtrip/call-lost",
                    f"request[{index}]",
                    f"The call {served.call_id or served.name!r} ({served.name}) that "
                    f"response[{echo.served_turn}] issued is missing from the history sent back.",
                    wire_type=served.wire_type,
                    expected=served.call_id or served.name,
                    received="no such call",
                )
            )
            continue
        sent = echo.sent
        out.extend(_opaque(ctx, served, sent))
        out.extend(_item_id(ctx, served, sent, served_ids))
        if served.call_id == "":
            # An empty id on the wire (Gemini's OpenAI-compatible endpoint) identifies nothing: the
            # adapter mints one and sends it on the call and its results. Sending it back empty is the fault.
            if not sent.call_id:
                out.append(
                    ctx.violation(
                        "roundtrip/empty-id",
                        sent.id_path,
                        f"The call {served.name} came with an empty id and is sent back with {sent.call_id!r}; "
                        "its results cannot name it.",
                        wire_type=sent.wire_type,
                        expected="an id the adapter mints, on the call and on its results",
                        received=sent.call_id,
                        hint="Mint an id for a call served with an empty one (deterministically, in the API's "
                        "grammar) and send it on the call and on its results.",
                    )
                )
            continue
        if served.call_id is None:
            if sent.call_id:
                out.append(
                    ctx.violation(
                        "roundtrip/invented-id",
                        sent.id_path,
                        f"The call {served.name} had no id on the wire, but is sent back with {sent.call_id!r}.",
                        wire_type=sent.wire_type,
                        expected=None,
                        received=sent.call_id,
                    )
                )
            continue
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
        if served.item_id and sent.call_id == served.item_id:
            out.append(
                ctx.violation(
                    "roundtrip/ids-swapped",
                    sent.id_path,
                    f"The call {served.name} goes back with its item id {sent.call_id!r} as its call id; "
                    f"the call id is {served.call_id!r}.",
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


def _item_id(ctx: CheckContext, served: WireCall, sent: WireCall, served_ids: list[str]) -> list[Violation]:
    # The item id may be left out on input (the server assigns one); when sent, it must be the served one.
    if not served.item_id or not sent.item_id or sent.item_id == served.item_id:
        return []
    if sent.item_id == served.call_id:
        return [
            ctx.violation(
                "roundtrip/ids-swapped",
                sent.item_path,
                f"The call {served.name} goes back with its call id {sent.item_id!r} in the item id field; "
                f"the item id is {served.item_id!r}.",
                wire_type=sent.wire_type,
                expected=served.item_id,
                received=sent.item_id,
            )
        ]
    slug, sentence = diagnose(
        sent.item_id,
        served.item_id,
        call_name=served.name,
        tool_names=ctx.tool_names,
        outputs=[],
        other_ids=served_ids,
    )
    return [
        ctx.violation(
            "roundtrip/id-altered",
            sent.item_path,
            f"The item of call {served.name} goes back with id {sent.item_id!r}, but the provider issued "
            f"{served.item_id!r}: {sentence}.",
            wire_type=sent.wire_type,
            expected=served.item_id,
            received=sent.item_id,
            diagnosis=slug,
        )
    ]


def _opaque(ctx: CheckContext, served: WireCall, sent: WireCall) -> list[Violation]:
    out: list[Violation] = []
    for key, value in served.opaque.items():
        if sent.opaque.get(key) == value:
            continue
        got = sent.opaque.get(key)
        what = "drops it" if got is None else f"sends {str(got)[:40]!r} instead"
        violation = ctx.violation(
            "roundtrip/opaque-dropped",
            f"{sent.path}.{key}",
            f"The provider issued {key} with the call {served.name}; the history sent back {what}.",
            wire_type=sent.wire_type,
            expected=value,
            received=got,
        )
        if key in served.optional_opaque:
            # The serving model accepts the call without it (recorded 200s): lossy, not refused.
            violation = replace(violation, provider_error=None, provider_error_source=None)
        out.append(violation)
    return out
