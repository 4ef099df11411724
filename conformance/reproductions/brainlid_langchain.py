"""LangChain for Elixir (brainlid/langchain), `ChatGoogleAI` before PR #620, replayed through `ChatAnthropic`."""

from __future__ import annotations

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import ToolCallPart, ToolResultPart
from conformance.reference.anthropic_messages import AnthropicMessagesCodec


def gemini_call_id(name: str | None) -> str:
    """`ChatGoogleAI`'s id for a `functionCall` part: the tool's name, nothing per call."""
    return f"call-{name}"


class GeminiIdsReplayed(AnthropicMessagesCodec):
    """#619: "Google's tool_call_id is implemented here by langchain. Unfortunately it is not unique. the id
    is just the name of the function": `ChatGoogleAI` parsed every `functionCall` into a `ToolCall` with
    `call_id` `call-<name>`, and `ToolResult`s carried the same. `ChatAnthropic` sends the stored ids as they
    are, so a conversation begun on Gemini and continued on Claude holds two `tool_use` blocks with one id."""

    def call_id(self, part: ToolCallPart) -> str | None:
        if part["call_id"] is None:  # what the Gemini decoder left: an id-less functionCall
            return gemini_call_id(part["name"])
        return super().call_id(part)

    def result_id(self, part: ToolResultPart) -> str | None:
        if part["call_id"] is None:
            return gemini_call_id(part.get("name"))
        return super().result_id(part)


BRAINLID_LANGCHAIN_619 = CodecAdapter(
    name="brainlid-langchain-619",
    version="lib/chat_models/chat_google_ai.ex before PR #620",
    codecs={"anthropic-messages": GeminiIdsReplayed()},
    homepage="https://github.com/brainlid/langchain/pull/619",
)
