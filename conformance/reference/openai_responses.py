"""Reference codec for OpenAI Responses, and for the APIs built on its items.

Written as small overridable steps so that a bug reproduction can replace exactly the step the
buggy code got wrong, in a few lines. Azure Foundry and OpenResponses subclass it with their own
item tables.

What a correct Responses client does with ids:
- a call item keeps its two ids apart: `call_id` is the neutral call id, the item id (`fc_...`)
  rides in `extra["item_id"]` and goes back in `id`; an output answers by `call_id`;
- built-in tool items (`web_search_call`, `mcp_call`, ...) have one id, which is both: it goes back
  in `id`, never in a `call_id`;
- the history goes back whole on every request (`store: false`, no `previous_response_id`), with
  every item the provider served, its ids and opaque fields unchanged, and the reasoning items that
  preceded a call placed before it again;
- a history begun on another API becomes function calls whose `call_id` the target accepts, and
  no item id at all: the other API's ids name no item here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from conformance.engine.ids import IdMap
from conformance.engine.neutral import Conversation, Message, Part, ToolCallPart, ToolResultPart
from conformance.reference.session import repaired

API = "openai-responses"


@dataclass(frozen=True)
class Kind:
    """What the codec needs to know about one item `type`."""

    wire_type: str
    output: bool = False  # an output answering a call, rather than a call
    ref: str = "call_id"  # calls: the correlation id; outputs: the field naming the call
    item_id: bool = False  # calls: `id` names the item beside a separate call_id
    server: bool = False  # the provider runs the call or produces the output
    replay: bool = True  # accepted back as request input
    arguments: str | None = None  # the field the call's arguments travel in


def table(api: str, spec: dict[str, tuple[str, dict[str, Any]]]) -> dict[str, Kind]:
    return {item_type: Kind(f"{api}/{name}", **fields) for item_type, (name, fields) in spec.items()}


CALL = {"item_id": True, "arguments": "arguments"}
OUTPUT = {"output": True}
BUILT_IN = {"ref": "id", "server": True}

ITEMS = table(
    API,
    {
        "function_call": ("FunctionToolCall", CALL),
        "function_call_output": ("FunctionToolCallOutput", OUTPUT),
        "custom_tool_call": ("CustomToolCall", {**CALL, "arguments": "input"}),
        "custom_tool_call_output": ("CustomToolCallOutput", OUTPUT),
        "computer_call": ("ComputerToolCall", {**CALL, "arguments": "action"}),
        "computer_call_output": ("ComputerToolCallOutput", OUTPUT),
        "local_shell_call": ("LocalShellToolCall", {**CALL, "arguments": "action"}),
        # The server matches call_id, not the id the spec's properties name (openai-agents-python#1855).
        "local_shell_call_output": ("LocalShellToolCallOutput", {**OUTPUT, "ref": "call_id"}),
        "shell_call": ("FunctionShellCall", {**CALL, "arguments": "action"}),
        "shell_call_output": ("FunctionShellCallOutput", OUTPUT),
        "apply_patch_call": ("ApplyPatchToolCall", {**CALL, "arguments": "operation"}),
        "apply_patch_call_output": ("ApplyPatchToolCallOutput", OUTPUT),
        "tool_search_call": ("ToolSearchCall", CALL),
        "tool_search_output": ("ToolSearchOutput", OUTPUT),
        "program": ("Program", {**CALL, "server": True, "arguments": "code"}),
        "program_output": ("ProgramOutput", {**OUTPUT, "server": True}),
        "mcp_approval_request": ("MCPApprovalRequest", {"ref": "id", "arguments": "arguments"}),
        "mcp_approval_response": ("MCPApprovalResponse", {**OUTPUT, "ref": "approval_request_id"}),
        "web_search_call": ("WebSearchToolCall", {**BUILT_IN, "arguments": "action"}),
        "file_search_call": ("FileSearchToolCall", BUILT_IN),
        "code_interpreter_call": ("CodeInterpreterToolCall", BUILT_IN),
        "image_generation_call": ("ImageGenToolCall", BUILT_IN),
        "mcp_call": ("MCPToolCall", {**BUILT_IN, "arguments": "arguments"}),
        "mcp_list_tools": ("MCPListTools", BUILT_IN),
    },
)


def parse_arguments(raw: Any) -> Any:
    """Arguments as an object; text that is not JSON is kept as text rather than lost."""
    if not isinstance(raw, str):
        return raw if raw is not None else {}
    try:
        return json.loads(raw) if raw else {}
    except json.JSONDecodeError:
        return raw


def _json(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


@dataclass
class StreamSlot:
    """One output item of a stream, by output_index."""

    item: dict[str, Any]
    pieces: list[str] = field(default_factory=list)
    done: bool = False


class ResponsesCodec:
    api = API
    items: dict[str, Kind] = ITEMS
    native_apis: tuple[str, ...] = (API,)  # APIs whose ids this one issued and takes back verbatim

    # --- decode -------------------------------------------------------------------------
    def decode(self, response: dict[str, Any]) -> Message:
        if response.get("stream"):
            message = self.decode_stream(response["events"])
        else:
            message = self.decode_items(response["body"].get("output") or [])
        stored = self.response_id(response)
        if stored:
            message["extra"] = {"response_id": stored}  # what a later request may continue
        return message

    def response_id(self, response: dict[str, Any]) -> str | None:
        return stored_id(response, "response")

    def decode_items(self, items: list[dict[str, Any]]) -> Message:
        parts: list[Part] = []
        reasoning: list[dict[str, Any]] = []
        for item in items:
            item_type = item.get("type")
            if item_type == "reasoning":
                reasoning.append(item)  # goes back before the call it led to
                continue
            if item_type == "message":
                text = "".join(c.get("text", "") for c in item.get("content") or [] if isinstance(c, dict))
                if text:
                    parts.append({"type": "text", "text": text})
                continue
            kind = self.items.get(str(item_type))
            if kind is None:
                continue  # items of no tool: nothing to carry
            if kind.output:
                parts.append(self.decode_output(item, kind))
                continue
            call = self.decode_call(item, kind)
            if reasoning:
                call.setdefault("extra", {})["reasoning"] = reasoning
                reasoning = []
            parts.append(call)
        # A call whose output the provider served beside it was run by the provider.
        answered = {p["call_id"] for p in parts if p["type"] == "tool_result"}
        for part in parts:
            if part["type"] == "tool_call" and part["call_id"] in answered:
                part["provider_executed"] = True
        return {"role": "assistant", "parts": parts}

    def fields(self, item: dict[str, Any], kind: Kind) -> dict[str, Any]:
        """Everything but the ids, to rebuild the item from."""
        return {k: v for k, v in item.items() if k not in ("id", kind.ref)}

    def arguments(self, item: dict[str, Any], kind: Kind) -> Any:
        if kind.arguments == "input":
            return item.get("input", "")
        return parse_arguments(item.get(kind.arguments)) if kind.arguments else {}

    def decode_call(self, item: dict[str, Any], kind: Kind) -> ToolCallPart:
        extra: dict[str, Any] = {"item": self.fields(item, kind)}
        if kind.item_id and item.get("id"):
            extra["item_id"] = item["id"]
        part: ToolCallPart = {
            "type": "tool_call",
            "call_id": item.get(kind.ref),
            "name": item.get("name") or str(item["type"]),
            "arguments": self.arguments(item, kind),
            "wire_type": kind.wire_type,
            "extra": extra,
        }
        if kind.server or item.get("execution") == "server":
            part["provider_executed"] = True
        return part

    def decode_output(self, item: dict[str, Any], kind: Kind) -> ToolResultPart:
        """An output the provider produced itself, served in its response."""
        extra: dict[str, Any] = {"item": self.fields(item, kind)}
        if kind.ref != "id" and item.get("id"):
            extra["item_id"] = item["id"]
        return {
            "type": "tool_result",
            "call_id": item.get(kind.ref),
            "name": item.get("name"),
            "output": item.get("output", item.get("result")),
            "wire_type": kind.wire_type,
            "extra": extra,
            "provider_executed": True,
        }

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        slots: dict[int, StreamSlot] = {}
        for event in events:
            self.accumulate(event.get("data") or {}, slots)
        return self.decode_items([self.joined(slots[k]) for k in sorted(slots)])

    def accumulate(self, data: dict[str, Any], slots: dict[int, StreamSlot]) -> None:
        """Items open with output_item.added (both ids) and close whole with output_item.done;
        deltas carry only item_id and output_index, and join their item by output_index."""
        kind = str(data.get("type", ""))
        index = data.get("output_index")
        if not isinstance(index, int):
            return
        if kind == "response.output_item.added":
            slots[index] = StreamSlot(dict(data["item"]))
        elif kind == "response.output_item.done":
            slots[index] = StreamSlot(dict(data["item"]), done=True)
        elif kind.endswith((".delta",)) and index in slots and isinstance(data.get("delta"), str):
            slots[index].pieces.append(data["delta"])

    def joined(self, slot: StreamSlot) -> dict[str, Any]:
        """An item that never closed, completed from its deltas."""
        if slot.done or not slot.pieces:
            return slot.item
        text = "".join(slot.pieces)
        if slot.item.get("type") == "message":
            return {**slot.item, "content": [{"type": "output_text", "text": text}]}
        kind = self.items.get(str(slot.item.get("type")))
        return {**slot.item, (kind.arguments if kind and kind.arguments else "arguments"): text}

    # --- encode -------------------------------------------------------------------------
    def repair(self, conversation: Conversation) -> Conversation:
        """A run cut off before a tool answered leaves a call without a result: give it one."""
        return repaired(conversation)

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        conversation = self.repair(conversation)
        # Ids this API issued go back verbatim; ids from a history begun elsewhere are mapped
        # into this API's grammar, the same way every time.
        self.ids = IdMap(self.api)
        self.answers: dict[str, str] = {}  # call id sent -> the output type that answers it
        messages, continued = self.after_stored(conversation)
        items: list[dict[str, Any]] = []
        for message in messages:
            items.extend(self.encode_message(message))
        # Stateless unless the session stores responses: then each request continues the last one
        # by its id and sends only what came after it (the outputs of its calls, a new prompt).
        body: dict[str, Any] = {"model": conversation["model"], "input": items}
        body["store"] = bool(conversation.get("store"))
        if continued:
            body["previous_response_id"] = continued
        if conversation["tools"]:
            body["tools"] = [self.encode_tool(dict(t)) for t in conversation["tools"]]
        if conversation["stream"]:
            body["stream"] = True
        return body

    def after_stored(self, conversation: Conversation) -> tuple[list[Message], str | None]:
        """The messages to send, and the stored response they continue (None: the whole history)."""
        messages = conversation["messages"]
        if not conversation.get("store"):
            return messages, None
        for k in range(len(messages) - 1, -1, -1):
            stored = (messages[k].get("extra") or {}).get("response_id")
            if messages[k]["role"] == "assistant" and stored:
                return messages[k + 1 :], str(stored)
        return messages, None

    def encode_tool(self, tool: dict[str, Any]) -> dict[str, Any]:
        if tool.get("type") == "custom":
            return {"type": "custom", "name": tool["name"], "description": tool.get("description", "")}
        return {
            "type": "function",
            "name": tool["name"],
            "description": tool.get("description", ""),
            "parameters": tool.get("parameters", {}),
        }

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        if message["role"] == "tool":
            return [self.encode_result(p) for p in message["parts"] if p["type"] == "tool_result"]
        if message["role"] != "assistant":
            text = "".join(p["text"] for p in message["parts"] if p["type"] == "text")
            return [{"role": message["role"], "content": text}]
        items: list[dict[str, Any]] = []
        for part in message["parts"]:
            if part["type"] == "text":
                if part["text"]:
                    items.append({"role": "assistant", "content": part["text"]})
            elif part["type"] == "tool_call":
                items.extend(self.encode_call(part))
            else:
                served = self.encode_served_output(part)
                if served is not None:
                    items.append(served)
        return items

    def native(self, part: ToolCallPart | ToolResultPart) -> bool:
        return str(part.get("wire_type", "")).startswith(tuple(f"{api}/" for api in self.native_apis))

    def item_type(self, part: ToolCallPart | ToolResultPart) -> str | None:
        wire_type = part.get("wire_type")
        return next((t for t, k in self.items.items() if k.wire_type == wire_type), None) if self.native(part) else None

    def call_id(self, part: ToolCallPart) -> str | None:
        return self.ids.call(part["call_id"], part["name"], native=self.native(part))

    def item_id(self, part: ToolCallPart) -> str | None:
        """The item id the provider issued; a call from another API has none here."""
        return (part.get("extra") or {}).get("item_id") if self.native(part) else None

    def result_id(self, part: ToolResultPart) -> str | None:
        return self.ids.result(part["call_id"], part.get("name")) or part["call_id"]

    def foreign_type(self, part: ToolCallPart) -> str:
        """A call from another API: a free-form one becomes a custom tool call, the rest function calls."""
        custom = "custom" in str(part.get("wire_type", "")).lower() and isinstance(part["arguments"], str)
        return "custom_tool_call" if custom and "custom_tool_call" in self.items else "function_call"

    def encode_call(self, part: ToolCallPart) -> list[dict[str, Any]]:
        native = self.native(part)
        item_type = self.item_type(part)
        if item_type is None:
            if part.get("provider_executed"):
                return []  # another provider's server tool has no form here
            item_type = self.foreign_type(part)
        kind = self.items[item_type]
        if not kind.replay:
            return []  # served for the client to read, never taken back as input
        extra = (part.get("extra") or {}) if native else {}
        call_id = self.call_id(part)
        item: dict[str, Any] = {"type": item_type}
        if kind.ref == "id":
            item["id"] = call_id
        else:
            item_id = self.item_id(part)
            if item_id:
                item["id"] = item_id
            item["call_id"] = call_id
        if not native:
            self.answers[str(call_id)] = f"{item_type}_output"
        item.update({k: v for k, v in (extra.get("item") or {}).items() if k != "type"})
        if item_type in ("function_call", "custom_tool_call"):
            item["name"] = part["name"]
            item[str(kind.arguments)] = self.encode_arguments(part, extra.get("item") or {}, kind)
        return [*extra.get("reasoning", []), item]

    def encode_arguments(self, part: ToolCallPart, served: dict[str, Any], kind: Kind) -> str:
        """The served text when it still says the same, else the arguments as compact JSON."""
        arguments = part["arguments"]
        original = served.get(str(kind.arguments))
        if isinstance(original, str) and (original == arguments or parse_arguments(original) == arguments):
            return original
        if isinstance(arguments, str):
            return arguments
        return json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)

    def encode_served_output(self, part: ToolResultPart) -> dict[str, Any] | None:
        """An output the provider served in its own turn goes back as it came."""
        item_type = self.item_type(part)
        kind = self.items.get(item_type or "")
        if item_type is None or kind is None or not kind.replay:
            return None
        extra = part.get("extra") or {}
        item: dict[str, Any] = {"type": item_type}
        if extra.get("item_id"):
            item["id"] = extra["item_id"]
        item[kind.ref] = self.result_id(part)
        item.update({k: v for k, v in (extra.get("item") or {}).items() if k != "type"})
        return item

    def encode_result(self, part: ToolResultPart) -> dict[str, Any]:
        call_id = self.result_id(part)
        item_type = self.item_type(part) or self.answers.get(str(call_id), "function_call_output")
        return self.output_item(item_type, call_id, part["output"])

    def output_item(self, item_type: str, call_id: str | None, output: Any) -> dict[str, Any]:
        """The client's output item of the given type, answering `call_id`."""
        kind = self.items.get(item_type)
        item: dict[str, Any] = {"type": item_type, (kind.ref if kind else "call_id"): call_id}
        parsed = _json(output)
        if item_type == "computer_call_output":
            item["output"] = (
                parsed if isinstance(parsed, dict) else {"type": "computer_screenshot", "image_url": output}
            )
        elif item_type == "shell_call_output":
            item["output"] = (
                parsed
                if isinstance(parsed, list)
                else [{"stdout": output, "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]
            )
        elif item_type == "apply_patch_call_output":
            item.update(status="completed", output=output)
        elif item_type == "tool_search_output":
            item.update(execution="client", tools=parsed if isinstance(parsed, list) else [])
        elif item_type == "mcp_approval_response":
            item["approve"] = parsed is True or (isinstance(parsed, dict) and parsed.get("approve") is True)
        else:
            item["output"] = output
        return item


class OpenAIResponsesCodec(ResponsesCodec):
    pass


def stored_id(response: dict[str, Any], holder: str) -> str | None:
    """The id a server stores a response under: the body's `id`, or in a stream the `id` of the first
    event's object under `holder` (`response` for Responses, `interaction` for Gemini Interactions)."""
    if not response.get("stream"):
        found = (response.get("body") or {}).get("id")
        return found if isinstance(found, str) else None
    for event in response.get("events") or []:
        found = ((event.get("data") or {}).get(holder) or {}).get("id")
        if isinstance(found, str):
            return found
    return None
