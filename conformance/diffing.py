"""The diff of what the adapter sent against what a correct adapter sends, on id-bearing paths."""

from __future__ import annotations

from typing import Any

from conformance.dialects.base import Dialect
from conformance.exchange import Exchange


def request_diff(exchange: Exchange, dialect: Dialect) -> str | None:
    """deepdiff's account of the id skeletons that differ, or None when they agree."""
    from deepdiff import DeepDiff  # lazy: only failing cases pay for it

    expected: dict[str, Any] = {}
    sent: dict[str, Any] = {}
    for turn in exchange.turns:
        if turn.expected_request is None:
            continue
        key = f"request[{turn.index}]"
        expected[key] = dialect.projection(turn.expected_request)
        sent[key] = dialect.projection(turn.request)
    if not expected:
        return None
    diff = DeepDiff(expected, sent, verbose_level=2)
    if not diff:
        return None
    text: str = diff.pretty()
    return text.replace("root[", "[")
