"""Responses-family responses and requests (OpenAI Responses, Azure Foundry, OpenResponses).

A scenario's turn becomes a response whose `output` holds one item per declared call, in the shape
of its type, then a message with the turn's text (before the calls, or after the first, where the
turn's `text_position` says so). A call's `wire_type` names its item type
(a plain function call when it has none). The request before response N is what a correct,
stateless client sends: the prompt, then every item served so far as it was served (assistant
text as an assistant message, output-only items left out), each client call followed by its
output item. A program's output is served at the start of the response after the one that ran it,
once the calls the program made have been answered.
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from builders.common import JSON, SSE, compact, interaction, prior_turns, seed, split, sse, stream_shape, text_before
from conformance.corpus.loading import ExpectedCall, Scenario
from conformance.engine.ids import IdMap
from conformance.reference.session import INTERRUPTED

_BASE62 = string.digits + string.ascii_letters

# item type -> wire-type case name, per API (the item types a scenario's calls may name)
OPENAI_TYPES = {
    "function_call": "FunctionToolCall",
    "custom_tool_call": "CustomToolCall",
    "computer_call": "ComputerToolCall",
    "local_shell_call": "LocalShellToolCall",
    "shell_call": "FunctionShellCall",
    "apply_patch_call": "ApplyPatchToolCall",
    "tool_search_call": "ToolSearchCall",
    "program": "Program",
    "mcp_approval_request": "MCPApprovalRequest",
    "web_search_call": "WebSearchToolCall",
    "file_search_call": "FileSearchToolCall",
    "code_interpreter_call": "CodeInterpreterToolCall",
    "image_generation_call": "ImageGenToolCall",
    "mcp_call": "MCPToolCall",
    "mcp_list_tools": "MCPListTools",
}
# The output item answering each client call type.
ANSWERS = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "computer_call": "computer_call_output",
    "local_shell_call": "local_shell_call_output",
    "shell_call": "shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    "tool_search_call": "tool_search_output",
    "mcp_approval_request": "mcp_approval_response",
}
# Item types that carry a `name` of their own; the others go by their type.
NAMED = {"function_call", "custom_tool_call", "mcp_call", "mcp_approval_request", "a2a_preview_call"}
NAMED |= {"azure_function_call", "openapi_call"}
# Item types whose one id is their correlation id.
CONFLATED = {"mcp_approval_request", "web_search_call", "file_search_call", "code_interpreter_call"}
CONFLATED |= {"image_generation_call", "mcp_call", "mcp_list_tools", "memory_search_call", "structured_outputs"}
CONFLATED |= {"workflow_action", "oauth_consent_request"}
# Calls a scenario's server serves with an empty name (the scenario declares them under the name the
# dialect reads, the item type), by scenario id: the scenario format has no field for it.
SERVED_WITHOUT_NAME: dict[str, set[str]] = {"openai-responses/gateway-nameless-call": {"call_8160d2d87c70"}}
# Tool declarations a request needs for the items a scenario serves.
HOSTED_TOOLS: dict[str, dict[str, Any]] = {
    "web_search_call": {"type": "web_search"},
    "file_search_call": {"type": "file_search", "vector_store_ids": ["vs_68f0a1b2c3d48191a2b3c4d5e6f7a8b9"]},
    "code_interpreter_call": {"type": "code_interpreter", "container": {"type": "auto"}},
    "image_generation_call": {"type": "image_generation"},
    "computer_call": {
        "type": "computer_use_preview",
        "display_width": 1024,
        "display_height": 768,
        "environment": "browser",
    },
    "local_shell_call": {"type": "local_shell"},
    "shell_call": {"type": "shell"},
    "apply_patch_call": {"type": "apply_patch"},
    "tool_search_call": {"type": "tool_search", "execution": "client"},
    "program": {"type": "programmatic_tool_calling"},
}


def digest(*parts: object) -> bytes:
    return hashlib.sha256("#".join(str(p) for p in parts).encode()).digest()


def base62(raw: bytes, length: int) -> str:
    number = int.from_bytes(raw, "big")
    out: list[str] = []
    while len(out) < length:
        number, rest = divmod(number, 62)
        out.append(_BASE62[rest])
    return "".join(out)


@dataclass(frozen=True)
class Flavor:
    """What differs between the Responses APIs in a constructed cassette."""

    api: str
    uri: str
    types: dict[str, str]  # item type -> wire-type case id
    model_version: Callable[[str], str]
    azure_ids: bool = False  # ids minted the way Microsoft's agent server mints them
    output_only: frozenset[str] = frozenset()
    extra_body: dict[str, Any] = field(default_factory=dict)  # response fields of this API
    extra_request: dict[str, Any] = field(default_factory=dict)  # request fields of this API
    headers: dict[str, str] = field(default_factory=dict)
    # The response id of turn `index`, where the server mints it its own way (None: `resp_` and hex).
    response_ids: Callable[[Scenario, int], str] | None = None

    def item_type(self, call: ExpectedCall) -> str:
        if call.wire_type:
            for item_type, wire_type in self.types.items():
                if wire_type == call.wire_type:
                    return item_type
        return "function_call"

    def new_id(self, prefix: str, scenario: Scenario, index: int, tag: object) -> str:
        """An id the provider would mint for an item the scenario gives none."""
        raw = digest(scenario.id, index, tag)
        if self.azure_ids:
            partition = digest(scenario.id, index).hex()[:16]
            return f"{prefix}_{partition}00{base62(raw, 32)}"
        return f"{prefix}_{digest(scenario.id, index).hex()[:16]}{raw.hex()[:34]}"


# --- served items ------------------------------------------------------------------------------
def call_items(flavor: Flavor, scenario: Scenario, index: int, k: int, call: ExpectedCall) -> list[dict[str, Any]]:
    """The output items one declared call is served as (a Foundry tool also serves its output)."""
    item_type = flavor.item_type(call)
    args = dict(call.arguments)
    extra = dict(call.extra)
    items: list[dict[str, Any]] = []
    reasoning = extra.pop("reasoning", None)
    if isinstance(reasoning, dict):
        items.append(
            {
                "id": reasoning["id"],
                "type": "reasoning",
                "encrypted_content": reasoning["encrypted_content"],
                "summary": [],
            }
        )
    item: dict[str, Any] = {"id": call.id if item_type in CONFLATED else call.item_id, "type": item_type}
    if item["id"] is None:
        del item["id"]  # an item the provider gives no id of its own
    if item_type == "function_call":
        item.update(status="completed", arguments=compact(args), call_id=call.id, name=call.name)
        if call.id in SERVED_WITHOUT_NAME.get(scenario.id, ()):
            item["name"] = ""  # the dialect reads such a call under its item type, as the scenario declares it
    elif item_type == "custom_tool_call":
        item.update(status="completed", call_id=call.id, input=str(args.get("input", "")), name=call.name)
    elif item_type == "computer_call":
        item.update(call_id=call.id, action=args, pending_safety_checks=[], status="completed")
    elif item_type in ("local_shell_call", "shell_call"):
        item.update(call_id=call.id, action=args, status="completed")
    elif item_type == "apply_patch_call":
        item.update(call_id=call.id, operation=args, status="completed")
    elif item_type == "tool_search_call":
        item.update(call_id=call.id, execution="client", arguments=args, status="completed")
    elif item_type == "program":
        item.update(call_id=call.id, code=args["code"])
    elif item_type == "mcp_approval_request":
        item.update(arguments=compact(args), name=call.name)
    elif item_type == "web_search_call":
        item.update(status="completed", action=args)
    elif item_type == "file_search_call":
        item.update(status="completed", queries=args["queries"], results=json.loads(call.output))
    elif item_type == "code_interpreter_call":
        container = flavor.new_id("cntr", scenario, index, k)
        item.update(status="completed", container_id=container, code=args["code"])
        item["outputs"] = [{"type": "logs", "logs": call.output}]
    elif item_type == "image_generation_call":
        item.update(status="completed", result=call.output)
    elif item_type == "mcp_call":
        item.update(status="completed", arguments=compact(args), name=call.name, output=call.output, error=None)
    elif item_type == "mcp_list_tools":
        item.update(server_label=args["server_label"], tools=json.loads(call.output))
    elif item_type == "memory_search_call":
        item.update(status="completed", results=json.loads(call.output))
    elif item_type.endswith("_call"):  # a Foundry tool: the call, then its output, both served
        item.update(call_id=call.id, arguments=compact(args), status="completed")
        if item_type in NAMED:
            item["name"] = call.name
        output_type = f"{item_type}_output"
        output_id = extra.pop("output_item_id", None)
        if output_id is None and call.item_id:
            output_id = flavor.new_id(_prefix(call.item_id), scenario, index, k)
        output: dict[str, Any] = {
            "id": output_id,
            "type": output_type,
            "call_id": call.id,
            "status": "completed",
            "output": call.output,
        }
        if item_type in NAMED:
            output["name"] = call.name
        if output_id is None:
            del output["id"]
        item.update(extra)
        return [*items, item, output]
    elif item_type == "structured_outputs":
        item["output"] = json.loads(call.output)
    elif item_type == "workflow_action":
        item.update(status="completed", **args)
    elif item_type == "oauth_consent_request":
        item.update(args)
    item.update(extra)
    return [*items, item]


def _prefix(item_id: str) -> str:
    """The output item's prefix: the call item's, with an o (bg_ -> bgo_)."""
    return f"{item_id.split('_', 1)[0]}o"


def program_outputs(flavor: Flavor, scenario: Scenario, index: int) -> list[dict[str, Any]]:
    """Outputs of programs the previous response ran, now that their calls have been answered."""
    if index == 0:
        return []
    out: list[dict[str, Any]] = []
    for k, call in enumerate(scenario.turns[index - 1].calls):
        if flavor.item_type(call) == "program":
            item_id = call.extra.get("output_item_id") or flavor.new_id("cmo", scenario, index, k)
            out.append(
                {
                    "id": item_id,
                    "type": "program_output",
                    "call_id": call.id,
                    "result": call.output,
                    "status": "completed",
                }
            )
    return out


def served_items(flavor: Flavor, scenario: Scenario, index: int) -> list[dict[str, Any]]:
    turn = scenario.turns[index]
    items = program_outputs(flavor, scenario, index)
    message = (
        [
            {
                "id": flavor.new_id("msg", scenario, index, "message"),
                "type": "message",
                "status": "completed",
                "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": turn.text}],
                "role": "assistant",
            }
        ]
        if turn.text
        else []
    )
    # The message goes before the call it precedes (after that call's reasoning, as a preamble
    # follows the reasoning that led to it); by default after every call.
    before = text_before(turn, "after-calls")
    for k, call in enumerate(turn.calls):
        group = call_items(flavor, scenario, index, k, call)
        if k == before:
            lead = next((n for n, item in enumerate(group) if item["type"] != "reasoning"), len(group))
            group[lead:lead] = message
        items.extend(group)
    if before >= len(turn.calls):
        items.extend(message)
    if flavor.azure_ids:
        # Foundry stamps every output item with the agent and the response that created it.
        refs = {
            "agent_reference": flavor.extra_body.get("agent_reference"),
            "response_id": response_id(flavor, scenario, index),
        }
        items = [{**item, **refs} for item in items]
    return items


def response_id(flavor: Flavor, scenario: Scenario, index: int) -> str:
    if flavor.response_ids is not None:
        return flavor.response_ids(scenario, index)
    return flavor.new_id("caresp" if flavor.azure_ids else "resp", scenario, index, "response")


# --- requests ----------------------------------------------------------------------------------
def output_item(item_type: str, call_id: str | None, output: str) -> dict[str, Any]:
    """The output item a client answers a call with."""
    answer = ANSWERS[item_type]
    try:
        parsed: Any = json.loads(output)
    except ValueError:
        parsed = None
    if answer == "mcp_approval_response":
        return {"type": answer, "approval_request_id": call_id, "approve": parsed is True}
    item: dict[str, Any] = {"type": answer, "call_id": call_id}
    if answer in ("computer_call_output", "shell_call_output"):
        item["output"] = parsed
    elif answer == "apply_patch_call_output":
        item.update(status="completed", output=output)
    elif answer == "tool_search_output":
        item.update(execution="client", tools=parsed)
    else:
        item["output"] = output
    return item


def replayed(flavor: Flavor, item: dict[str, Any]) -> dict[str, Any] | None:
    if item["type"] == "message":
        return {"role": "assistant", "content": "".join(c["text"] for c in item["content"])}
    if item["type"] in flavor.output_only:
        return None
    if item["type"] == "function_call" and not item.get("name"):
        # Served without a name (a gateway's fault): an empty name is refused on input, so the call
        # goes back under the placeholder the reference codec gives it, its item type.
        return {**item, "name": item["type"]}
    return item


def tool_declarations(flavor: Flavor, scenario: Scenario) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    for tool in scenario.tools:
        if tool.get("type") == "custom":
            tools.append({"type": "custom", "name": tool["name"], "description": tool.get("description", "")})
        else:
            tools.append(
                {
                    "type": "function",
                    "name": tool["name"],
                    "description": tool.get("description", ""),
                    "parameters": tool["parameters"],
                }
            )
    seen: set[str] = set()
    for turn in scenario.turns:
        for call in turn.calls:
            item_type = flavor.item_type(call)
            if item_type in HOSTED_TOOLS and item_type not in seen:
                seen.add(item_type)
                tools.append(HOSTED_TOOLS[item_type])
            label = call.extra.get("server_label")
            if item_type in ("mcp_call", "mcp_approval_request", "mcp_list_tools") and "mcp" not in seen:
                seen.add("mcp")
                server = label or call.arguments.get("server_label")
                tools.append(
                    {
                        "type": "mcp",
                        "server_label": server,
                        "server_url": f"https://mcp.{server}.com/mcp",
                        "require_approval": "always",
                    }
                )
    return tools


def _answers(flavor: Flavor, scenario: Scenario, index: int) -> list[dict[str, Any]]:
    """The output items a client sends for turn `index`'s calls: the tools' outputs, and for a run
    cut off before a tool answered, the repair a correct client makes before the next run."""
    calls = [c for c in scenario.turns[index].calls if not c.provider_executed]
    answered = [c for c in calls if not c.interrupted]
    if scenario.answer_order == "reversed":
        answered.reverse()
    out = [output_item(flavor.item_type(c), c.id, c.output) for c in answered]
    return out + [output_item(flavor.item_type(c), c.id, INTERRUPTED) for c in calls if c.interrupted]


def _prompt(scenario: Scenario, index: int) -> list[dict[str, Any]]:
    """The user message that opens a new run of the session before response `index`, if one does."""
    turn = scenario.turns[index] if index < len(scenario.turns) else None
    return [{"role": "user", "content": turn.prompt}] if turn and turn.prompt else []


def continued_request(flavor: Flavor, scenario: Scenario, upto: int) -> dict[str, Any]:
    """The request a client of a stored session sends: it continues the last response by its id and
    sends only what came after it (the outputs of its calls, a new run's prompt)."""
    if upto == 0:
        items: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}, *_prompt(scenario, 0)]
        body: dict[str, Any] = {"model": scenario.model, **flavor.extra_request, "input": items, "store": True}
    else:
        items = [*_answers(flavor, scenario, upto - 1), *_prompt(scenario, upto)]
        body = {"model": scenario.model, **flavor.extra_request, "input": items, "store": True}
        body["previous_response_id"] = response_id(flavor, scenario, upto - 1)
    body["tools"] = tool_declarations(flavor, scenario)
    if scenario.stream:
        body["stream"] = True
    return body


