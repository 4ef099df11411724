"""LLxprt Code (vybestack/llxprt-code), OpenAIProvider before commit 49def03b (#712)."""

from __future__ import annotations

import re
from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import Message, ToolCallPart, ToolResultPart, tool_calls
from conformance.reference.openai_chat import OpenAIChatCodec


def history_id(value: str) -> str:
    """`normalizeToHistoryToolId`: the provider's id into the history format."""
    for prefix in ("hist_tool_", "call_", "toolu_"):
        if value.startswith(prefix):
            return "hist_tool_" + value[len(prefix) :]
    return "hist_tool_" + value


def openai_id(value: str) -> str:
    """`normalizeToOpenAIToolId`: the history id back to `call_`, sanitized to `[a-zA-Z0-9_]`."""
    return re.sub(r"[^a-zA-Z0-9_]", "", "call_" + value.removeprefix("hist_tool_"))


class NormalizedIds(OpenAIChatCodec):
    """#712: ids were normalized for OpenAI and Anthropic, "designed for OpenAI/Anthropic
    compatibility": decoding re-prefixed the provider's id with `hist_tool_`, encoding turned it
    into `call_` plus the rest with every character outside `[a-zA-Z0-9_]` removed. Kimi K2's
    `functions.lookup_population:0` went back as `call_functionslookup_population0`, on the call
    and on its result alike, and K2, which checks the whole id sequence, entered "tool call crash mode"."""

    def decode(self, response: dict[str, Any]) -> Message:
        message = super().decode(response)
        for call in tool_calls(message):
            call["call_id"] = history_id(call["call_id"] or "")
        return message

    def call_id(self, part: ToolCallPart) -> str | None:
        return openai_id(part["call_id"] or "")

    def result_id(self, part: ToolResultPart) -> str | None:
        return openai_id(part["call_id"] or "")


LLXPRT_CODE_712 = CodecAdapter(
    name="llxprt-code-712",
    version="packages/core/src/providers/openai/OpenAIProvider.ts before 49def03b",
    codecs={"openai-chat": NormalizedIds()},
    homepage="https://github.com/vybestack/llxprt-code/issues/712",
)
