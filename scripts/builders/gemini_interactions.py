"""Gemini Interactions responses and requests (generativelanguage.googleapis.com/v1beta/interactions), in
the shapes of google-genai 3.6.1's models (Interaction, its Step union, InteractionSSEStreamEvent).

A response is the Interaction: its `id` (`v1_...`), `status` (`requires_action` while a function call
waits for its result, else `completed`), the `steps` the model produced, and `usage`. A stream is
named server-sent events: `interaction.created`, then `step.start` / `step.delta` / `step.stop` per
step (a function call opens with empty arguments, which `arguments_delta` pieces then carry as JSON
text), then `interaction.completed`.

Requests are what a correct client sends: the history as steps on every request (`store: false`):
the prompt as a `user_input` step; each served step as it came (server steps with their ids and
signatures); one `function_result` per function call, with the call's `name`; the model's text as a
`model_output` step. With `session.previous_response_id` the client continues the last interaction
by `previous_interaction_id` and sends only the results (`store` left on).
"""

from __future__ import annotations

import base64
import json
from typing import Any

from builders.common import JSON, SSE, compact, interaction, seed, stream_shape
from conformance.corpus.loading import ExpectedCall, ExpectedTurn, Scenario
from conformance.replay.transports.gemini_interactions import stream_of

API = "gemini-interactions"
URI = "https://generativelanguage.googleapis.com/v1beta/interactions"
SERVER_TOOLS: dict[str, dict[str, Any]] = {  # a server call step's type -> the tool a request declares for it
    "code_execution_call": {"type": "code_execution"},
    "url_context_call": {"type": "url_context"},
    "google_search_call": {"type": "google_search"},
    "google_maps_call": {"type": "google_maps"},
    "file_search_call": {"type": "file_search", "file_search_store_names": ["fileSearchStores/handbook-7f3k"]},
    "tool_search_call": {"type": "tool_search"},
    "retrieval_call": {"type": "retrieval", "retrieval_types": ["vertex_ai_search"]},
}
NO_ARGUMENTS = ("file_search_call", "processing_call")  # steps without an arguments field
NO_RESULT = ("file_search_result", "processing_result", "retrieval_result")  # steps without a result field


def _result_type(call_type: str) -> str:
    return call_type[: -len("_call")] + "_result"


# The MCP servers of the scenarios that call one (the scenario format has no field for them), by
# scenario id: a provider-run call whose name is no server step type is a tool of this server.
MCP_SERVERS = {
    "gemini-interactions/server-steps-beside-call": {"name": "dice", "url": "https://mcp.example.com/dice"},
}
SERVER_STEP_TYPES = (*SERVER_TOOLS, "processing_call", "mcp_server_tool_call")
# Streams whose server steps open empty and are filled by a delta of their own type (the scenario
# format has no field for it), by scenario id; other streams serve server steps whole in step.start.
SERVER_DELTAS = {"gemini-interactions/streamed-server-step-deltas"}


def _server_type(call: ExpectedCall) -> str:
    """The call step's type: the call's name, or `mcp_server_tool_call` for a tool of an MCP server."""
    return call.name if call.name in SERVER_STEP_TYPES else "mcp_server_tool_call"


def _server_steps(scenario: Scenario, call: ExpectedCall) -> list[dict[str, Any]]:
    """A server call step and its result step, in the order the provider serves them."""
    step_type = _server_type(call)
    signature = call.extra.get("signature")
    step: dict[str, Any] = {"type": step_type, "id": call.id}
    result: dict[str, Any] = {"type": _result_type(step_type), "call_id": call.id}
    if step_type == "mcp_server_tool_call":
        server = MCP_SERVERS[scenario.id]["name"]
        step.update(name=call.name, server_name=server)
        result.update(name=call.name, server_name=server)
    if step_type not in NO_ARGUMENTS:
        step["arguments"] = dict(call.arguments)
    if signature:
        step["signature"] = signature
    if result["type"] not in NO_RESULT:
        result["result"] = json.loads(call.output)
    if signature and step_type != "mcp_server_tool_call":
        result["signature"] = signature  # each step of the pair carries its own; the same bytes here
    return [step, result]


def _model_steps(scenario: Scenario, turn: ExpectedTurn) -> list[dict[str, Any]]:
    if not turn.calls:
        return [{"type": "model_output", "content": [{"type": "text", "text": turn.text or ""}]}]
    steps: list[dict[str, Any]] = []
    for call in turn.calls:
        if call.provider_executed:
            steps.extend(_server_steps(scenario, call))
        else:
            step = {"type": "function_call", "id": call.id, "name": call.name, "arguments": dict(call.arguments)}
            if call.extra.get("signature"):
                step["signature"] = call.extra["signature"]
            steps.append(step)
    if turn.text:
        steps.append({"type": "model_output", "content": [{"type": "text", "text": turn.text}]})
    return steps