def request(flavor: Flavor, scenario: Scenario, upto: int) -> dict[str, Any]:
    """The request a correct, stateless client sends before response `upto`."""
    if (scenario.data.get("session") or {}).get("previous_response_id"):
        return continued_request(flavor, scenario, upto)
    items: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]
    ids = IdMap(flavor.api)
    for turn in prior_turns(scenario):
        if not turn.calls:
            items.append({"role": "assistant", "content": turn.text or ""})
            continue
        # Another API's calls: function calls under ids this API accepts, and no item id.
        client = [c for c in turn.calls if not c.provider_executed]
        mapped = [ids.call(c.id, c.name) for c in client]
        items.extend(
            {"type": "function_call", "call_id": i, "name": c.name, "arguments": compact(c.arguments)}
            for i, c in zip(mapped, client, strict=True)
        )
        answered = list(zip(mapped, client, strict=True))
        if scenario.answer_order == "reversed":
            answered.reverse()
        items.extend({"type": "function_call_output", "call_id": i, "output": c.output} for i, c in answered)
    for index in range(upto):
        items.extend(_prompt(scenario, index))
        for item in served_items(flavor, scenario, index):
            kept = replayed(flavor, item)
            if kept is not None:
                items.append(kept)
        items.extend(_answers(flavor, scenario, index))
    items.extend(_prompt(scenario, upto))
    body: dict[str, Any] = {"model": scenario.model, **flavor.extra_request, "input": items, "store": False}
    body["tools"] = tool_declarations(flavor, scenario)
    if computer_use(body["tools"]):
        body["truncation"] = "auto"
    if scenario.stream:
        body["stream"] = True
    return body


