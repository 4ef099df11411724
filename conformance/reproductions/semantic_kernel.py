"""Semantic Kernel (microsoft/semantic-kernel), `ChatHistoryTruncationReducer` before PR #13608."""

from __future__ import annotations

from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import Conversation
from conformance.reference.openai_chat import OpenAIChatCodec


class TruncationReducer(OpenAIChatCodec):
    """#12708: `ChatHistoryTruncationReducer` keeps the last `target_count` messages. Its
    `locate_safe_reduction_index` steps back from the cut while the message there holds a function
    call or result, but `contains_function_call_or_result` only looked for FunctionCallContent and
    FunctionResultContent items: a TOOL message whose result is plain text did not count, so the
    cut landed between the assistant's tool_calls message and its tool messages."""

    target_count = 3

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        body = super().encode(conversation)
        messages = body["messages"]
        index = len(messages) - self.target_count
        if index <= 0:
            return body
        while index > 0 and messages[index].get("tool_calls"):  # tool messages are not recognised
            index -= 1
        body["messages"] = messages[index:]
        return body


SEMANTIC_KERNEL_12708 = CodecAdapter(
    name="semantic-kernel-12708",
    version="python ChatHistoryTruncationReducer before PR #13608",
    codecs={"openai-chat": TruncationReducer()},
    homepage="https://github.com/microsoft/semantic-kernel/issues/12708",
)
