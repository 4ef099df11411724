"""Reference codec for OpenAI Chat Completions.

Written as small overridable steps so that a bug reproduction can replace exactly the step the
buggy code got wrong, in a few lines.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from conformance.engine.ids import IdMap
from conformance.engine.neutral import Conversation, Message, Part, ToolCallPart, ToolResultPart, ToolSpec
from conformance.reference.session import repaired

API = "openai-chat"

CALL = "openai-chat/ChatCompletionMessageToolCall"
CUSTOM_CALL = "openai-chat/ChatCompletionMessageCustomToolCall"
TOOL_MESSAGE = "openai-chat/ChatCompletionRequestToolMessage"


def parse_arguments(raw: Any) -> Any:
    """Arguments as an object; text that is not JSON is kept as text rather than lost."""
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw) if raw else {}
    except json.JSONDecodeError:
        return raw


@dataclass
class _Pending:
    call_id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)


class ChatMessagesEncoder:
    """Encoding shared by the APIs whose requests use the Chat Completions layout (OpenAI Chat and
    its compatible servers, Cohere v2, Ollama): the body, function tools, and ids. Ids this API
    issued go back verbatim; ids from a history begun elsewhere are mapped into this API's
    grammar, the same way every time."""

    api: str
    # Cohere and Ollama stream unless told otherwise: their bodies always say which.
    always_send_stream = False
    ids: IdMap

    def repair(self, conversation: Conversation) -> Conversation:
        """A run cut off before a tool answered leaves a call without a result: give it one."""
        return repaired(conversation)

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        conversation = self.repair(conversation)
        self.ids = IdMap(self.api)
        messages: list[dict[str, Any]] = []
        for message in conversation["messages"]:
            messages.extend(self.encode_message(message))
        body: dict[str, Any] = {"model": conversation["model"], "messages": messages}
        if conversation["tools"]:
            body["tools"] = [self.encode_tool(tool) for tool in conversation["tools"]]
        if conversation["stream"] or self.always_send_stream:
            body["stream"] = bool(conversation["stream"])
        return body

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        raise NotImplementedError

    def encode_tool(self, tool: ToolSpec) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "parameters": tool["parameters"],
            },
        }

    def function_call(self, part: ToolCallPart) -> dict[str, Any]:
        """A `tool_calls` entry of type function, its arguments as JSON text."""
        arguments = part["arguments"]
        return {
            "id": self.call_id(part),
            "type": "function",
            "function": {
                "name": part["name"],
                "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
            },
        }

    def native(self, part: ToolCallPart | ToolResultPart) -> bool:
        return str(part.get("wire_type", "")).startswith(f"{self.api}/")

    def call_id(self, part: ToolCallPart) -> str | None:
        # A served `""` is no id (Gemini's compatible endpoint): minted, since IdMap sends a native id
        # back as it is, `""` included.
        return self.ids.call(part["call_id"] or None, part["name"], native=self.native(part))

    def result_id(self, part: ToolResultPart) -> str | None:
        return self.ids.result(part["call_id"], part.get("name")) or part["call_id"]


class OpenAIChatCodec(ChatMessagesEncoder):
    # Compatible APIs subclass this codec and name their own wire types.
    api = API
    call_type = CALL
    custom_call_type: str | None = CUSTOM_CALL  # None: the API has no custom tools

    # --- decode -------------------------------------------------------------------------
    def decode(self, response: dict[str, Any]) -> Message:
        if response.get("stream"):
            return self.decode_stream(response["events"])
        message = response["body"]["choices"][0]["message"]
        parts: list[Part] = []
        if message.get("content"):
            parts.append({"type": "text", "text": message["content"]})
        for entry in message.get("tool_calls") or []:
            parts.append(self.decode_call(entry))
        return {"role": "assistant", "parts": parts}

    def decode_call(self, entry: dict[str, Any]) -> ToolCallPart:
        if entry.get("type") == "custom" and self.custom_call_type:
            custom = entry["custom"]
            return {
                "type": "tool_call",
                "call_id": entry.get("id"),
                "name": custom["name"],
                "arguments": custom.get("input", ""),
                "wire_type": self.custom_call_type,
            }
        function = entry["function"]
        return {
            "type": "tool_call",
            "call_id": entry.get("id"),
            "name": function["name"],
            "arguments": parse_arguments(function.get("arguments")),
            "wire_type": self.call_type,
        }

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        text: list[str] = []
        calls: list[_Pending] = []
        by_index: dict[int, _Pending] = {}
        for event in events:
            for choice in (event.get("data") or {}).get("choices") or []:
                delta = choice.get("delta") or {}
                if delta.get("content"):
                    text.append(delta["content"])
                for entry in delta.get("tool_calls") or []:
                    self.accumulate(entry, by_index, calls)
        parts: list[Part] = []
        if text:
            parts.append({"type": "text", "text": "".join(text)})
        for pending in calls:
            parts.append(
                {
                    "type": "tool_call",
                    "call_id": pending.call_id,
                    "name": pending.name or "",
                    "arguments": parse_arguments("".join(pending.arguments)),
                    "wire_type": self.call_type,
                }
            )
        return {"role": "assistant", "parts": parts}

    def accumulate(self, entry: dict[str, Any], by_index: dict[int, _Pending], calls: list[_Pending]) -> None:
        """Join deltas by index; a different id on a known index opens a new call."""
        index = entry.get("index", 0)
        new_id = entry.get("id") or None
        pending = by_index.get(index)
        if pending is None or (new_id and pending.call_id and new_id != pending.call_id):
            pending = by_index[index] = _Pending()
            calls.append(pending)
        if new_id and pending.call_id is None:
            pending.call_id = new_id
        function = entry.get("function") or {}
        if function.get("name") and pending.name is None:
            pending.name = function["name"]
        if function.get("arguments"):
            pending.arguments.append(function["arguments"])

    # --- encode -------------------------------------------------------------------------
    def encode_tool(self, tool: ToolSpec) -> dict[str, Any]:
        if tool.get("type") == "custom":
            return {"type": "custom", "custom": {"name": tool["name"], "description": tool.get("description", "")}}
        return super().encode_tool(tool)

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        text = "".join(p["text"] for p in message["parts"] if p["type"] == "text")
        if message["role"] == "tool":
            return [self.encode_result(p) for p in message["parts"] if p["type"] == "tool_result"]
        if message["role"] == "assistant":
            calls = [p for p in message["parts"] if p["type"] == "tool_call"]
            encoded: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                encoded["tool_calls"] = [self.encode_call(p) for p in calls]
            return [encoded]
        return [{"role": message["role"], "content": text}]

    def encode_call(self, part: ToolCallPart) -> dict[str, Any]:
        if self.custom_call_type and part.get("wire_type") == self.custom_call_type:
            return {
                "id": self.call_id(part),
                "type": "custom",
                "custom": {"name": part["name"], "input": part["arguments"]},
            }
        return self.function_call(part)

    def encode_result(self, part: ToolResultPart) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": self.result_id(part), "content": part["output"]}