def computer_use(tools: list[dict[str, Any]]) -> bool:
    """The computer use tool needs `truncation: "auto"` (the scenario's sources), and the response echoes it."""
    return any(t["type"] == "computer_use_preview" for t in tools)


# --- responses ---------------------------------------------------------------------------------
def envelope(
    flavor: Flavor, scenario: Scenario, index: int, output: list[dict[str, Any]], done: bool
) -> dict[str, Any]:
    raw = seed(scenario, index)
    usage = {
        "input_tokens": 90 + 45 * index,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": 24,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 114 + 45 * index,
    }
    tools = tool_declarations(flavor, scenario)
    body: dict[str, Any] = {
        "id": response_id(flavor, scenario, index),
        "object": "response",
        "created_at": 1767225600 + int(raw[:6], 16) % 86400,
        "status": "completed" if done else "in_progress",
        "background": False,
        "completed_at": (1767225602 + int(raw[:6], 16) % 86400) if done else None,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "max_output_tokens": None,
        "max_tool_calls": None,
        "model": flavor.model_version(scenario.model),
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "prompt_cache_key": None,
        "reasoning": {"effort": None, "summary": None},
        "safety_identifier": None,
        "service_tier": "default",
        "store": False,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": [{**t, "strict": True} if t["type"] == "function" else t for t in tools],
        "top_logprobs": 0,
        "top_p": 1.0,
        "truncation": "auto" if computer_use(tools) else "disabled",
        "usage": usage if done else None,
        "user": None,
        "metadata": {},
        **flavor.extra_body,
    }
    if (scenario.data.get("session") or {}).get("previous_response_id"):
        # A stored session: the response is kept, and names the one it continues.
        body["store"] = True
        body["previous_response_id"] = response_id(flavor, scenario, index - 1) if index else None
    if flavor.azure_ids:
        # Foundry leaves out what it has no value for (user, and usage until the response is done).
        del body["user"]
        if not done:
            del body["usage"]
    return body


