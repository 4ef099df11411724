"""Spring AI (spring-projects/spring-ai), `MessageWindowChatMemory` as reported in #5940."""

from __future__ import annotations

from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import Conversation
from conformance.reference.anthropic_messages import AnthropicMessagesCodec


class MessageWindow(AnthropicMessagesCodec):
    """#5940: `MessageWindowChatMemory` "performs naïve count-based head truncation when the message count
    exceeds `maxMessages`": the oldest messages go first, whatever they are. A cut between an
    `AssistantMessage` with tool calls and its `ToolResponseMessage` keeps the response alone at the head of
    the conversation. The reproduction holds three messages (the issue's reproducer uses four)."""

    max_messages = 3

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        kept = [m for m in conversation["messages"] if m["role"] != "system"][-self.max_messages :]
        system = [m for m in conversation["messages"] if m["role"] == "system"]  # system messages are kept
        return super().encode({**conversation, "messages": system + kept})


SPRING_AI_5940 = CodecAdapter(
    name="spring-ai-5940",
    version="spring-ai-model MessageWindowChatMemory 2.0.0-M5",
    codecs={"anthropic-messages": MessageWindow()},
    homepage="https://github.com/spring-projects/spring-ai/issues/5940",
)
