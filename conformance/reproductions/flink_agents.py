"""Flink Agents (apache/flink-agents), the Gemini integration before PR #960."""

from __future__ import annotations

from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import ToolCallPart, ToolResultPart
from conformance.reference.gemini import GeminiCodec, SentCalls


class NullKeyedResults(GeminiCodec):
    """#947: `convertFunctionCall` read `functionCall.id().orElse(null)` and, for an id-less call, put no
    `id` in the tool-call map; `ToolCallAction` keyed each result by `String.valueOf(toolCall.get("id"))`,
    the literal "null". "With two or more parallel id-less calls, all results collide under the "null"
    key in the success / responses / error maps, so only the last one survives." The real client then
    threw on the next request, before sending it (the TOOL message carried no externalId to name the
    function); this codec names the response after its call instead, to show the request the collision
    makes."""

    def decode_call(self, part: dict[str, Any]) -> ToolCallPart:
        decoded = super().decode_call(part)
        decoded["call_id"] = decoded["call_id"] or "null"  # String.valueOf(toolCall.get("id")) of a missing id
        return decoded

    def call_id(self, part: ToolCallPart) -> str | None:
        return None  # no native id in the map, so none is echoed to Gemini

    def encode_results(self, results: list[ToolResultPart], calls: SentCalls) -> dict[str, Any]:
        responses = {str(r["call_id"]): r for r in results}  # the responses map: the last result per key wins
        return super().encode_results(list(responses.values()), calls)


FLINK_AGENTS_947 = CodecAdapter(
    name="flink-agents-947",
    version="integrations/chat-models/gemini before PR #960",
    codecs={"gemini": NullKeyedResults()},
    homepage="https://github.com/apache/flink-agents/issues/947",
)
