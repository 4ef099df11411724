"""LiteLLM (BerriAI/litellm), the Anthropic `/v1/messages` translation before PR #31094."""

from __future__ import annotations

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import ToolCallPart, ToolResultPart
from conformance.reference.anthropic_messages import AnthropicMessagesCodec


class ForeignIdsAsIs(AnthropicMessagesCodec):
    """#31094: a history holding Kimi's `functions.Bash:0` ids, dispatched to Anthropic's `/v1/messages`,
    kept them as they were on `tool_use.id` and `tool_result.tool_use_id`; the '.' and ':' fall outside
    Anthropic's `^[a-zA-Z0-9_-]+$`. The fix sanitizes both ids when the target is Anthropic."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"]


LITELLM_31094 = CodecAdapter(
    name="litellm-31094",
    version="Anthropic /v1/messages translation before PR #31094",
    codecs={"anthropic-messages": ForeignIdsAsIs()},
    homepage="https://github.com/BerriAI/litellm/pull/31094",
)
