"""roundtrip/*: what the provider issued with a call comes back unchanged.

The call id (on the call and on its results), the item id where the wire has one besides the
call id (OpenAI Responses `fc_...`), the fields its wire-type case says must come back
(`returned_fields`: Anthropic `caller`, OpenAI `namespace`) and Gemini's `thought_signature`, and
the arguments. Where the wire had no id, none is sent back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from conformance.engine.called_tools import prefixed
from conformance.engine.returned import is_declared, refusal, returned
from conformance.engine.rules.alignment import Echo
from conformance.engine.rules.context import CheckContext, arguments_value, canonical, same_arguments
from conformance.engine.rules.diagnose import diagnose
from conformance.engine.violations import Severity, Violation
from conformance.engine.wire import History, WireCall, WireResult


def check_request(ctx: CheckContext, index: int, history: History, found: list[Echo]) -> list[Violation]:
    out: list[Violation] = []
    served_ids = frozenset(e.served.call_id for e in found if e.served.call_id)
    results_by_id: dict[str | None, list[WireResult]] = {}  # filled on the first need
    for echo in found:
        served = echo.served
        if echo.sent is None:
            if (ctx.earlier_run(echo.served_turn, index) or _droppable(ctx, served)) and not _answered(
                history, served, results_by_id
            ):
                # A memory that forgets an earlier run drops its calls with their results; a call the
                # scenario lets the client leave out (a nameless call it cannot run) goes with its results.
                continue
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
        out.extend(_arguments(ctx, served, sent))
        out.extend(_name(ctx, served, sent))
        out.extend(_item_id(ctx, served, sent, served_ids))
        if served.call_id == "" or (served.call_id is None and _id_required(ctx, sent)):
            # An empty id on the wire (Gemini's OpenAI-compatible endpoint), or none where the request
            # needs one (a compatible server streaming calls without ids), identifies nothing: the
            # adapter mints one and sends it on the call and its results. Sending it back empty is the fault.
            if not sent.call_id:
                out.append(
                    ctx.violation(
                        "roundtrip/empty-id",
                        sent.id_path,
                        f"The call {served.name} came with {'an empty id' if served.call_id == '' else 'no id'} "
                        f"and is sent back with {sent.call_id!r}; "
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
            other_ids=served_ids,
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
        for result in _results(history, results_by_id).get(sent.call_id, ()):
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


class Known:
    """The calls a request may carry without an echo: those of the exchange's first request (a
    history that began before the recording), and those served so far, by id and by name and
    arguments. Grown turn by turn, so each request is checked against what came before it."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.calls: set[tuple[str | None, str | None]] = set()
        self._unread: list[WireCall] = []  # added, not yet keyed by name and arguments

    def add(self, calls: Iterable[WireCall]) -> None:
        for call in calls:
            if call.call_id:
                self.ids.add(call.call_id)
            self._unread.append(call)

    def holds(self, call: WireCall) -> bool:
        if call.call_id and call.call_id in self.ids:
            return True  # the common case: parsing every call's arguments would cost more than the rules
        if self._unread:
            self.calls.update((c.name, canonical(arguments_value(c.arguments))) for c in self._unread)
            self._unread.clear()
        return (call.name, canonical(arguments_value(call.arguments))) in self.calls


def unserved(ctx: CheckContext, history: History, found: list[Echo], known: Known) -> list[Violation]:
    """Calls the history carries that no response of the exchange served, and that the first
    request did not already hold: the model is told it made a call it never made."""
    echoed = {id(e.sent) for e in found if e.sent is not None}
    out: list[Violation] = []
    for message in history.messages:
        for call in message.calls:
            if id(call) in echoed or known.holds(call):
                continue
            out.append(
                ctx.violation(
                    "roundtrip/call-invented",
                    call.path,
                    f"The call {call.call_id or call.name!r} ({call.name or 'no name'}) is in the history, but no "
                    "response served it and the conversation did not begin with it.",
                    wire_type=call.wire_type,
                    expected="only calls the provider served (or the history the conversation began with)",
                    received=call.call_id or call.name,
                )
            )
    return out


def _droppable(ctx: CheckContext, served: WireCall) -> bool:
    expected = ctx.expected_for(served)
    return expected is not None and expected.droppable


def _item_id(ctx: CheckContext, served: WireCall, sent: WireCall, served_ids: frozenset[str]) -> list[Violation]:
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


