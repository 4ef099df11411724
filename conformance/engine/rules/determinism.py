"""encode/*: the same conversation encodes to the same ids every time.

Adapters mint ids when a history crosses to an API with another grammar, or when the source had
none. Minted from a counter or a random source, they differ between the two encodings of one
conversation, and a replay or a prompt cache no longer matches its own history.
"""

from __future__ import annotations

from conformance.engine.dialects.base import DialectError
from conformance.engine.exchange import Turn
from conformance.engine.rules.context import CheckContext
from conformance.engine.violations import Violation
from conformance.engine.wire import History


def _ids(history: History) -> list[tuple[str, str | None]]:
    calls = [(c.id_path, c.call_id) for c in history.calls()]
    items = [(c.item_path, c.item_id) for c in history.calls() if c.item_id]
    results = [(r.id_path, r.call_id) for r in history.results()]
    return calls + items + results


def check_turn(ctx: CheckContext, turn: Turn, history: History) -> list[Violation]:
    if turn.request_again is None or turn.request_again == turn.request:
        return []  # the same body twice holds the same ids: nothing to read again
    try:
        again = ctx.dialect.history(turn.request_again, f"request[{turn.index}]")
    except DialectError:
        return []  # the first encoding's shape problems are reported on the first encoding
    first, second = _ids(history), _ids(again)
    changed = [(a, b) for a, b in zip(first, second, strict=False) if a != b]
    if not changed and len(first) == len(second):
        return []
    location = changed[0][0][0] if changed else f"request[{turn.index}]"
    return [
        ctx.violation(
            "encode/unstable-id",
            location,
            "Encoding the same conversation twice gave different ids "
            f"({[i for _, i in first]} then {[i for _, i in second]}).",
            expected=[i for _, i in first],
            received=[i for _, i in second],
        )
    ]
