"""Reference codec for Gemini Interactions (`POST /v1beta/interactions`).

Written as small overridable steps so that a bug reproduction can replace exactly the step the
buggy code got wrong, in a few lines.

What a correct Interactions client does with ids:
- a `function_call` step's `id` is the neutral call id; the `function_result` answering it names
  it in `call_id` and carries the call's `name`; a `signature` served on the call goes back on it;
- server steps (`google_search_call` and its `google_search_result`, ...) are the provider's: they
  go back as they came, ids and `signature` unchanged, the call before its result;
- the history goes back whole on every request (`store: false`, no `previous_interaction_id`): the
  user's turns as `user_input` steps, the model's text as `model_output`; unless the session lets
  the server store it: then each request names the last interaction in `previous_interaction_id`
  and sends only what came after it;
- a history begun on another API becomes `function_call` steps whose ids this API accepts.
"""

from __future__ import annotations

from typing import Any

from conformance.engine.ids import IdMap
from conformance.engine.neutral import Conversation, Message, Part, ToolCallPart, ToolResultPart
from conformance.reference.openai_responses import stored_id
from conformance.reference.session import repaired
from conformance.replay.transports.gemini_interactions import stream_steps

API = "gemini-interactions"
CALL = f"{API}/FunctionCallStep"
RESULT = f"{API}/FunctionResultStep"

# Server call step type -> the wire-type stem of its pair.
SERVER = {
    "code_execution_call": "CodeExecution",
    "url_context_call": "URLContext",
    "google_search_call": "GoogleSearch",
    "google_maps_call": "GoogleMaps",
    "file_search_call": "FileSearch",
    "mcp_server_tool_call": "MCPServerTool",
    "tool_search_call": "ToolSearch",
    "retrieval_call": "Retrieval",
    "processing_call": "Processing",
}
SERVER_RESULTS = {call[: -len("_call")] + "_result": call for call in SERVER}


def native(part: ToolCallPart | ToolResultPart) -> bool:
    return str(part.get("wire_type", "")).startswith(f"{API}/")


