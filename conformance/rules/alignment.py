"""Which call in a request is the echo of which call the provider served.

Rules about round trips and dropped calls need this pairing. The assistant turns that carry
calls are aligned with the served responses that issued calls, from the most recent backwards
(history truncation removes the oldest). Within a turn, a served call matches the sent call with
the same id, else the first unmatched one with the same name, else the next unmatched by position.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.exchange import Exchange
from conformance.wire import History, WireCall, WireMessage


@dataclass(frozen=True)
class Echo:
    served: WireCall
    served_turn: int
    sent: WireCall | None  # None: the call is missing from the request
    message: WireMessage | None


def align_turn(served: tuple[WireCall, ...], sent: tuple[WireCall, ...]) -> list[WireCall | None]:
    matched: list[WireCall | None] = [None] * len(served)
    free = list(sent)
    for i, call in enumerate(served):
        if call.call_id is not None:
            same = next((s for s in free if s.call_id == call.call_id), None)
            if same is not None:
                matched[i] = same
                free.remove(same)
    for i, call in enumerate(served):
        if matched[i] is None:
            same_name = next((s for s in free if s.name == call.name), None)
            if same_name is not None:
                matched[i] = same_name
                free.remove(same_name)
    for i in range(len(served)):
        if matched[i] is None and free:
            matched[i] = free.pop(0)
    return matched


def echoes(exchange: Exchange, request_index: int, history: History) -> list[Echo]:
    """The served calls of responses before `request_index`, each with its echo in the request."""
    served_turns = [t for t in exchange.turns if t.index < request_index and t.served.calls]
    calling = [m for m in history.messages if m.calls]
    result: list[Echo] = []
    for offset, turn in enumerate(reversed(served_turns)):
        message = calling[-1 - offset] if offset < len(calling) else None
        sent = message.calls if message else ()
        for served_call, echo in zip(turn.served.calls, align_turn(turn.served.calls, sent), strict=True):
            result.append(Echo(served_call, turn.index, echo, message if echo else None))
    return result
