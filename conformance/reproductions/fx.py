"""fx (vercel-labs/fx): history replay after a model switch, before PR #653."""

from __future__ import annotations

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import ToolCallPart, ToolResultPart
from conformance.reference.anthropic_messages import AnthropicMessagesCodec


class SessionIdsVerbatim(AnthropicMessagesCodec):
    """#653 ("Use compatible local tool-call IDs in provider requests while keeping the original IDs in saved
    sessions"): before it, the ids saved in the session went into the next provider's request as they were,
    whichever provider had issued them. A session begun on one model and switched to another replays the first
    provider's ids, on the calls and on their results, into the second provider's grammar."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"]


FX_653 = CodecAdapter(
    name="fx-653",
    version="fx before PR #653",
    codecs={"anthropic-messages": SessionIdsVerbatim()},
    homepage="https://github.com/vercel-labs/fx/pull/653",
)
