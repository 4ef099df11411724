"""Anthropic Messages responses and requests, in the shapes of the API reference and SDK types.

A call's `extra.thinking` holds the thinking blocks (each with its signature) the model wrote before
the response's calls: they open the response's content (streamed as thinking_delta, then one
signature_delta), the request turns extended thinking on, and a correct client sends them back
unchanged at the start of the assistant message.

Server-tool calls carry their result block right after them, in the same content, with the
scenario's `output` (JSON) as the block's `content`. The one exception is programmatic tool
calling: a code-execution call whose code issued client calls (their `caller.tool_id` names it)
waits for their results, so its result block opens the first later response that issues no call
from it.
"""

from __future__ import annotations

import json
from typing import Any

from builders.common import JSON, SSE, compact, interaction, prior_turns, seed, split, sse, stream_shape, text_before
from conformance.corpus.loading import ExpectedCall, ExpectedTurn, Scenario
from conformance.engine.ids import IdMap
from conformance.reference.session import INTERRUPTED

API = "anthropic-messages"
URI = "https://api.anthropic.com/v1/messages"
CALL_BLOCKS = {
    f"{API}/ToolUseBlock": "tool_use",
    f"{API}/ServerToolUseBlock": "server_tool_use",
    f"{API}/MCPToolUseBlock": "mcp_tool_use",
    f"{API}/MCPToolListingBlock": "mcp_tool_listing",
}
# server tool name -> the block carrying its result
RESULT_BLOCKS = {
    "web_search": "web_search_tool_result",
    "web_fetch": "web_fetch_tool_result",
    "code_execution": "code_execution_tool_result",
    "bash_code_execution": "bash_code_execution_tool_result",
    "text_editor_code_execution": "text_editor_code_execution_tool_result",
    "tool_search_tool_regex": "tool_search_tool_result",
    "tool_search_tool_bm25": "tool_search_tool_result",
    "advisor": "advisor_tool_result",
}
# server tool name -> the tool definition that enables it
SERVER_TOOLS: dict[str, dict[str, Any]] = {
    "web_search": {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
    "web_fetch": {"type": "web_fetch_20250910", "name": "web_fetch", "max_uses": 3},
    "code_execution": {"type": "code_execution_20250825", "name": "code_execution"},
    "bash_code_execution": {"type": "code_execution_20250825", "name": "code_execution"},
    "text_editor_code_execution": {"type": "code_execution_20250825", "name": "code_execution"},
    "tool_search_tool_regex": {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
    "tool_search_tool_bm25": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    "advisor": {"type": "advisor_20260301", "name": "advisor", "model": "claude-opus-4-6"},
}
# what a request must announce to use these blocks
BETAS = {
    "mcp_tool_use": "mcp-client-2025-04-04",
    "advisor": "advisor-tool-2026-03-01",
    "caller": "advanced-tool-use-2025-11-20",
}
CODE_EXECUTION = {"code_execution", "bash_code_execution", "text_editor_code_execution"}
THINKING = "thinking"  # the call extra holding the thinking blocks before the response's calls
THINKING_BUDGET = 2048  # budget_tokens of the extended thinking a request turns on (below max_tokens)
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _base62(hexdigest: str, length: int) -> str:
    number, out = int(hexdigest, 16), list[str]()
    while len(out) < length:
        number, digit = divmod(number, 62)
        out.append(_BASE62[digit])
    return "".join(out)


def _kind(call: ExpectedCall) -> str:
    return CALL_BLOCKS.get(call.wire_type or "", "server_tool_use" if call.provider_executed else "tool_use")


def _caller_of(call: ExpectedCall) -> str | None:
    caller = call.extra.get("caller")
    return caller.get("tool_id") if isinstance(caller, dict) else None


def _deferred(scenario: Scenario) -> dict[int, list[ExpectedCall]]:
    """Turn index -> the code-execution calls of earlier turns whose results that turn serves."""
    out: dict[int, list[ExpectedCall]] = {}
    for t, turn in enumerate(scenario.turns):
        for call in turn.calls:
            if call.id is None or not any(_caller_of(c) == call.id for c in turn.calls):
                continue
            later = next(
                (
                    k
                    for k in range(t + 1, len(scenario.turns))
                    if all(_caller_of(c) != call.id for c in scenario.turns[k].calls)
                ),
                None,
            )
            if later is not None:
                out.setdefault(later, []).append(call)
    return out


def _result_block(call: ExpectedCall) -> dict[str, Any]:
    if _kind(call) == "mcp_tool_use":
        return {
            "type": "mcp_tool_result",
            "tool_use_id": call.id,
            "is_error": False,
            "content": json.loads(call.output),
        }
    return {"type": RESULT_BLOCKS[call.name], "tool_use_id": call.id, "content": json.loads(call.output)}


def _call_block(call: ExpectedCall) -> dict[str, Any]:
    if _kind(call) == "mcp_tool_listing":  # no id, no name: the server it asked, and what it listed (the output)
        return {"type": "mcp_tool_listing", **dict(call.arguments), "tools": json.loads(call.output)}
    block: dict[str, Any] = {"type": _kind(call), "id": call.id, "name": call.name, "input": dict(call.arguments)}
    block.update((k, v) for k, v in call.extra.items() if k != THINKING)
    return block


def _thinking(turn: ExpectedTurn) -> list[dict[str, Any]]:
    """The thinking blocks the turn's response opens with, as the model wrote them."""
    return [dict(block) for call in turn.calls for block in call.extra.get(THINKING, ())]


def _content(scenario: Scenario, index: int) -> list[dict[str, Any]]:
    """The content blocks of response `index`, as served."""
    turn = scenario.turns[index]
    deferred = _deferred(scenario)
    blocks = [*_thinking(turn), *(_result_block(c) for c in deferred.get(index, []))]
    text = [{"type": "text", "text": turn.text}] if turn.text else []
    at = text_before(turn)
    waiting = {c.id for calls in deferred.values() for c in calls}
    for k, call in enumerate(turn.calls):
        if k == at:
            blocks += text
        blocks.append(_call_block(call))
        if call.provider_executed and call.id not in waiting and _kind(call) != "mcp_tool_listing":
            blocks.append(_result_block(call))
    if at >= len(turn.calls):
        blocks += text
    return blocks


def _history_turn(turn: ExpectedTurn, ids: IdMap, reverse: bool) -> list[dict[str, Any]]:
    """A turn played on another API, as a correct client replays it here."""
    calls = [c for c in turn.calls if not c.provider_executed]  # another provider's server tools have no form here
    content: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
    content += [
        {"type": "tool_use", "id": ids.call(c.id, c.name), "name": c.name, "input": dict(c.arguments)} for c in calls
    ]
    answered = list(reversed(calls)) if reverse else calls
    results = [{"type": "tool_result", "tool_use_id": ids.result(c.id, c.name), "content": c.output} for c in answered]
    return [{"role": "assistant", "content": content}, {"role": "user", "content": results}]


def _own_turn(scenario: Scenario, index: int, ids: IdMap) -> list[dict[str, Any]]:
    content = _content(scenario, index)
    for block in content:
        if block["type"] in CALL_BLOCKS.values() and "id" in block:
            block["id"] = ids.call(block["id"], block["name"])
        elif "tool_use_id" in block:
            block["tool_use_id"] = ids.result(block["tool_use_id"]) or block["tool_use_id"]
    client = [c for c in scenario.turns[index].calls if not c.provider_executed and not c.interrupted]
    if scenario.answer_order == "reversed":
        client.reverse()
    results = [{"type": "tool_result", "tool_use_id": ids.result(c.id, c.name), "content": c.output} for c in client]
    # A run cut off before a tool answered: the repair a correct client makes before the next run.
    results += [
        {"type": "tool_result", "tool_use_id": ids.result(c.id, c.name), "content": INTERRUPTED}
        for c in scenario.turns[index].calls
        if c.interrupted
    ]
    messages = [{"role": "assistant", "content": content}]
    if results:
        messages.append({"role": "user", "content": results})
    return messages


def _all_calls(scenario: Scenario) -> list[ExpectedCall]:
    return [c for t in scenario.turns for c in t.calls]


def _tools(scenario: Scenario) -> list[dict[str, Any]]:
    programmatic = {c.name for c in _all_calls(scenario) if _caller_of(c)}
    referenced = {
        ref.get("tool_name")
        for c in _all_calls(scenario)
        if c.name.startswith("tool_search_tool_")
        for ref in json.loads(c.output).get("tool_references", [])
    }
    # A toolset is one tools entry with no name (browser_toolset_20260801); its members are not declared one by one.
    toolsets = {c.name: str(c.extra["toolset_name"]) for c in _all_calls(scenario) if c.extra.get("toolset_name")}
    tools: list[dict[str, Any]] = []
    for spec in scenario.tools:
        if spec["name"] in toolsets:
            entry = {"type": f"{toolsets[spec['name']]}_toolset_20260801"}
            if entry not in tools:
                tools.append(entry)
            continue
        tool: dict[str, Any] = {
            "name": spec["name"],
            "description": spec.get("description", ""),
            "input_schema": spec["parameters"],
        }
        if spec["name"] in programmatic:
            tool["allowed_callers"] = ["code_execution_20250825"]
        if spec["name"] in referenced:
            tool["defer_loading"] = True
        tools.append(tool)
    for name in dict.fromkeys(c.name for c in _all_calls(scenario) if _kind(c) == "server_tool_use"):
        definition = SERVER_TOOLS[name]
        if definition not in tools:
            tools.append(dict(definition))
    return tools


def _betas(scenario: Scenario) -> list[str]:
    calls = _all_calls(scenario)
    wanted = []
    if any(_kind(c) == "mcp_tool_use" for c in calls):
        wanted.append(BETAS["mcp_tool_use"])
    if any(c.name == "advisor" for c in calls):
        wanted.append(BETAS["advisor"])
    if any(_caller_of(c) for c in calls):
        wanted.append(BETAS["caller"])
    return wanted


def _request(scenario: Scenario, upto: int) -> dict[str, Any]:
    """The request a correct client sends before response `upto`."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": scenario.prompt}]}]
    ids = IdMap(API)
    for turn in prior_turns(scenario):
        messages.extend(_history_turn(turn, ids, scenario.answer_order == "reversed"))
    for index in range(upto + 1):
        prompt = scenario.turns[index].prompt if index < len(scenario.turns) else None
        if prompt:  # a new run of the session: joins the results' user message, as one user turn
            block = {"type": "text", "text": prompt}
            if messages[-1]["role"] == "user":
                messages[-1]["content"].append(block)
            else:
                messages.append({"role": "user", "content": [block]})
        if index < upto:
            messages.extend(_own_turn(scenario, index, ids))
    body: dict[str, Any] = {
        "model": scenario.model,
        "max_tokens": 4096,
        "messages": messages,
        "tools": _tools(scenario),
    }
    servers = {c.extra["server_name"] for c in _all_calls(scenario) if _kind(c) == "mcp_tool_use"}
    if servers:
        body["mcp_servers"] = [
            {"type": "url", "url": f"https://mcp.example.com/{name}/sse", "name": name} for name in sorted(servers)
        ]
    container = _container(scenario)
    if container and upto and any(_caller_of(c) for c in _all_calls(scenario)):
        body["container"] = container["id"]  # programmatic calls resume the code in the same container
    if any(_thinking(t) for t in scenario.turns):
        body["thinking"] = {"type": "enabled", "budget_tokens": THINKING_BUDGET}
    if scenario.stream:
        body["stream"] = True
    return body


def _container(scenario: Scenario) -> dict[str, Any] | None:
    """The code-execution container every response of the scenario runs in, if it uses one."""
    if not any(c.name in CODE_EXECUTION for c in _all_calls(scenario)):
        return None
    digest = seed(scenario, 0)
    return {"id": f"container_011C{_base62(digest[32:], 20)}", "expires_at": "2026-08-03T12:26:00.000000Z"}


def _usage(scenario: Scenario, index: int, content: list[dict[str, Any]]) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "input_tokens": 410 + 160 * index,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 24 + 22 * len(content),
        "service_tier": "standard",
    }
    searches = sum(1 for b in content if b["type"] == "web_search_tool_result")
    fetches = sum(1 for b in content if b["type"] == "web_fetch_tool_result")
    if searches or fetches:
        usage["server_tool_use"] = {"web_search_requests": searches, "web_fetch_requests": fetches}
    return usage


def _response(scenario: Scenario, index: int) -> tuple[str, str]:
    digest = seed(scenario, index)
    content = _content(scenario, index)
    client_calls = [c for c in scenario.turns[index].calls if not c.provider_executed]
    stop = "tool_use" if client_calls else "end_turn"
    message: dict[str, Any] = {
        "id": f"msg_01{_base62(digest, 22)}",
        "type": "message",
        "role": "assistant",
        "model": scenario.model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": _usage(scenario, index, content),
    }
    container = _container(scenario)
    if container:
        message["container"] = container
    if not scenario.stream:
        return JSON, json.dumps(message, indent=2, ensure_ascii=False) + "\n"
    return SSE, _stream(message, stream_shape(scenario).fragments)


def _stream(message: dict[str, Any], fragments: int = 3) -> str:
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None}
    start["usage"] = {**message["usage"], "output_tokens": 1}
    start.pop("container", None)
    events = [sse({"type": "message_start", "message": start}, "message_start")]
    for index, block in enumerate(message["content"]):
        opening = dict(block)
        if block["type"] == "text":
            opening["text"] = ""
        elif block["type"] == "thinking":
            opening.update(thinking="", signature="")
        elif "input" in block:
            opening["input"] = {}
        events.append(
            sse({"type": "content_block_start", "index": index, "content_block": opening}, "content_block_start")
        )
        if index == 0:
            events.append(sse({"type": "ping"}, "ping"))
        for delta in _deltas(block, fragments):
            events.append(sse({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta"))
        events.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    final: dict[str, Any] = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    if "container" in message:
        final["container"] = message["container"]
    usage = {k: v for k, v in message["usage"].items() if k != "service_tier"}
    events.append(sse({"type": "message_delta", "delta": final, "usage": usage}, "message_delta"))
    events.append(sse({"type": "message_stop"}, "message_stop"))
    return "".join(events)


def _deltas(block: dict[str, Any], fragments: int = 3) -> list[dict[str, Any]]:
    if block["type"] == "text":
        return [{"type": "text_delta", "text": piece} for piece in split(block["text"], 3)]
    if block["type"] == "thinking":
        thought = [{"type": "thinking_delta", "thinking": piece} for piece in split(block["thinking"], 3)]
        return [*thought, {"type": "signature_delta", "signature": block["signature"]}]
    if "input" not in block:
        return []  # result blocks arrive whole
    # An empty fragment first (recorded streams send one even for an empty input), then the JSON in pieces.
    pieces = ["", *split(compact(block["input"]), fragments)] if block["input"] else [""]
    return [{"type": "input_json_delta", "partial_json": piece} for piece in pieces]


def build(scenario: Scenario) -> list[dict[str, Any]]:
    headers = {"anthropic-version": "2023-06-01"}
    betas = _betas(scenario)
    if betas:
        headers["anthropic-beta"] = ",".join(betas)
    uri = f"{URI}?beta=true" if betas else URI
    interactions = []
    for index in range(len(scenario.turns)):
        content_type, body = _response(scenario, index)
        interactions.append(interaction(uri, _request(scenario, index), content_type, body, headers=headers))
    return interactions