def _results(scenario: Scenario, turn: ExpectedTurn) -> list[dict[str, Any]]:
    answered = list(turn.client_calls)
    if scenario.answer_order == "reversed":
        answered.reverse()
    return [{"type": "function_result", "call_id": c.id, "name": c.name, "result": c.output} for c in answered]


def _tools(scenario: Scenario) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = [
        {"type": "function", "name": t["name"], "description": t.get("description", ""), "parameters": t["parameters"]}
        for t in scenario.tools
    ]
    seen: list[str] = []
    for call in scenario.all_calls():
        if not call.provider_executed:
            continue
        step_type = _server_type(call)
        if step_type == "mcp_server_tool_call":
            server = MCP_SERVERS[scenario.id]
            declared: dict[str, Any] = {"type": "mcp_server", "name": server["name"], "url": server["url"]}
        elif step_type in SERVER_TOOLS:
            declared = dict(SERVER_TOOLS[step_type])
        else:
            continue  # processing steps answer no declared tool
        if compact(declared) not in seen:
            seen.append(compact(declared))
            tools.append(declared)
    return tools


def _user(text: str) -> dict[str, Any]:
    return {"type": "user_input", "content": [{"type": "text", "text": text}]}


def _stateful(scenario: Scenario) -> bool:
    return bool((scenario.data.get("session") or {}).get("previous_response_id"))


def _prompt(scenario: Scenario, index: int) -> list[dict[str, Any]]:
    """The user's message that opens a new run of the session before response `index`, if one does."""
    turn = scenario.turns[index] if index < len(scenario.turns) else None
    return [_user(turn.prompt)] if turn and turn.prompt else []


def _request(scenario: Scenario, upto: int) -> dict[str, Any]:
    """The request a correct client sends before response `upto`."""
    if _stateful(scenario) and upto > 0:
        steps = _results(scenario, scenario.turns[upto - 1]) + _prompt(scenario, upto)
        body: dict[str, Any] = {
            "model": scenario.model,
            "input": steps,
            "previous_interaction_id": _interaction_id(scenario, upto - 1),
        }
    else:
        steps = [_user(scenario.prompt)]
        for index, turn in enumerate(scenario.turns[:upto]):
            steps.extend(_prompt(scenario, index))
            steps.extend(_model_steps(scenario, turn))
            steps.extend(_results(scenario, turn))
        steps.extend(_prompt(scenario, upto))
        body = {"model": scenario.model, "input": steps}
        if not _stateful(scenario):
            body["store"] = False
    body["tools"] = _tools(scenario)
    if scenario.stream:
        body["stream"] = True
    return body


def _interaction_id(scenario: Scenario, index: int) -> str:
    raw = bytes.fromhex(seed(scenario, index)[:48])
    return "v1_" + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _body(scenario: Scenario, index: int) -> dict[str, Any]:
    turn = scenario.turns[index]
    waits = bool(turn.client_calls)
    digest = seed(scenario, index)
    second = int(digest[:4], 16) % 3600
    created = f"2026-11-20T09:{second // 60:02d}:{second % 60:02d}Z"
    tokens = 6 + 7 * len(turn.calls) if turn.calls else max(4, len((turn.text or "").split()) + 2)
    prompt = 96 + 64 * index
    return {
        "id": _interaction_id(scenario, index),
        "object": "interaction",
        "model": scenario.model,
        "status": "requires_action" if waits else "completed",
        "created": created,
        "updated": created,
        "steps": _model_steps(scenario, turn),
        "usage": {"total_input_tokens": prompt, "total_output_tokens": tokens, "total_tokens": prompt + tokens},
    }


def _response(scenario: Scenario, index: int) -> tuple[str, str]:
    body = _body(scenario, index)
    if not scenario.stream:
        return JSON, json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    events = stream_of(body, fragments=stream_shape(scenario).fragments, server_deltas=scenario.id in SERVER_DELTAS)
    return SSE, "".join(f"event: {e.name}\ndata: {compact(e.data)}\n\n" for e in events)


def build(scenario: Scenario) -> list[dict[str, Any]]:
    out = []
    for index in range(len(scenario.turns)):
        content_type, text = _response(scenario, index)
        request = _request(scenario, index)
        out.append(interaction(URI, request, content_type, text))
    return out
