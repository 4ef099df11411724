"""Which call in a request is the echo of which call the provider served.

Rules about round trips and dropped calls need this pairing. The assistant turns that carry
calls are aligned with the served responses that issued calls: by id where a turn's ids appear,
then by position from the most recent backwards (history truncation mostly removes the oldest).
Within a turn, a served call matches the sent call with the same id, else the first unmatched
one with the same name, else the next unmatched by position.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from conformance.exchange import Exchange
from conformance.wire import History, WireCall, WireMessage, WireResult


@dataclass(frozen=True)
class Echo:
    served: WireCall
    served_turn: int
    sent: WireCall | None  # None: the call is missing from the request
    message: WireMessage | None
    served_results: tuple[WireResult, ...] = ()  # a server tool's results, served with the call


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


def echoes(
    exchange: Exchange,
    request_index: int,
    history: History,
    replayable: Callable[[WireCall], bool] = lambda call: True,
) -> list[Echo]:
    """The served calls of responses before `request_index`, each with its echo in the request.

    Calls the API does not accept back as input (`replayable` false) expect no echo.
    """
    served_turns = [
        (t.index, kept, t.served.results)
        for t in exchange.turns
        if t.index < request_index and (kept := tuple(c for c in t.served.calls if replayable(c)))
    ]
    calling = [m for m in history.messages if m.calls]
    chosen: dict[int, WireMessage | None] = {}
    # First by id: a turn whose ids appear in a calling message is that message, wherever a
    # truncation cut the history (some keep the first exchange and cut the middle).
    for index, served, _ in served_turns:
        ids = {c.call_id for c in served if c.call_id}
        taken = [id(m) for m in chosen.values() if m is not None]
        chosen[index] = next((m for m in calling if id(m) not in taken and ids & {c.call_id for c in m.calls}), None)
    # The rest by position, from the most recent backwards (truncation mostly removes the oldest).
    free = [m for m in calling if all(m is not c for c in chosen.values())]
    for index, _, _ in reversed(served_turns):
        if chosen[index] is None and free:
            chosen[index] = free.pop()
    result: list[Echo] = []
    for index, served, served_results in reversed(served_turns):
        message = chosen[index]
        sent = message.calls if message else ()
        for served_call, echo in zip(served, align_turn(served, sent), strict=True):
            own = tuple(r for r in served_results if served_call.call_id and r.call_id == served_call.call_id)
            result.append(Echo(served_call, index, echo, message if echo else None, own))
    return result
