"""LLM Gateway (theopenco/llmgateway), tool_call_id recovery after PR #2749 and before PR #2789."""

from __future__ import annotations

from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import Conversation, ToolResultPart
from conformance.reference.openai_chat import OpenAIChatCodec


class RecoverCallIdInOrder(OpenAIChatCodec):
    """#2789: a tool result that omits `tool_call_id` got one recovered from the pending calls:
    "the first pending call sharing the function name", else "the oldest unmatched call (FIFO)".
    Parallel results that omit their ids and arrive out of order each take the other call's id,
    "a silent conversation corruption with no error surfaced"."""

    def encode_result(self, part: ToolResultPart) -> dict[str, Any]:
        return {"role": "tool", "name": part.get("name"), "content": part["output"]}  # as the client sent it

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        body = super().encode(conversation)
        pending: list[tuple[str, str]] = []
        for message in body["messages"]:
            if message.get("tool_calls"):
                pending = [(c["id"], c["function"]["name"]) for c in message["tool_calls"]]
            elif message["role"] == "tool" and pending:
                name = message.pop("name", None)
                same_name = next((i for i, (_, called) in enumerate(pending) if called == name), 0)
                message["tool_call_id"] = pending.pop(same_name)[0]
        return body


LLMGATEWAY_2789 = CodecAdapter(
    name="llmgateway-2789",
    version="packages/actions prepare-request-body.ts after PR #2749, before PR #2789",
    codecs={"openai-chat": RecoverCallIdInOrder()},
    homepage="https://github.com/theopenco/llmgateway/pull/2789",
)