def _opened(item: dict[str, Any]) -> dict[str, Any]:
    """An item as output_item.added announces it: its ids, nothing generated yet."""
    if item["type"] == "message":
        return {**item, "status": "in_progress", "content": []}
    if item["type"] == "function_call":
        return {**item, "status": "in_progress", "arguments": ""}
    if item["type"] == "custom_tool_call":
        return {**item, "status": "in_progress", "input": ""}
    if "status" in item:
        return {**item, "status": "in_progress"}
    return item


def stream_events(flavor: Flavor, scenario: Scenario, index: int, items: list[dict[str, Any]]) -> str:
    events: list[str] = []

    def emit(name: str, data: dict[str, Any]) -> None:
        events.append(sse({"type": name, **data, "sequence_number": len(events)}, name))

    opening = envelope(flavor, scenario, index, [], done=False)
    emit("response.created", {"response": opening})
    emit("response.in_progress", {"response": opening})
    for k, item in enumerate(items):
        emit("response.output_item.added", {"output_index": k, "item": _opened(item)})
        if item["type"] in ("function_call", "custom_tool_call"):
            key, event = (
                ("arguments", "response.function_call_arguments")
                if item["type"] == "function_call"
                else ("input", "response.custom_tool_call_input")
            )
            for piece in split(item[key], stream_shape(scenario).fragments):
                emit(f"{event}.delta", {"item_id": item["id"], "output_index": k, "delta": piece})
            done = {"item_id": item["id"], "output_index": k, key: item[key]}
            if item["type"] == "function_call":
                done["name"] = item["name"]  # the spec added it; openai-python 2.x requires it
            emit(f"{event}.done", done)
        elif item["type"] == "message":
            text = item["content"][0]["text"]
            part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
            where = {"item_id": item["id"], "output_index": k, "content_index": 0}
            emit("response.content_part.added", {**where, "part": part})
            for piece in split(text, 4):
                emit("response.output_text.delta", {**where, "delta": piece, "logprobs": []})
            emit("response.output_text.done", {**where, "text": text, "logprobs": []})
            emit("response.content_part.done", {**where, "part": {**part, "text": text}})
        emit("response.output_item.done", {"output_index": k, "item": item})
    emit("response.completed", {"response": envelope(flavor, scenario, index, items, done=True)})
    return "".join(events)


def build(flavor: Flavor, scenario: Scenario) -> list[dict[str, Any]]:
    interactions = []
    for index in range(len(scenario.turns)):
        items = served_items(flavor, scenario, index)
        if scenario.stream:
            content_type, body = SSE, stream_events(flavor, scenario, index, items)
        else:
            content_type = JSON
            body = json.dumps(envelope(flavor, scenario, index, items, done=True), indent=2, ensure_ascii=False) + "\n"
        interactions.append(
            interaction(flavor.uri, request(flavor, scenario, index), content_type, body, headers=flavor.headers)
        )
    return interactions
