"""The diff of what the adapter sent against what a correct adapter sends, on id-bearing paths."""

from __future__ import annotations

from typing import Any

from conformance.dialects.base import Dialect, DialectError
from conformance.exchange import Exchange


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


def request_diff(exchange: Exchange, dialect: Dialect) -> str | None:
    """deepdiff's account of the id skeletons that differ, or None when they agree."""
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
    diff = DeepDiff(expected, sent, verbose_level=2)
    if not diff:
        return None
    text: str = diff.pretty()
    return text.replace("root[", "[")