class GeminiInteractionsCodec:
    api = API

    # --- decode -------------------------------------------------------------------------
    def decode(self, response: dict[str, Any]) -> Message:
        if response.get("stream"):
            steps = stream_steps([e.get("data") or {} for e in response["events"] if isinstance(e.get("data"), dict)])
        else:
            steps = list((response.get("body") or {}).get("steps") or [])
        message = self.decode_steps(steps)
        stored = self.interaction_id(response)
        if stored:
            message["extra"] = {"interaction_id": stored}  # what a later request may continue
        return message

    def interaction_id(self, response: dict[str, Any]) -> str | None:
        return stored_id(response, "interaction")

    def decode_steps(self, steps: list[dict[str, Any]]) -> Message:
        parts: list[Part] = []
        for step in steps:
            for decoded in self.decode_step(step):
                last = parts[-1] if parts else None
                if decoded["type"] == "text" and last is not None and last["type"] == "text":
                    last["text"] += decoded["text"]
                else:
                    parts.append(decoded)
        return {"role": "assistant", "parts": parts}

    def decode_step(self, step: dict[str, Any]) -> list[Part]:
        kind = step.get("type")
        if kind == "function_call":
            return [self.decode_call(step)]
        if kind in SERVER:
            return [self.server_call(step)]
        if kind in SERVER_RESULTS:
            return [self.server_result(step)]
        if kind == "model_output":
            text = "".join(
                c["text"] for c in step.get("content") or [] if isinstance(c, dict) and isinstance(c.get("text"), str)
            )
            return [{"type": "text", "text": text}] if text else []
        return []  # user_input echoed back, thought summaries: not the model's answer

    def decode_call(self, step: dict[str, Any]) -> ToolCallPart:
        decoded: ToolCallPart = {
            "type": "tool_call",
            "call_id": step.get("id") or None,
            "name": step["name"],
            "arguments": step.get("arguments") or {},
            "wire_type": CALL,
        }
        if step.get("signature") is not None:
            decoded["extra"] = {"signature": step["signature"]}
        return decoded

    def server_name(self, step: dict[str, Any], call_type: str) -> str:
        """A server pair goes by its call step's type; an MCP call by the tool's name."""
        name = step.get("name")
        return name if isinstance(name, str) and name else call_type

    def server_call(self, step: dict[str, Any]) -> ToolCallPart:
        kind = str(step["type"])
        return {
            "type": "tool_call",
            "call_id": step.get("id") or None,
            "name": self.server_name(step, kind),
            "arguments": step.get("arguments") or {},
            "wire_type": f"{API}/{SERVER[kind]}CallStep",
            "provider_executed": True,
            "extra": {"step": step},  # goes back as it came: signature, server_name, search_type
        }

    def server_result(self, step: dict[str, Any]) -> ToolResultPart:
        call_type = SERVER_RESULTS[str(step["type"])]
        return {
            "type": "tool_result",
            "call_id": step.get("call_id") or None,
            "name": self.server_name(step, call_type),
            "output": step.get("result"),
            "wire_type": f"{API}/{SERVER[call_type]}ResultStep",
            "provider_executed": True,
            "extra": {"step": step},
        }

    # --- encode -------------------------------------------------------------------------
    def repair(self, conversation: Conversation) -> Conversation:
        """A run cut off before a tool answered leaves a call without a result: give it one."""
        return repaired(conversation)

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        conversation = self.repair(conversation)
        self.ids = IdMap(self.api)
        steps: list[dict[str, Any]] = []
        system: list[str] = []
        messages, continued = self.after_stored(conversation)
        for message in messages:
            if message["role"] == "system":
                system.extend(p["text"] for p in message["parts"] if p["type"] == "text")
            elif message["role"] == "assistant":
                steps.extend(self.encode_model(message))
            elif message["role"] == "tool":
                steps.extend(self.encode_result(p) for p in message["parts"] if p["type"] == "tool_result")
            else:
                text = [{"type": "text", "text": p["text"]} for p in message["parts"] if p["type"] == "text"]
                steps.append({"type": "user_input", "content": text})
        body: dict[str, Any] = {"model": conversation["model"], "input": steps}
        if continued:
            body["previous_interaction_id"] = continued
        elif not conversation.get("store"):
            body["store"] = False  # the server stores interactions unless told not to
        if system:
            body["system_instruction"] = "\n".join(system)
        if conversation["tools"]:
            body["tools"] = [
                {
                    "type": "function",
                    "name": tool["name"],
                    "description": tool.get("description", ""),
                    "parameters": tool.get("parameters") or {"type": "object", "properties": {}},
                }
                for tool in conversation["tools"]
            ]
        if conversation["stream"]:
            body["stream"] = True
        return body

    def after_stored(self, conversation: Conversation) -> tuple[list[Message], str | None]:
        """The messages to send, and the stored interaction they continue (None: the whole history)."""
        messages = conversation["messages"]
        if not conversation.get("store"):
            return messages, None
        for k in range(len(messages) - 1, -1, -1):
            stored = (messages[k].get("extra") or {}).get("interaction_id")
            if messages[k]["role"] == "assistant" and stored:
                return messages[k + 1 :], str(stored)
        return messages, None

    def encode_model(self, message: Message) -> list[dict[str, Any]]:
        steps: list[dict[str, Any]] = []
        text: list[str] = []
        for part in message["parts"]:
            if part["type"] == "text":
                if part["text"]:
                    text.append(part["text"])
            elif part.get("provider_executed"):
                if native(part):  # another API's server tool cannot be replayed here
                    steps.append(self.server_step(part))
            elif part["type"] == "tool_call":
                steps.append(self.encode_call(part))
        if text:
            steps.append({"type": "model_output", "content": [{"type": "text", "text": "".join(text)}]})
        return steps

    def server_step(self, part: ToolCallPart | ToolResultPart) -> dict[str, Any]:
        step = (part.get("extra") or {}).get("step")
        return dict(step) if isinstance(step, dict) else {}

    def call_id(self, part: ToolCallPart) -> str:
        return self.ids.call(part["call_id"], part["name"], native=native(part))

    def encode_call(self, part: ToolCallPart) -> dict[str, Any]:
        step = {"type": "function_call", "id": self.call_id(part), "name": part["name"], "arguments": part["arguments"]}
        signature = (part.get("extra") or {}).get("signature") if native(part) else None
        if signature is not None:
            step["signature"] = signature  # issued with the call: it goes back unchanged
        return step

    def result_id(self, part: ToolResultPart) -> str | None:
        return self.ids.result(part["call_id"], part.get("name"))

    def encode_result(self, part: ToolResultPart) -> dict[str, Any]:
        step: dict[str, Any] = {"type": "function_result", "call_id": self.result_id(part) or part["call_id"] or ""}
        if part.get("name"):
            step["name"] = part["name"]
        step["result"] = part["output"]
        return step
