"""Which call in a request is the echo of which call the provider served.

Rules about round trips and dropped calls need this pairing. The assistant turns that carry
calls are aligned with the served responses that issued calls: by id where a turn's ids appear,
then by position from the most recent backwards (history truncation mostly removes the oldest).
Within a turn, a served call matches the sent call with the same id, else the first unmatched
one with the same name, else the next unmatched by position.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from conformance.engine.exchange import Exchange
from conformance.engine.wire import History, WireCall, WireMessage, WireResult


@dataclass(frozen=True)
class Echo:
    served: WireCall
    served_turn: int
    sent: WireCall | None  # None: the call is missing from the request
    message: WireMessage | None
    served_results: tuple[WireResult, ...] = ()  # a server tool's results, served with the call


def align_turn(served: tuple[WireCall, ...], sent: tuple[WireCall, ...]) -> list[WireCall | None]:
    matched: list[WireCall | None] = [None] * len(served)
    free = dict.fromkeys(range(len(sent)))  # positions of the sent calls not matched yet, in order
    by_id: dict[str | None, deque[int]] = {}
    by_name: dict[str | None, deque[int]] = {}
    for k, call in enumerate(sent):
        by_id.setdefault(call.call_id, deque()).append(k)
        by_name.setdefault(call.name, deque()).append(k)

    def take(candidates: deque[int] | None) -> int | None:
        while candidates:
            k = candidates.popleft()
            if k in free:
                del free[k]
                return k
        return None

    for i, call in enumerate(served):
        if call.call_id is not None:
            same_id = take(by_id.get(call.call_id))
            if same_id is not None:
                matched[i] = sent[same_id]
    for i, call in enumerate(served):
        if matched[i] is None:
            same_name = take(by_name.get(call.name))
            if same_name is not None:
                matched[i] = sent[same_name]
    for i in range(len(served)):
        if matched[i] is None and free:
            first = next(iter(free))
            del free[first]
            matched[i] = sent[first]
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
    # Calling messages by the ids their calls carry, in history order.
    holding: dict[str, list[int]] = {}
    for position, m in enumerate(calling):
        for c in m.calls:
            if c.call_id:
                positions = holding.setdefault(c.call_id, [])
                if not positions or positions[-1] != position:
                    positions.append(position)
    chosen: dict[int, int | None] = {}
    split: dict[int, list[int]] = {}  # the further messages a turn sent one call at a time went out in
    taken: set[int] = set()
    unclaimed: dict[int, dict[str, int]] = {}  # a taken message's ids no turn has claimed yet
    # First by id: a turn whose ids appear in a calling message is that message, wherever a
    # truncation cut the history (some keep the first exchange and cut the middle).
    for index, served, _ in served_turns:
        ids = [c.call_id for c in served if c.call_id]
        candidates = sorted({p for i in ids for p in holding.get(i, ())})
        found = next((p for p in candidates if p not in taken), None)
        if found is None:
            # A message may hold the calls of several served turns (Responses items need not be
            # grouped by turn: all calls, then all outputs, is a valid order): then the turns share
            # it, as long as it holds an id no earlier turn claimed. An id served again in a later
            # turn (call_0 in every response) is not a reason to share.
            found = next((p for p in candidates if any(unclaimed[p].get(i) for i in ids)), None)
        chosen[index] = found
        if found is not None:
            if found not in taken:
                taken.add(found)
                unclaimed[found] = {}
                for c in calling[found].calls:
                    if c.call_id:
                        unclaimed[found][c.call_id] = unclaimed[found].get(c.call_id, 0) + 1
            left = unclaimed[found]
            owed: dict[str, int] = {}  # the turn's ids its message does not hold
            for i in ids:
                if left.get(i):
                    left[i] -= 1
                else:
                    owed[i] = owed.get(i, 0) + 1
            split[index] = _split_turn(calling, found, owed, taken)
    # The rest by position, from the most recent backwards (truncation mostly removes the oldest).
    free = [p for p in range(len(calling)) if p not in taken]
    for index, _, _ in reversed(served_turns):
        if chosen[index] is None and free:
            chosen[index] = free.pop()
    result: list[Echo] = []
    for index, served, served_results in reversed(served_turns):
        at = chosen[index]
        messages = [calling[p] for p in ([at, *split.get(index, ())] if at is not None else ())]
        sent = tuple(c for m in messages for c in m.calls)
        holder = {id(c): m for m in messages for c in m.calls}
        results_by_id: dict[str, list[WireResult]] = {}
        for r in served_results:
            if r.call_id:
                results_by_id.setdefault(r.call_id, []).append(r)
        for served_call, echo in zip(served, align_turn(served, sent), strict=True):
            own = tuple(results_by_id.get(served_call.call_id, ())) if served_call.call_id else ()
            result.append(Echo(served_call, index, echo, holder[id(echo)] if echo else None, own))
    return result


def _split_turn(calling: list[WireMessage], found: int, owed: dict[str, int], taken: set[int]) -> list[int]:
    """The calling messages right after `found` that hold only calls of its turn it does not hold: a
    response's parallel calls sent back one assistant message each (each followed by its result), as
    some clients write them. The history is the provider's turn in another shape; its calls are
    there, under their ids, and are not lost."""
    more: list[int] = []
    p = found + 1
    while owed and p < len(calling) and p not in taken:
        calls = calling[p].calls
        wanted: dict[str, int] = {}
        for c in calls:
            if c.call_id:
                wanted[c.call_id] = wanted.get(c.call_id, 0) + 1
        if sum(wanted.values()) != len(calls) or any(owed.get(i, 0) < n for i, n in wanted.items()):
            break
        for i, n in wanted.items():
            owed[i] -= n
            if not owed[i]:
                del owed[i]
        taken.add(p)
        more.append(p)
        p += 1
    return more
