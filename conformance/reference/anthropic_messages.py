"""Reference codec for Anthropic Messages.

Written as small overridable steps so that a bug reproduction can replace exactly the step the
buggy code got wrong, in a few lines.

What Anthropic asks of a history: user and assistant messages alternate; the results of one turn
go in the one user message right after it, before any other content; server-tool blocks
(`server_tool_use`, `mcp_tool_use` and their result blocks) go back in the assistant message,
verbatim, with their ids; a call's `caller` goes back unchanged, and so does an `mcp_tool_listing` block.
The thinking blocks a response opens with (extended thinking) go back unchanged, signature and all, at
the start of the assistant message: they ride in the `thinking` extra of the call that follows them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from conformance.engine.ids import IdMap
from conformance.engine.neutral import Conversation, Message, Part, ToolCallPart, ToolResultPart
from conformance.reference.session import repaired

API = "anthropic-messages"

TOOL_USE = f"{API}/ToolUseBlock"
TOOL_RESULT = f"{API}/ToolResultBlock"
CALL_TYPES = {
    "tool_use": TOOL_USE,
    "server_tool_use": f"{API}/ServerToolUseBlock",
    "mcp_tool_use": f"{API}/MCPToolUseBlock",
}
# The tool listing an MCP server returned, with neither id nor name: it goes back as it came.
MCP_TOOL_LISTING = f"{API}/MCPToolListingBlock"
SERVER_RESULT_TYPES = {
    "web_search_tool_result": f"{API}/WebSearchToolResultBlock",
    "web_fetch_tool_result": f"{API}/WebFetchToolResultBlock",
    "code_execution_tool_result": f"{API}/CodeExecutionToolResultBlock",
    "bash_code_execution_tool_result": f"{API}/BashCodeExecutionToolResultBlock",
    "text_editor_code_execution_tool_result": f"{API}/TextEditorCodeExecutionToolResultBlock",
    "tool_search_tool_result": f"{API}/ToolSearchToolResultBlock",
    "advisor_tool_result": f"{API}/AdvisorToolResultBlock",
    "mcp_tool_result": f"{API}/MCPToolResultBlock",
}
BLOCK_TYPE = {wire: block for block, wire in {**CALL_TYPES, **SERVER_RESULT_TYPES}.items()}
# Block fields besides id, name and input (or content) that must come back as they were served.
KEPT_FIELDS = ("caller", "server_name", "is_error", "toolset_name")
THINKING_BLOCKS = ("thinking", "redacted_thinking")
THINKING = "thinking"  # the extra of a call that holds the thinking blocks before it


def input_object(raw: Any) -> dict[str, Any]:
    """A call's input as the object Anthropic requires; text that is not a JSON object is wrapped."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    return {"input": raw}


@dataclass
class _Pending:
    block: dict[str, Any]
    fragments: list[str] = field(default_factory=list)


