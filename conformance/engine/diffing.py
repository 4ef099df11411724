"""The diff of what the adapter sent against what a correct adapter sends, on id-bearing paths.

Where the wire issued no id (none, or `""`) an adapter must mint one, and any id it mints that the
target API accepts is as good as the one the recorded request carries: such ids are compared as
labels, `<minted 1>`, `<minted 2>`, given in order of first appearance, so that only a different
pairing or sharing of minted ids shows, or a minted id the API would reject.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from conformance.corpus.loading import Scenario
from conformance.engine.dialects.base import Dialect, DialectError
from conformance.engine.exchange import Exchange
from conformance.engine.ids import GRAMMARS


def skeleton(dialect: Dialect, body: Any) -> Any:
    """A request body reduced to what the rules read: per message, its role, calls and results."""
    try:
        history = dialect.history(body)
    except DialectError:
        return body
    out: list[dict[str, Any]] = []
    for message in history.messages:
        entry: dict[str, Any] = {"role": message.role}
        if message.calls:
            entry["calls"] = [
                {"id": c.call_id, "name": c.name, **({"item_id": c.item_id} if c.item_id else {})}
                for c in message.calls
            ]
        if message.results:
            entry["results"] = [{"id": r.call_id, **({"name": r.name} if r.name else {})} for r in message.results]
        out.append(entry)
    return out


def issued_ids(scenario: Scenario) -> frozenset[str]:
    """The ids a provider issued for the scenario's calls, a history begun on another API included."""
    return frozenset(c.id for c in scenario.all_calls() if c.id)


def _served_ids(exchange: Exchange) -> set[str]:
    found: set[str] = set()
    for turn in exchange.turns:
        found.update(c.call_id for c in turn.served.calls if c.call_id)
        found.update(r.call_id for r in turn.served.results if r.call_id)
    return found


def _items(entry: Any, field: str) -> list[Any]:
    items = entry.get(field) if isinstance(entry, dict) else None
    return items if isinstance(items, list) else []


def _relabel(skeletons: dict[str, Any], labels: dict[str, str]) -> dict[str, Any]:
    return {
        key: [
            {
                **entry,
                **{
                    field: [{**item, "id": labels.get(item["id"], item["id"])} for item in _items(entry, field)]
                    for field in ("calls", "results")
                    if field in entry
                },
            }
            if isinstance(entry, dict)
            else entry
            for entry in messages
        ]
        if isinstance(messages, list)
        else messages
        for key, messages in skeletons.items()
    }


def label_minted(
    expected: dict[str, Any],
    sent: dict[str, Any],
    provider_ids: Collection[str],
    accepts: Callable[[str], bool] = lambda _: True,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both skeletons with minted ids (not issued by a provider) replaced by labels. An id the adapter
    sent takes the label of the recorded id at the same place when the API `accepts` it, unless another
    sent id took that label first, so a call and its result minted apart, or two calls sharing one id,
    still show."""

    def minted(value: Any) -> bool:
        return isinstance(value, str) and bool(value) and value not in provider_ids

    recorded: dict[str, str] = {}
    mine: dict[str, str] = {}
    holder: dict[str, str] = {}  # label -> the sent id that took it
    for key, messages in expected.items():
        if not isinstance(messages, list):
            continue
        found = sent.get(key)
        theirs: list[Any] = found if isinstance(found, list) else []
        for m, entry in enumerate(messages):
            other = theirs[m] if m < len(theirs) else None
            for field in ("calls", "results"):
                others = _items(other, field)
                for j, item in enumerate(_items(entry, field)):
                    if not minted(item.get("id")):
                        continue
                    label = recorded.setdefault(item["id"], f"<minted {len(recorded) + 1}>")
                    ours = others[j].get("id") if j < len(others) and isinstance(others[j], dict) else None
                    if (
                        isinstance(ours, str)
                        and minted(ours)
                        and accepts(ours)
                        and ours not in mine
                        and label not in holder
                    ):
                        mine[ours] = label
                        holder[label] = ours
    return _relabel(expected, recorded), _relabel(sent, mine)


Key = int | str


def _message_key(entry: Any) -> Any:
    """What tells a message apart when two histories are lined up: its role and the tools it calls,
    never its ids (which are what the diff is there to show)."""
    if not isinstance(entry, dict):
        return repr(entry)
    return (entry.get("role"), tuple(c.get("name") for c in _items(entry, "calls")), len(_items(entry, "results")))


def aligned(expected: Any, sent: Any) -> tuple[Any, Any, list[Key]]:
    """Both message lists lined up by message (difflib's longest matching blocks), not by position,
    with None in the gaps, and the place each slot is shown at: `2` for a message at the same place in
    both, `"2 (sent as 3)"`, `"2 (not sent)"`, `"sent 3 (not recorded)"`. An extra message (an empty
    assistant turn) then reads as one message added, not as every later message changed."""
    if not isinstance(expected, list) or not isinstance(sent, list):
        return expected, sent, []
    from difflib import SequenceMatcher

    matcher = SequenceMatcher(
        None, [_message_key(e) for e in expected], [_message_key(e) for e in sent], autojunk=False
    )
    left: list[Any] = []
    right: list[Any] = []
    places: list[Key] = []
    for _, i1, i2, j1, j2 in matcher.get_opcodes():
        paired = min(i2 - i1, j2 - j1)  # a replaced block's messages are compared place by place
        for k in range(paired):
            i, j = i1 + k, j1 + k
            left.append(expected[i])
            right.append(sent[j])
            places.append(i if i == j else f"{i} (sent as {j})")
        for i in range(i1 + paired, i2):
            left.append(expected[i])
            right.append(None)
            places.append(f"{i} (not sent)")
        for j in range(j1 + paired, j2):
            left.append(None)
            right.append(sent[j])
            places.append(f"sent {j} (not recorded)")
    return left, right, places


def _keyed(skeletons: dict[str, Any], places: dict[str, list[Key]]) -> dict[str, Any]:
    """Aligned lists as mappings from each slot's place to its message, gaps left out."""
    out: dict[str, Any] = {}
    for key, messages in skeletons.items():
        where = places.get(key)
        if not isinstance(messages, list) or not where:
            out[key] = messages
            continue
        out[key] = {place: entry for place, entry in zip(where, messages, strict=True) if entry is not None}
    return out


def request_diff(exchange: Exchange, dialect: Dialect, issued: Collection[str] = ()) -> str | None:
    """deepdiff's account of the id skeletons that differ, or None when they agree. `issued`: ids a
    provider issued before the exchange (a history begun on another API), which are not minted."""
    from deepdiff import DeepDiff  # lazy: only failing cases pay for it

    expected: dict[str, Any] = {}
    sent: dict[str, Any] = {}
    for turn in exchange.turns:
        if turn.expected_request is None:
            continue
        key = f"request[{turn.index}]"
        expected[key] = skeleton(dialect, turn.expected_request)
        sent[key] = skeleton(dialect, turn.request)
    if not expected:
        return None
    grammar = GRAMMARS.get(dialect.api)
    accepts = grammar.accepts if grammar is not None else (lambda _: True)
    places: dict[str, list[Key]] = {}
    for key in expected:
        expected[key], sent[key], places[key] = aligned(expected[key], sent[key])
    expected, sent = label_minted(expected, sent, {*issued, *_served_ids(exchange)}, accepts)
    diff = DeepDiff(_keyed(expected, places), _keyed(sent, places), verbose_level=2)
    if not diff:
        return None
    text: str = diff.pretty()
    return text.replace("root[", "[")
