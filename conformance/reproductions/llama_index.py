"""LlamaIndex (run-llama/llama_index): `llama-index-llms-google-genai` before PR #22368, and
`llama-index-llms-bedrock-converse` as PR #22775 describes it."""

from __future__ import annotations

from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import ToolCallPart, ToolResultPart
from conformance.reference.bedrock_converse import BedrockConverseCodec
from conformance.reference.gemini import GeminiCodec


class ToolNameAsId(GeminiCodec):
    """#22368: `GoogleGenAI.get_tool_calls_from_response()` "discarded the unique per-call ID returned by
    Gemini and used the tool name as `ToolSelection.tool_id`" (`tool_call_id=part.function_call.name`,
    since PR #20207). `chat_message_to_gemini` then built the call with `Part.from_function_call(name=...,
    args=...)` and the response with `Part.from_function_response(name=tool_call_id, ...)`: no id on
    either, so two calls to one tool are told apart by nothing but the order of the parts."""

    def decode_call(self, part: dict[str, Any]) -> ToolCallPart:
        decoded = super().decode_call(part)
        decoded["call_id"] = decoded["name"]
        return decoded

    def call_id(self, part: ToolCallPart) -> str | None:
        return None


class ToolUseIdsAsStored(BedrockConverseCodec):
    """#22775: "Bedrock Converse requires every `toolUseId` to be a 1-64 character string matching
    `[a-zA-Z0-9_.:-]+`. The current conversion paths can serialize `None`, an empty string, invalid
    characters, or overlong IDs": the converter copied each stored tool call id into `toolUse.toolUseId` and
    each tool message's `tool_call_id` into `toolResult.toolUseId`, whatever API had issued it."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"]


LLAMA_INDEX_22368 = CodecAdapter(
    name="llama-index-22368",
    version="llama-index-llms-google-genai before PR #22368",
    codecs={"gemini": ToolNameAsId()},
    homepage="https://github.com/run-llama/llama_index/pull/22368",
)

LLAMA_INDEX_22775 = CodecAdapter(
    name="llama-index-22775",
    version="llama-index-llms-bedrock-converse 0.15.0, before PR #22775",
    codecs={"bedrock-converse": ToolUseIdsAsStored()},
    homepage="https://github.com/run-llama/llama_index/pull/22775",
)