class AnthropicMessagesCodec:
    max_tokens = 4096

    # --- decode -------------------------------------------------------------------------
    def decode(self, response: dict[str, Any]) -> Message:
        if response.get("stream"):
            return self.decode_stream(response["events"])
        return self.decode_blocks(response["body"].get("content") or [])

    def decode_blocks(self, blocks: list[dict[str, Any]]) -> Message:
        parts: list[Part] = []
        thinking: list[dict[str, Any]] = []
        for block in blocks:
            if block.get("type") in THINKING_BLOCKS:
                thinking.append(dict(block))
                continue
            part = self.decode_block(block)
            if part is not None:
                if thinking and part["type"] == "tool_call":
                    part.setdefault("extra", {})[THINKING] = thinking
                    thinking = []
                parts.append(part)
        return {"role": "assistant", "parts": parts}

    def decode_block(self, block: dict[str, Any]) -> Part | None:
        kind = block.get("type")
        if kind == "text":
            return {"type": "text", "text": block["text"]} if block.get("text") else None
        if kind in CALL_TYPES:
            return self.decode_call(block)
        if kind == "mcp_tool_listing":
            return self.decode_listing(block)
        if kind in SERVER_RESULT_TYPES:
            return self.decode_server_result(block)
        return None  # thinking and other blocks carry no tool id

    def kept(self, block: dict[str, Any]) -> dict[str, Any]:
        return {key: block[key] for key in KEPT_FIELDS if key in block}

    def decode_call(self, block: dict[str, Any]) -> ToolCallPart:
        kind = str(block["type"])
        part: ToolCallPart = {
            "type": "tool_call",
            "call_id": block.get("id"),
            "name": block.get("name", ""),
            "arguments": block.get("input") or {},
            "wire_type": CALL_TYPES[kind],
        }
        extra = self.kept(block)
        if extra:
            part["extra"] = extra
        if kind != "tool_use":
            part["provider_executed"] = True
        return part

    def decode_listing(self, block: dict[str, Any]) -> ToolCallPart:
        return {
            "type": "tool_call",
            "call_id": None,
            "name": "mcp_tool_listing",
            "arguments": {"mcp_server_name": block.get("mcp_server_name")},
            "wire_type": MCP_TOOL_LISTING,
            "provider_executed": True,
            "extra": {"block": block},
        }

    def decode_server_result(self, block: dict[str, Any]) -> ToolResultPart:
        part: ToolResultPart = {
            "type": "tool_result",
            "call_id": block.get("tool_use_id"),
            "output": block.get("content"),
            "wire_type": SERVER_RESULT_TYPES[str(block["type"])],
            "provider_executed": True,
        }
        extra = self.kept(block)
        if extra:
            part["extra"] = extra
        return part

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        blocks: list[_Pending] = []
        by_index: dict[int, _Pending] = {}
        for event in events:
            data = event.get("data") or {}
            if data.get("type") == "content_block_start":
                pending = by_index[data["index"]] = _Pending(dict(data["content_block"]))
                blocks.append(pending)
            elif data.get("type") == "content_block_delta":
                self.accumulate(data, by_index, blocks)
        for pending in blocks:
            if pending.fragments:
                pending.block["input"] = input_object("".join(pending.fragments))
        return self.decode_blocks([p.block for p in blocks])

    def accumulate(self, event: dict[str, Any], by_index: dict[int, _Pending], blocks: list[_Pending]) -> None:
        """Join a delta to the block its index opened (never to the last block, nor by id)."""
        pending = by_index.get(event["index"])
        delta = event.get("delta") or {}
        if pending is None:
            return
        if delta.get("type") == "input_json_delta":
            pending.fragments.append(delta.get("partial_json", ""))
        elif delta.get("type") == "text_delta":
            pending.block["text"] = pending.block.get("text", "") + delta.get("text", "")
        elif delta.get("type") == "thinking_delta":
            pending.block["thinking"] = pending.block.get("thinking", "") + delta.get("thinking", "")
        elif delta.get("type") == "signature_delta":
            pending.block["signature"] = pending.block.get("signature", "") + delta.get("signature", "")

    # --- encode -------------------------------------------------------------------------
    def repair(self, conversation: Conversation) -> Conversation:
        """A run cut off before a tool answered leaves a call without a result: give it one."""
        return repaired(conversation)

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        conversation = self.repair(conversation)
        # Ids this API issued go back verbatim; ids from a history begun elsewhere are mapped
        # into this API's grammar, the same way every time.
        self.ids = IdMap(API)
        system: list[str] = []
        messages: list[dict[str, Any]] = []
        for message in conversation["messages"]:
            if message["role"] == "system":
                system.extend(p["text"] for p in message["parts"] if p["type"] == "text")
                continue
            for encoded in self.encode_message(message):
                self.append(messages, encoded)
        body: dict[str, Any] = {"model": conversation["model"], "max_tokens": self.max_tokens, "messages": messages}
        if system:
            body["system"] = "\n\n".join(system)
        if conversation["tools"]:
            body["tools"] = [
                {
                    "name": t["name"],
                    "description": t.get("description", ""),
                    "input_schema": t["parameters"],
                    # Code the provider runs may call the tool only where the definition allows it.
                    **({"allowed_callers": list(t["allowed_callers"])} if t.get("allowed_callers") else {}),
                }
                for t in conversation["tools"]
            ]
        if conversation["stream"]:
            body["stream"] = True
        return body

    def append(self, messages: list[dict[str, Any]], encoded: dict[str, Any]) -> None:
        """Roles must alternate: a message of the same role as the one before joins it."""
        if messages and messages[-1]["role"] == encoded["role"]:
            messages[-1]["content"].extend(encoded["content"])
            if encoded["role"] == "user":
                # tool_result blocks first, whatever joined them (a stable sort keeps each order)
                messages[-1]["content"].sort(key=lambda b: b.get("type") != "tool_result")
        else:
            messages.append(encoded)

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        # A message with thinking must start with it (Anthropic's extended thinking with tools).
        blocks: list[dict[str, Any]] = [
            dict(block)
            for part in message["parts"]
            if part["type"] == "tool_call" and self.native(part)
            for block in (part.get("extra") or {}).get(THINKING, ())
        ]
        for part in message["parts"]:
            block = self.encode_part(part)
            if block is not None:
                blocks.append(block)
        if not blocks:
            return []
        return [{"role": "assistant" if message["role"] == "assistant" else "user", "content": blocks}]

    def encode_part(self, part: Part) -> dict[str, Any] | None:
        if part["type"] == "text":
            return {"type": "text", "text": part["text"]} if part["text"] else None
        if part["type"] == "tool_call":
            return self.encode_call(part)
        if part.get("provider_executed"):
            return self.encode_server_result(part)
        return self.encode_result(part)

    def native(self, part: ToolCallPart | ToolResultPart) -> bool:
        return str(part.get("wire_type", "")).startswith(f"{API}/")

    def call_id(self, part: ToolCallPart) -> str | None:
        return self.ids.call(part["call_id"], part["name"], native=self.native(part))

    def result_id(self, part: ToolResultPart) -> str | None:
        return self.ids.result(part["call_id"], part.get("name")) or part["call_id"]

    def encode_call(self, part: ToolCallPart) -> dict[str, Any] | None:
        native = self.native(part)
        if part.get("provider_executed") and not native:
            return None  # another provider's server tool has no Anthropic form
        if part.get("wire_type") == MCP_TOOL_LISTING:
            return dict((part.get("extra") or {}).get("block") or {}) or None
        block: dict[str, Any] = {
            "type": BLOCK_TYPE.get(str(part.get("wire_type")), "tool_use") if native else "tool_use",
            "id": self.call_id(part),
            "name": part["name"],
            "input": input_object(part["arguments"]),
        }
        if native:
            block.update(self.kept(part.get("extra") or {}))
        return block

    def encode_server_result(self, part: ToolResultPart) -> dict[str, Any] | None:
        if not self.native(part) or str(part.get("wire_type")) not in BLOCK_TYPE:
            return None
        block: dict[str, Any] = {
            "type": BLOCK_TYPE[str(part["wire_type"])],
            "tool_use_id": self.result_id(part),
            "content": part["output"],
        }
        block.update(self.kept(part.get("extra") or {}))
        return block

    def encode_result(self, part: ToolResultPart) -> dict[str, Any]:
        return {"type": "tool_result", "tool_use_id": self.result_id(part), "content": part["output"]}
