"""Reference codec for Cohere chat v2.

Ids Cohere issued (`{tool}_{12 lowercase alphanumerics}`) go back byte for byte; ids from a
history begun elsewhere are mapped with `IdMap("cohere-v2")`. The text that comes with calls is
the `tool_plan`. Results are tool messages with `tool_call_id` and content blocks: a document
when the output is a JSON object (Cohere cites documents), a text block otherwise. Streams are
joined by the `index` of `tool-call-start` (id and name) and `tool-call-delta` (arguments).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from conformance.engine.neutral import Message, Part, ToolCallPart, ToolResultPart
from conformance.reference.openai_chat import ChatMessagesEncoder, parse_arguments

API = "cohere-v2"
CALL = "cohere-v2/ToolCallV2"
TOOL_MESSAGE = "cohere-v2/ToolMessageV2"


@dataclass
class _Pending:
    call_id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)


def _tool_calls_delta(data: dict[str, Any]) -> dict[str, Any]:
    found = ((data.get("delta") or {}).get("message") or {}).get("tool_calls") or {}
    return found if isinstance(found, dict) else {}


class CohereV2Codec(ChatMessagesEncoder):
    api = API
    always_send_stream = True

    # --- decode -------------------------------------------------------------------------
    def decode(self, response: dict[str, Any]) -> Message:
        if response.get("stream"):
            return self.decode_stream(response["events"])
        message = response["body"]["message"]
        parts: list[Part] = []
        text = "".join(c.get("text", "") for c in message.get("content") or [] if c.get("type") == "text")
        if text or message.get("tool_plan"):
            parts.append({"type": "text", "text": text or message["tool_plan"]})
        parts.extend(self.decode_call(entry) for entry in message.get("tool_calls") or [])
        return {"role": "assistant", "parts": parts}

    def decode_call(self, entry: dict[str, Any]) -> ToolCallPart:
        function = entry.get("function") or {}
        return {
            "type": "tool_call",
            "call_id": entry.get("id"),
            "name": function.get("name", ""),
            "arguments": parse_arguments(function.get("arguments")),
            "wire_type": CALL,
        }

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        text: list[str] = []
        calls: list[_Pending] = []
        by_index: dict[int, _Pending] = {}
        for event in events:
            data = event.get("data") or {}
            kind = data.get("type") or event.get("event")
            if kind in ("content-delta", "tool-plan-delta"):
                message = (data.get("delta") or {}).get("message") or {}
                content = message.get("content") or {}
                piece = content.get("text") if isinstance(content, dict) else None
                piece = piece or message.get("tool_plan")
                if piece:
                    text.append(piece)
            elif kind in ("tool-call-start", "tool-call-delta"):
                self.accumulate(kind, data, by_index, calls)
        parts: list[Part] = [{"type": "text", "text": "".join(text)}] if text else []
        for pending in calls:
            parts.append(
                {
                    "type": "tool_call",
                    "call_id": pending.call_id,
                    "name": pending.name or "",
                    "arguments": parse_arguments("".join(pending.arguments)),
                    "wire_type": CALL,
                }
            )
        return {"role": "assistant", "parts": parts}

    def accumulate(self, kind: str, data: dict[str, Any], by_index: dict[int, _Pending], calls: list[_Pending]) -> None:
        """A start opens the call at its index with id and name; deltas add argument text to it."""
        index = data.get("index", 0)
        entry = _tool_calls_delta(data)
        function = entry.get("function") or {}
        if kind == "tool-call-start" or index not in by_index:
            pending = by_index[index] = _Pending(call_id=entry.get("id"), name=function.get("name"))
            calls.append(pending)
        pending = by_index[index]
        if function.get("arguments"):
            pending.arguments.append(function["arguments"])

    # --- encode -------------------------------------------------------------------------
    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        text = "".join(p["text"] for p in message["parts"] if p["type"] == "text")
        if message["role"] == "tool":
            return [self.encode_result(p) for p in message["parts"] if p["type"] == "tool_result"]
        if message["role"] == "assistant":
            calls = [p for p in message["parts"] if p["type"] == "tool_call"]
            if not calls:
                return [{"role": "assistant", "content": text}]
            encoded: dict[str, Any] = {"role": "assistant", "tool_calls": [self.encode_call(p) for p in calls]}
            if text:
                encoded["tool_plan"] = text
            return [encoded]
        return [{"role": message["role"], "content": text}]

    def encode_call(self, part: ToolCallPart) -> dict[str, Any]:
        return self.function_call(part)

    def encode_result(self, part: ToolResultPart) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": self.result_id(part), "content": self.result_content(part["output"])}

    def result_content(self, output: Any) -> list[dict[str, Any]]:
        try:
            parsed = json.loads(output) if isinstance(output, str) else output
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return [{"type": "document", "document": {"data": parsed}}]
        return [{"type": "text", "text": output if isinstance(output, str) else json.dumps(output)}]
