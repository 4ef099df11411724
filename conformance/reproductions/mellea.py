"""Mellea (generative-computing/mellea), OpenAI-compatible backend before PR #1435."""

from __future__ import annotations

from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import Message, tool_calls
from conformance.reference.openai_chat import OpenAIChatCodec


class ToolCallsByName(OpenAIChatCodec):
    """#1431: `extract_model_tool_requests` kept the response's calls in a `dict[str, ModelToolCall]`
    keyed by tool name (`model_tool_calls[tool_name] = ModelToolCall(...)`): of two calls to one
    tool only the last was executed and answered. The assistant turn went back as the provider
    sent it (`Message._parse` keeps `msg.get("tool_calls")`), with every call."""

    def decode(self, response: dict[str, Any]) -> Message:
        message = super().decode(response)
        calls = tool_calls(message)
        if not calls or response.get("stream"):
            return message
        kept = list({call["name"]: call for call in calls}.values())  # the last call of each name wins
        kept[0]["extra"] = {"raw_tool_calls": response["body"]["choices"][0]["message"]["tool_calls"]}
        message["parts"] = [p for p in message["parts"] if p["type"] != "tool_call"] + list(kept)
        return message

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        encoded = super().encode_message(message)
        raw = [c["extra"]["raw_tool_calls"] for c in tool_calls(message) if "raw_tool_calls" in c.get("extra", {})]
        if raw:
            encoded[0]["tool_calls"] = raw[0]
        return encoded


MELLEA_1431 = CodecAdapter(
    name="mellea-1431",
    version="mellea/helpers/openai_compatible_helpers.py before 4ee340fc (PR #1435)",
    codecs={"openai-chat": ToolCallsByName()},
    homepage="https://github.com/generative-computing/mellea/issues/1431",
)
