"""Reference codec for Amazon Bedrock Converse and ConverseStream.

Written as small overridable steps so that a bug reproduction can replace exactly the step the
buggy code got wrong, in a few lines.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from conformance.engine.ids import IdMap
from conformance.engine.neutral import Conversation, Message, Part, ToolCallPart, ToolResultPart
from conformance.reference.openai_chat import parse_arguments
from conformance.reference.session import repaired

API = "bedrock-converse"

TOOL_USE = "bedrock-converse/ToolUseBlock"
TOOL_RESULT = "bedrock-converse/ToolResultBlock"
SERVER_TOOL = "server_tool_use"
# The models whose ids Bedrock hands to Mistral's validator, which refuses ids shorter than nine: the
# model-bound limit of toolUseId in cases/wire-types/bedrock-converse (a test holds the two equal).
MISTRAL_MODELS = r"(?:[a-z]+\.)?mistral\..+"


REASONING = "reasoningContent"  # the extra of a call that holds the reasoning blocks before it


@dataclass
class _Block:
    kind: str  # "text", "toolUse", "toolResult" or "reasoningContent"
    call_id: str | None = None
    name: str | None = None
    server: bool = False
    pieces: list[Any] = field(default_factory=list)


class BedrockConverseCodec:
    # --- decode -------------------------------------------------------------------------
    def decode(self, response: dict[str, Any]) -> Message:
        if response.get("stream"):
            return self.decode_stream(response["events"])
        content = response["body"]["output"]["message"]["content"]
        parts: list[Part] = []
        reasoning: list[dict[str, Any]] = []
        for block in content:
            if isinstance(block.get(REASONING), dict):
                reasoning.append(dict(block[REASONING]))
                continue
            part = self.decode_block(block)
            if part is not None:
                parts.append(self.reasoned(part, reasoning))
        return {"role": "assistant", "parts": parts}

    def reasoned(self, part: Part, reasoning: list[dict[str, Any]]) -> Part:
        """The reasoning blocks read so far ride on the call that follows them, to go back before it."""
        if reasoning and part["type"] == "tool_call":
            part.setdefault("extra", {})[REASONING] = list(reasoning)
            reasoning.clear()
        return part

    def decode_block(self, block: dict[str, Any]) -> Part | None:
        if "toolUse" in block:
            use = block["toolUse"]
            return self.tool_call(use.get("toolUseId"), use["name"], use.get("input", {}), use.get("type"))
        if "toolResult" in block:  # a server tool's result, inside the assistant turn
            result = block["toolResult"]
            return self.server_result(result.get("toolUseId"), result.get("content", []))
        if isinstance(block.get("text"), str):
            return {"type": "text", "text": block["text"]}
        return None

    def tool_call(self, call_id: str | None, name: str, arguments: Any, kind: str | None) -> ToolCallPart:
        part: ToolCallPart = {
            "type": "tool_call",
            "call_id": call_id,
            "name": name,
            "arguments": arguments,
            "wire_type": TOOL_USE,
        }
        if kind == SERVER_TOOL:
            part["provider_executed"] = True
        return part

    def server_result(self, call_id: str | None, content: Any) -> ToolResultPart:
        return {
            "type": "tool_result",
            "call_id": call_id,
            "output": content,
            "wire_type": TOOL_RESULT,
            "provider_executed": True,
        }

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        blocks: dict[int, _Block] = {}
        for event in events:
            data = event.get("data")
            if isinstance(data, dict):
                self.accumulate(event.get("event"), data, blocks)
        parts: list[Part] = []
        reasoning: list[dict[str, Any]] = []
        for block in blocks.values():  # in the order their indexes first appeared
            if block.kind == "text":
                parts.append({"type": "text", "text": "".join(block.pieces)})
            elif block.kind == REASONING:
                reasoning.append(_reasoning_block(block.pieces))
            elif block.kind == "toolUse":
                arguments = parse_arguments("".join(block.pieces))
                call = self.tool_call(block.call_id, block.name or "", arguments, SERVER_TOOL if block.server else None)
                parts.append(self.reasoned(call, reasoning))
            else:
                content = [c for piece in block.pieces for c in (piece if isinstance(piece, list) else [piece])]
                parts.append(self.server_result(block.call_id, content))
        return {"role": "assistant", "parts": parts}

    def accumulate(self, name: Any, data: dict[str, Any], blocks: dict[int, _Block]) -> None:
        """Join a block's pieces by contentBlockIndex; the id and name come only with its start."""
        index = data.get("contentBlockIndex")
        if not isinstance(index, int):
            return
        if name == "contentBlockStart":
            start = data.get("start") or {}
            if "toolUse" in start:
                use = start["toolUse"]
                blocks[index] = _Block("toolUse", use.get("toolUseId"), use.get("name"), use.get("type") == SERVER_TOOL)
            elif "toolResult" in start:
                blocks[index] = _Block("toolResult", start["toolResult"].get("toolUseId"))
        elif name == "contentBlockDelta":
            delta = data.get("delta") or {}
            if isinstance(delta.get("text"), str):
                blocks.setdefault(index, _Block("text")).pieces.append(delta["text"])
            elif isinstance(delta.get(REASONING), dict):
                blocks.setdefault(index, _Block(REASONING)).pieces.append(delta[REASONING])
            elif "toolUse" in delta and index in blocks:
                blocks[index].pieces.append(delta["toolUse"].get("input", ""))
            elif "toolResult" in delta and index in blocks:
                blocks[index].pieces.append(delta["toolResult"])

    # --- encode -------------------------------------------------------------------------
    def repair(self, conversation: Conversation) -> Conversation:
        """A run cut off before a tool answered leaves a call without a result: give it one."""
        return repaired(conversation)

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        conversation = self.repair(conversation)
        # Ids Bedrock issued go back verbatim; ids from a history begun elsewhere are mapped
        # into toolUseId's grammar, the same way every time; for a Mistral model, into Mistral's own
        # nine alphanumerics.
        mistral = re.fullmatch(MISTRAL_MODELS, conversation["model"] or "") is not None
        self.ids = IdMap("mistral-chat" if mistral else API)
        messages: list[dict[str, Any]] = []
        system: list[dict[str, Any]] = []
        for message in conversation["messages"]:
            if message["role"] == "system":  # Converse takes instructions beside the messages
                system.extend({"text": p["text"]} for p in message["parts"] if p["type"] == "text" and p["text"])
                continue
            for encoded in self.encode_message(message):
                self.append(messages, encoded)
        body: dict[str, Any] = {"messages": messages}
        if system:
            body["system"] = system
        if conversation["tools"]:
            # A history holding toolUse or toolResult blocks is refused without toolConfig.
            body["toolConfig"] = {
                "tools": [
                    {
                        "toolSpec": {
                            "name": tool["name"],
                            "description": tool.get("description") or tool["name"],
                            "inputSchema": {"json": tool["parameters"]},
                        }
                    }
                    for tool in conversation["tools"]
                ]
            }
        return body

    def append(self, messages: list[dict[str, Any]], encoded: dict[str, Any]) -> None:
        """Converse needs roles to alternate: a message with the previous one's role joins it."""
        if messages and messages[-1]["role"] == encoded["role"]:
            messages[-1]["content"].extend(encoded["content"])
        else:
            messages.append(encoded)

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        if message["role"] == "tool":
            results = [self.encode_result(p) for p in message["parts"] if p["type"] == "tool_result"]
            return [{"role": "user", "content": results}] if results else []
        # Reasoning goes back first, unchanged (Claude's thinking with tools on Bedrock).
        content: list[dict[str, Any]] = [
            {REASONING: dict(block)}
            for part in message["parts"]
            if part["type"] == "tool_call" and self.native(part)
            for block in (part.get("extra") or {}).get(REASONING, ())
        ]
        for part in message["parts"]:
            if part["type"] == "text":
                if part["text"]:  # Converse refuses blank text blocks
                    content.append({"text": part["text"]})
            elif part.get("provider_executed") and not self.native(part):
                continue  # another provider's server tool: Bedrock cannot run it, nor take its result
            elif part["type"] == "tool_call":
                content.append(self.encode_call(part))
            elif part.get("provider_executed"):
                content.append(self.encode_server_result(part))
        role = "assistant" if message["role"] == "assistant" else "user"
        return [{"role": role, "content": content}] if content else []

    def native(self, part: ToolCallPart | ToolResultPart) -> bool:
        return str(part.get("wire_type", "")).startswith(f"{API}/")

    def call_id(self, part: ToolCallPart) -> str | None:
        return self.ids.call(part["call_id"], part["name"], native=self.native(part))

    def result_id(self, part: ToolResultPart) -> str | None:
        return self.ids.result(part["call_id"], part.get("name")) or part["call_id"]

    def encode_call(self, part: ToolCallPart) -> dict[str, Any]:
        use: dict[str, Any] = {
            "toolUseId": self.call_id(part),
            "name": part["name"],
            "input": parse_arguments(part["arguments"]),
        }
        if part.get("provider_executed"):
            use["type"] = SERVER_TOOL
        return {"toolUse": use}

    def result_content(self, output: Any) -> list[dict[str, Any]]:
        """A JSON object goes as a json block (Converse takes only objects there), anything else as text."""
        if isinstance(output, list):
            return output  # already Converse content: a server tool's result
        if isinstance(output, str):
            try:
                parsed = json.loads(output)
            except json.JSONDecodeError:
                parsed = None
            return [{"json": parsed}] if isinstance(parsed, dict) else [{"text": output}]
        return [{"json": output}] if isinstance(output, dict) else [{"text": json.dumps(output)}]

    def encode_result(self, part: ToolResultPart) -> dict[str, Any]:
        return {
            "toolResult": {
                "toolUseId": self.result_id(part),
                "content": self.result_content(part["output"]),
                "status": "success",
            }
        }

    def encode_server_result(self, part: ToolResultPart) -> dict[str, Any]:
        return {"toolResult": {"toolUseId": self.result_id(part), "content": self.result_content(part["output"])}}


def _reasoning_block(deltas: list[Any]) -> dict[str, Any]:
    """A streamed reasoning block as the ReasoningContentBlock it is: its text and signature joined,
    or its redacted content."""
    redacted = [d["redactedContent"] for d in deltas if "redactedContent" in d]
    if redacted:
        return {"redactedContent": redacted[-1]}
    text = "".join(str(d["text"]) for d in deltas if "text" in d)
    signature = "".join(str(d["signature"]) for d in deltas if "signature" in d)
    return {"reasoningText": {"text": text, "signature": signature} if signature else {"text": text}}
