"""pairing/*: every result answers a call where its API looks for it, and every call is answered once.

Where a result may answer a call depends on the dialect's placement (see dialects.base): the tool
messages right after the calling message, the one next message, or anywhere later. Results
without ids (Gemini) answer the calls of that window by name, in order; server-tool results
answer calls of their own message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from conformance.rules.alignment import Echo
from conformance.rules.context import CheckContext
from conformance.rules.diagnose import resembles
from conformance.violations import Violation
from conformance.wire import History, WireCall, WireMessage, WireResult


@dataclass
class _State:
    answered: dict[str, WireResult] = field(default_factory=dict)  # call path -> its result
    pairs: list[tuple[WireResult, WireCall]] = field(default_factory=list)


def _window(ctx: CheckContext, messages: tuple[WireMessage, ...], index: int) -> list[WireCall]:
    """The client calls a result in message `index` may answer."""
    placement = ctx.dialect.placement
    if placement == "anywhere-after":
        return [c for m in messages[:index] for c in m.calls if not c.provider_executed]
    if placement == "next-message":
        return [c for c in messages[index - 1].calls if not c.provider_executed] if index else []
    j = index - 1  # following-messages: back over result-only messages to the calling one
    while j >= 0 and messages[j].results and not messages[j].calls:
        j -= 1
    return [c for c in messages[j].calls if not c.provider_executed] if j >= 0 else []


def _match(result: WireResult, window: list[WireCall], state: _State) -> WireCall | None:
    if result.call_id:
        same = [c for c in window if c.call_id == result.call_id]
        return next((c for c in same if c.path not in state.answered), same[0] if same else None)
    # No id: the first unanswered call of the window with the result's name.
    return next(
        (c for c in window if c.path not in state.answered and (result.name is None or c.name == result.name)),
        None,
    )


def _idless_results(ctx: CheckContext, messages: tuple[WireMessage, ...], index: int) -> list[WireResult]:
    """The id-less client results answering one turn, counted at message `index`.

    Where each result is a message of its own (following-messages: Ollama before ids), the turn's
    results are the whole run of result messages, counted once at its last message.
    """

    def idless(message: WireMessage) -> list[WireResult]:
        return [r for r in message.results if not r.call_id and not r.provider_executed]

    if ctx.dialect.placement != "following-messages" or messages[index].calls:
        return idless(messages[index])
    following = messages[index + 1] if index + 1 < len(messages) else None
    if following is not None and following.results and not following.calls:
        return []  # the run goes on: counted at its last message
    run: list[WireResult] = []
    j = index
    while j >= 0 and messages[j].results and not messages[j].calls:
        run = idless(messages[j]) + run
        j -= 1
    return run


def _id_required(ctx: CheckContext, result: WireResult) -> bool:
    """Whether the result's wire type requires its reference id (Gemini's and old Ollama's do not)."""
    case = ctx.corpus.wire_types.get(result.wire_type)
    field = case.id_field(result.id_field) if case else None
    return field is not None and field.presence == "required" and not field.nullable


def needs_result(ctx: CheckContext, call: WireCall) -> bool:
    return not call.provider_executed and ctx.dialect.result_type(call.wire_type) is not None


