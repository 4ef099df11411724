"""roundtrip/call-lost for a history the conversation began with: its calls must reach the provider.

A scenario that begins with a `history:` block hands the adapter a conversation already under way:
calls made (on this API or another) and answered before the first request. The first request
carries them; a client that sends only the newest user turn drops them with their results, and the
model answers without knowing what it already did. The served calls' own check (which response
issued what) never sees these, since no response of the replay issued them.
"""

from __future__ import annotations

from conformance.corpus.loading import ExpectedCall
from conformance.engine.rules.context import CheckContext
from conformance.engine.violations import Violation
from conformance.engine.wire import History

CODE = "roundtrip/call-lost"


def check_first_request(ctx: CheckContext, index: int, history: History) -> list[Violation]:
    """The history's calls missing from the request that continues it (by id, else name and arguments)."""
    if not ctx.prior_calls or history.continues:
        return []
    sent = {id(c) for c in (ctx.expected_for(call) for call in history.calls()) if c is not None}
    missing = [c for c in ctx.prior_calls if id(c) not in sent and not c.droppable and not c.provider_executed]
    if not missing:
        return []
    shown = ", ".join(_named(c) for c in missing)
    return [
        ctx.violation(
            CODE,
            f"request[{index}]",
            f"The conversation began with a history holding {len(ctx.prior_calls)} call(s); the request that "
            f"continues it leaves out {shown}, with their results.",
            wire_type=missing[0].wire_type,
            expected=[c.id or c.name for c in missing],
            received="no such call",
        )
    ]


def _named(call: ExpectedCall) -> str:
    return f"{call.id} ({call.name})" if call.id else call.name
