"""Reference codec for Ollama's native chat API (`/api/chat`).

Calls keep the server's `call_...` id when it sent one and stay id-less when it did not (servers
before v0.12.10): an id made up here would be sent back as if the server had issued it. Results
name their call by `tool_name` always and by `tool_call_id` when the call has an id. Streams are
NDJSON chunks, each call whole in the chunk that carries it; every chunk's calls are kept.
"""

from __future__ import annotations

from typing import Any

from conformance.engine.neutral import Message, Part, ToolCallPart, ToolResultPart
from conformance.reference.openai_chat import ChatMessagesEncoder, parse_arguments

API = "ollama-chat"
CALL = "ollama-chat/ToolCall"
TOOL_MESSAGE = "ollama-chat/ToolMessage"


class OllamaChatCodec(ChatMessagesEncoder):
    api = API
    always_send_stream = True

    # --- decode -------------------------------------------------------------------------
    def decode(self, response: dict[str, Any]) -> Message:
        chunks = [e.get("data") or {} for e in response["events"]] if response.get("stream") else [response["body"]]
        text: list[str] = []
        calls: list[ToolCallPart] = []
        for chunk in chunks:
            message = chunk.get("message") or {}
            if message.get("content"):
                text.append(message["content"])
            calls.extend(self.decode_call(entry) for entry in message.get("tool_calls") or [])
        parts: list[Part] = [{"type": "text", "text": "".join(text)}] if text else []
        parts.extend(calls)
        return {"role": "assistant", "parts": parts}

    def decode_call(self, entry: dict[str, Any]) -> ToolCallPart:
        function = entry["function"]
        return {
            "type": "tool_call",
            "call_id": entry.get("id") or None,
            "name": function["name"],
            "arguments": parse_arguments(function.get("arguments")),
            "wire_type": CALL,
        }

    # --- encode -------------------------------------------------------------------------
    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        text = "".join(p["text"] for p in message["parts"] if p["type"] == "text")
        if message["role"] == "tool":
            return [self.encode_result(p) for p in message["parts"] if p["type"] == "tool_result"]
        if message["role"] == "assistant":
            calls = [p for p in message["parts"] if p["type"] == "tool_call"]
            encoded: dict[str, Any] = {"role": "assistant", "content": text}
            if calls:
                encoded["tool_calls"] = [self.encode_call(p, i) for i, p in enumerate(calls)]
            return [encoded]
        return [{"role": message["role"], "content": text}]

    def call_id(self, part: ToolCallPart) -> str | None:
        if self.native(part) and not part["call_id"]:
            return None  # the server issued no id: none goes back
        return super().call_id(part)

    def result_id(self, part: ToolResultPart) -> str | None:
        if self.native(part) and not part["call_id"]:
            return None
        return super().result_id(part)

    def encode_call(self, part: ToolCallPart, index: int) -> dict[str, Any]:
        arguments = part["arguments"]
        entry: dict[str, Any] = {
            "function": {
                "index": index,
                "name": part["name"],
                "arguments": arguments if isinstance(arguments, dict) else parse_arguments(arguments),
            }
        }
        call_id = self.call_id(part)
        if call_id:
            entry = {"id": call_id, **entry}
        return entry

    def encode_result(self, part: ToolResultPart) -> dict[str, Any]:
        encoded: dict[str, Any] = {"role": "tool", "content": part["output"]}
        if part.get("name"):
            encoded["tool_name"] = part["name"]
        call_id = self.result_id(part)
        if call_id:
            encoded["tool_call_id"] = call_id
        return encoded
