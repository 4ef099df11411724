"""decode/* and stream/*: the neutral view a codec decodes holds every call with its wire id and arguments."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from conformance.engine.exchange import Exchange
from conformance.engine.neutral import ToolCallPart, tool_calls
from conformance.engine.rules.context import CheckContext, arguments_value, same_arguments
from conformance.engine.violations import Violation
from conformance.engine.wire import WireCall


def _pair(truth: tuple[WireCall, ...], decoded: list[ToolCallPart]) -> list[tuple[WireCall, ToolCallPart]]:
    """Each wire call with the decoded call standing for it: same id, else same name and arguments
    (a decoder that lost one of two id-less calls kept the other, not a garbled first), else same
    name, else position."""
    matched: list[ToolCallPart | None] = [None] * len(truth)
    free = list(decoded)
    tests: tuple[Callable[[WireCall, ToolCallPart], bool], ...] = (
        lambda call, part: bool(call.call_id) and part.get("call_id") == call.call_id,
        lambda call, part: part.get("name") == call.name and same_arguments(call.arguments, part.get("arguments")),
        lambda call, part: part.get("name") == call.name,
        lambda call, part: True,
    )
    for test in tests:
        for i, call in enumerate(truth):
            if matched[i] is None:
                found = next((p for p in free if test(call, p)), None)
                if found is not None:
                    matched[i] = found
                    free.remove(found)
    return [(call, part) for call, part in zip(truth, matched, strict=True) if part is not None]


def _ids(message: Any) -> list[Any]:
    return [c.get("call_id") for c in tool_calls(message)]


def check(ctx: CheckContext, exchange: Exchange, prefix: str = "") -> list[Violation]:
    """`prefix` locates the responses (`history.` for a history played on another API)."""
    out: list[Violation] = []
    earlier: set[Any] = set()  # provider-run call ids of earlier turns, where results may follow later
    for turn, message, again in zip(exchange.turns, exchange.decoded, exchange.redecoded, strict=True):
        where = f"{prefix}response[{turn.index}]"
        truth = turn.served.calls
        decoded = tool_calls(message)
        stream = turn.served.stream
        truth_ids = [c.call_id for c in truth]
        if len(decoded) < len(truth):
            # A stream reassembled into no call at all merged nothing: its calls were dropped.
            merged = stream and bool(decoded)
            code = "stream/calls-merged" if merged else "decode/call-missing"
            what = f"but was {'reassembled into' if stream else 'decoded as'} {len(decoded)}"
            if stream and not merged:
                what = "but the stream's reassembly dropped every one: no call came out, none was merged"
            out.append(
                ctx.violation(
                    code,
                    where,
                    f"The response carries {len(truth)} calls ({', '.join(str(c.name) for c in truth)}) {what}.",
                    expected=truth_ids,
                    received=[d.get("call_id") for d in decoded],
                )
            )
        elif stream and len(decoded) > len(truth):
            out.append(
                ctx.violation(
                    "stream/call-split",
                    where,
                    f"The stream carries {len(truth)} calls but was reassembled into {len(decoded)}.",
                    expected=truth_ids,
                    received=[d.get("call_id") for d in decoded],
                )
            )
        for call, part in _pair(truth, decoded):
            out.extend(_arguments(ctx, call, part, stream))
            if not call.call_id:
                continue  # no id on the wire, or an empty one: the decoder may keep it empty or mint one
            got = part.get("call_id")
            if not got:
                code = "stream/id-lost" if stream else "decode/empty-id"
                out.append(
                    ctx.violation(
                        code,
                        call.id_path,
                        f"The call {call.name} has the id {call.call_id!r} on the wire but was decoded with {got!r}.",
                        wire_type=call.wire_type,
                        expected=call.call_id,
                        received=got,
                    )
                )
            elif got != call.call_id:
                out.append(
                    ctx.violation(
                        "decode/id-mismatch",
                        call.id_path,
                        f"The call {call.name} has the id {call.call_id!r} on the wire but was decoded as {got!r}.",
                        wire_type=call.wire_type,
                        expected=call.call_id,
                        received=got,
                    )
                )
        seen: set[str] = set()
        for part in decoded:
            got = part.get("call_id")
            if got and got in seen:
                out.append(
                    ctx.violation(
                        "decode/duplicate-id",
                        where,
                        f"Two decoded calls share the id {got!r}.",
                        expected="distinct ids",
                        received=_ids(message),
                    )
                )
            if got:
                seen.add(got)
        out.extend(_hybrid(ctx, where, message, earlier))
        # Not only where results may sit anywhere later: an Anthropic code-execution result comes a
        # response after its call once the calls its code made are answered (programmatic tool calling).
        earlier |= {c.get("call_id") for c in decoded if c.get("provider_executed")}
        if _ids(message) != _ids(again):
            out.append(
                ctx.violation(
                    "decode/unstable-id",
                    where,
                    "Decoding this response twice gave different ids "
                    f"({_ids(message)} then {_ids(again)}); a replay would not match its own history.",
                    expected=_ids(message),
                    received=_ids(again),
                )
            )
    return out


def _arguments(ctx: CheckContext, call: WireCall, part: ToolCallPart, stream: bool) -> list[Violation]:
    """The decoded arguments are the value the wire's arguments hold (a stream's, once its
    fragments are joined). Calls the provider ran are left out: what their neutral arguments
    hold (code, queries, an action) is the codec's choice."""
    if call.provider_executed or same_arguments(call.arguments, part.get("arguments")):
        return []
    wire, got = arguments_value(call.arguments), arguments_value(part.get("arguments"))
    if stream:
        message = (
            f"The streamed call {call.name} ({call.call_id or 'no id'}) carries the arguments {_short(wire)} "
            f"once its fragments are joined, but was reassembled with {_short(got)}."
        )
    else:
        message = (
            f"The call {call.name} ({call.call_id or 'no id'}) has the arguments {_short(wire)} on the wire, "
            f"but was decoded with {_short(got)}."
        )
    return [
        ctx.violation(
            "stream/arguments-garbled" if stream else "decode/arguments-mismatch",
            call.path,
            message,
            wire_type=call.wire_type,
            expected=wire,
            received=got,
        )
    ]


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else f"{text[:77]}..."


def _hybrid(ctx: CheckContext, where: str, message: Any, earlier: set[Any]) -> list[Violation]:
    """Server-tool results decoded into the assistant turn must carry their call's id."""
    parts = message.get("parts") if isinstance(message, dict) else None
    if not isinstance(parts, list):
        return []
    call_ids = {c.get("call_id") for c in tool_calls(message) if c.get("provider_executed")} | earlier
    out: list[Violation] = []
    for part in parts:
        if not isinstance(part, dict) or part.get("type") != "tool_result" or not part.get("provider_executed"):
            continue
        if part.get("call_id") not in call_ids:
            out.append(
                ctx.violation(
                    "decode/hybrid-id-split",
                    where,
                    f"A server-tool result was decoded with id {part.get('call_id')!r}, which no "
                    "provider-run call of the same turn carries.",
                    expected=sorted(str(i) for i in call_ids),
                    received=part.get("call_id"),
                )
            )
    return out
