"""OpenCode (anomalyco/opencode): the Bedrock adapter's history before PR #48843."""

from __future__ import annotations

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import ToolCallPart, ToolResultPart
from conformance.reference.bedrock_converse import BedrockConverseCodec


class HistoryIdsUnnormalized(BedrockConverseCodec):
    """#48843 ("Normalize Bedrock Mistral history tool-call IDs and matching result IDs using the existing
    collision-aware direct-Mistral implementation"): OpenCode normalized tool-call ids for Mistral's own API, but its
    Bedrock adapter sent a Mistral model the history's ids as they were stored, on the toolUse and on the
    toolResult. Ids Bedrock issued pass; ids shorter than nine from elsewhere are refused."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"]


OPENCODE_48843 = CodecAdapter(
    name="opencode-48843",
    version="OpenCode before PR #48843",
    codecs={"bedrock-converse": HistoryIdsUnnormalized()},
    homepage="https://github.com/anomalyco/opencode/pull/48843",
)