def _results(history: History, index: dict[str | None, list[WireResult]]) -> dict[str | None, list[WireResult]]:
    """The request's results by the id they carry, read once per request, on the first need."""
    if not index:
        index[None] = []
        for result in history.results():
            index.setdefault(result.call_id, []).append(result)
    return index


def _answered(history: History, served: WireCall, index: dict[str | None, list[WireResult]]) -> bool:
    """Whether the request still holds a result for a served call (by its id)."""
    return bool(served.call_id) and bool(_results(history, index).get(served.call_id))


def _id_required(ctx: CheckContext, call: WireCall) -> bool:
    """Whether the API takes the call back only with an id (Chat Completions), so that a call served
    without one must be given one, rather than sent back without (Gemini, Ollama)."""
    case = ctx.corpus.wire_types.get(call.wire_type)
    field = case.id_field(call.id_field) if case else None
    return field is not None and field.presence == "required" and not field.nullable


def _arguments(ctx: CheckContext, served: WireCall, sent: WireCall) -> list[Violation]:
    """The arguments a call goes back with are the ones the provider served (as a value: a JSON
    text re-spaced or with its keys reordered is the same arguments)."""
    if same_arguments(served.arguments, sent.arguments):
        return []
    issued, got = arguments_value(served.arguments), arguments_value(sent.arguments)
    return [
        ctx.violation(
            "roundtrip/arguments-altered",
            sent.path,
            f"The call {served.name} ({served.call_id or 'no id'}) goes back with the arguments "
            f"{_short(got)}, but the provider issued {_short(issued)}.",
            wire_type=sent.wire_type,
            expected=issued,
            received=got,
        )
    ]


def _name(ctx: CheckContext, served: WireCall, sent: WireCall) -> list[Violation]:
    """The name a call goes back with is the one the provider served (a stream names a call once,
    on its first delta; an accumulator that keeps the later deltas' missing name sends `""`).

    Another name is held against the served one only where that names a tool of the conversation:
    a call served without a name is read under a placeholder (its item type), and whatever name a
    client gives it then, the provider served none to keep."""
    if not served.name or sent.name == served.name:
        return []
    # A turn served under the names the client declared (`tools-get_weather`) names the same tools.
    ours = served.name in ctx.tool_names or any(prefixed(served.name, t) for t in ctx.tool_names)
    if sent.name and ctx.tool_names and not ours:
        return []
    return [
        ctx.violation(
            "roundtrip/name-altered",
            sent.path,
            f"The call {served.call_id or served.name!r} goes back named {sent.name!r}, but the provider "
            f"issued it as {served.name!r}.",
            wire_type=sent.wire_type,
            expected=served.name,
            received=sent.name,
        )
    ]


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else f"{text[:77]}..."


def _opaque(ctx: CheckContext, served: WireCall, sent: WireCall) -> list[Violation]:
    """Every field the provider issued that must come back (the dialect's opaque fields, and the
    `returned_fields` of the call's wire-type case) is sent back unchanged."""
    out: list[Violation] = []
    issued = returned(ctx.corpus, served)
    if not issued:
        return out
    got_back = returned(ctx.corpus, sent)
    for key, value in issued.items():
        got = got_back.get(key)
        if got == value:
            continue
        what = "drops it" if got is None else f"sends {str(got)[:40]!r} instead"
        violation = ctx.violation(
            "roundtrip/opaque-dropped",
            f"{sent.path}.{key}",
            f"The provider issued {key} with the call {served.name}; the history sent back {what}.",
            wire_type=sent.wire_type,
            expected=value,
            received=got,
        )
        if is_declared(ctx.corpus, served.wire_type, key):
            # The case says whether the provider refuses a replay without the field, and with which words.
            known = refusal(ctx.corpus, served.wire_type, key)
            violation = replace(
                violation,
                provider_error=known.text if known else None,
                provider_error_source=known.source if known else None,
            )
        elif key in served.optional_opaque or key in sent.optional_opaque:
            # The serving model accepts the call without it (recorded 200s), or the request does where the
            # call sits (Anthropic's thinking before the last assistant message): legal but lossy, which is
            # what a warning is (an error under the strict profile), and no refusal to quote.
            severity: Severity = "error" if ctx.profile == "strict" else "warning"
            violation = replace(violation, severity=severity, provider_error=None, provider_error_source=None)
        out.append(violation)
    return out
