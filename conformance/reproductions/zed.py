"""Zed (zed-industries/zed), the Mistral provider as reported in #53034."""

from __future__ import annotations

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import ToolCallPart, ToolResultPart
from conformance.reference.mistral_chat import MistralChatCodec


class ThreadIdsAsIs(MistralChatCodec):
    """#53034: "Tool call id was toolu_01VpEm654HvfMoRcrE3Hgdc6 but must be a-z, A-Z, 0-9, with a length of
    9." The request built for Mistral carried the thread's tool use ids as they were stored, Anthropic's
    `toolu_` ids included, on the assistant's `tool_calls[].id` and on the tool messages' `tool_call_id`;
    the reporter asks that Zed "generate tool call IDs that conform to each provider's requirements"."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"]


ZED_53034 = CodecAdapter(
    name="zed-53034",
    version="Zed v0.230.0, as reported in #53034",
    codecs={"mistral-chat": ThreadIdsAsIs()},
    homepage="https://github.com/zed-industries/zed/issues/53034",
)
