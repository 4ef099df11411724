"""AI SDK (vercel/ai), `@ai-sdk/openai-compatible` before the fix for #7834."""

from __future__ import annotations

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import ToolCallPart, ToolResultPart
from conformance.reference.openai_chat import OpenAIChatCodec


class EmptyIdKept(OpenAIChatCodec):
    """#7834: the OpenAI-compatible provider took the call's id as it came (`toolCallId: toolCall.id`),
    so the "" that gemini-2.5-pro returns became the call's id, and went back on the call and on its
    tool message. The reporter's proposal, and the fix: `toolCall.id || generateId()`."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"]


VERCEL_AI_7834 = CodecAdapter(
    name="vercel-ai-7834",
    version="@ai-sdk/openai-compatible (ai 5) before the fix for #7834",
    codecs={"openai-chat": EmptyIdKept()},
    homepage="https://github.com/vercel/ai/issues/7834",
)