def check_request(ctx: CheckContext, history: History, echoes_here: list[Echo]) -> list[Violation]:
    out: list[Violation] = []
    dropped = {e.served.call_id for e in echoes_here if e.sent is None and e.served.call_id}
    served_ids = {e.served.call_id for e in echoes_here if e.served.call_id}
    state = _State()
    every_call = history.calls()

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
        shown = result.call_id if result.call_id else f"(no id, name {result.name!r})"
        out.append(
            ctx.violation(
                "pairing/orphan-result",
                result.id_path,
                f"The result {shown} matches no call of the turn it must follow{why}.",
                wire_type=result.wire_type,
                expected="the id of a call in the preceding assistant turn",
                received=result.call_id,
            )
        )

    def duplicate(result: WireResult) -> None:
        out.append(
            ctx.violation(
                "pairing/duplicate-result",
                result.id_path,
                f"The call {result.call_id or result.name!r} is answered more than once.",
                wire_type=result.wire_type,
                expected="one result per call",
                received=f"another result for {result.call_id or result.name!r}",
            )
        )

    for index, message in enumerate(history.messages):
        window = _window(ctx, history.messages, index)
        for result in message.results:
            if not result.call_id and _id_required(ctx, result):
                out.append(
                    ctx.violation(
                        "pairing/orphan-result",
                        result.id_path,
                        f"The result has no id ({result.call_id!r}); {ctx.dialect.api} pairs a result with its call "
                        "only by id, so it answers nothing.",
                        wire_type=result.wire_type,
                        expected="the id of the call it answers",
                        received=result.call_id,
                    )
                )
                continue
            if result.provider_executed:
                # Where results may sit anywhere later, a server's output may follow its call in a
                # later item (a Responses program's output arrives after the calls it made).
                scope = history.messages[: index + 1] if ctx.dialect.placement == "anywhere-after" else (message,)
                own = [c for m in scope for c in m.calls if c.provider_executed]
                call = _match(result, own, state)
            else:
                call = _match(result, window, state)
            if call is not None:
                if call.path in state.answered:
                    duplicate(result)
                else:
                    state.answered[call.path] = result
                    state.pairs.append((result, call))
                continue
            elsewhere = [c for c in every_call if result.call_id and c.call_id == result.call_id]
            if elsewhere and elsewhere[0].path in state.answered:
                duplicate(result)
            elif elsewhere:
                state.answered[elsewhere[0].path] = result
                state.pairs.append((result, elsewhere[0]))
                out.append(
                    ctx.violation(
                        "pairing/not-adjacent",
                        result.id_path,
                        f"The result for {result.call_id!r} answers the call at {elsewhere[0].path}, but "
                        f"{ctx.dialect.api} only pairs it with calls of the turn it directly follows.",
                        wire_type=result.wire_type,
                        expected=f"the result right after {elsewhere[0].path}",
                        received=f"the result at {result.path}",
                    )
                )
            elif not history.continues:  # else the call may be in the stored history
                orphan(result)
        idless = _idless_results(ctx, history.messages, index)
        if idless and window and len(idless) != len(window):
            out.append(
                ctx.violation(
                    "pairing/count-mismatch",
                    message.path,
                    f"The turn answers {len(window)} call(s) with {len(idless)} id-less result(s); without "
                    "ids, results pair with calls by count and name.",
                    wire_type=idless[0].wire_type,
                    expected=f"{len(window)} results",
                    received=f"{len(idless)} results",
                )
            )

    for echo in echoes_here:
        # A server tool's result is the provider's, but the history must carry it with its call.
        sent = echo.sent
        if sent is None or not echo.served_results:
            continue
        answered = state.answered.get(sent.path)
        if answered is not None and answered.provider_executed:
            continue
        why = (
            "but the history sends it back as a call of the client's, answered by the client"
            if answered is not None
            else "but the history sends the call back without it"
        )
        out.append(
            ctx.violation(
                "pairing/missing-result",
                sent.id_path,
                f"The server tool call {sent.call_id!r} ({sent.name}) was served with the provider's result, {why}.",
                wire_type=sent.wire_type,
                expected=f"the {echo.served_results[0].wire_type} served with it",
                received="none",
            )
        )

    for call in every_call:
        if needs_result(ctx, call) and call.path not in state.answered:
            out.append(
                ctx.violation(
                    "pairing/missing-result",
                    call.id_path,
                    f"The call {call.call_id!r} ({call.name}) has no result where {ctx.dialect.api} expects it.",
                    wire_type=call.wire_type,
                    expected=f"a result for {call.call_id or call.name!r}",
                    received="none",
                )
            )

    out.extend(_by_position(ctx, state.pairs))
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


def _by_position(ctx: CheckContext, pairs: list[tuple[WireResult, WireCall]]) -> list[Violation]:
    """A result paired with one call but carrying another call's canned output.

    Silent at the provider (token-js PR #36 swapped two cities' temperatures); visible here
    because the harness knows which output belongs to which call.
    """
    out: list[Violation] = []
    for result, call in pairs:
        if result.provider_executed:
            continue
        own = ctx.expected_for(call)
        if own is None:
            continue
        # Without an id to tell them apart, calls of one name and arguments (an id-less model asked
        # the same thing twice) are the same call to the wire: any of their outputs is its own.
        twins = (
            [own]
            if own.id is not None and own.id == call.call_id
            else [c for c in ctx.expected_calls if c.name == own.name and dict(c.arguments) == dict(own.arguments)]
        )
        if any(mentions(result.output, c.output) for c in twins):
            continue
        other = next(
            (c for c in ctx.expected_calls if all(c is not t for t in twins) and mentions(result.output, c.output)),
            None,
        )
        if other is None:
            continue
        content = result.output if isinstance(result.output, str) else json.dumps(result.output)
        label = result.call_id if result.call_id else f"the result for {call.name}"
        out.append(
            ctx.violation(
                "pairing/by-position",
                result.path,
                f"The result sent under {label!r} carries the output of another call "
                f"({other.id or other.name} {dict(other.arguments)}): results were matched to calls by position.",
                wire_type=result.wire_type,
                expected=own.output,
                received=content,
            )
        )
    return out


def mentions(value: Any, text: str) -> bool:
    """Whether a result's output (text, blocks or an object, by API) carries a canned output."""
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = None
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if text in node:
                return True
        elif parsed is not None and node == parsed:
            return True
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False
