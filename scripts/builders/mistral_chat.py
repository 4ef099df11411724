"""Mistral chat completions responses and requests, in the shapes of mistralai's models and of a
recorded mistral-large-latest exchange (tool_calls entries with id, function and index, no type;
streams that carry each call whole in one delta)."""

from __future__ import annotations

import json
from typing import Any

from builders.common import JSON, SSE, compact, interaction, prior_turns, seed, split
from conformance.corpus.loading import ExpectedCall, Scenario
from conformance.engine.ids import IdMap

API = "mistral-chat"
URI = "https://api.mistral.ai/v1/chat/completions"


def function_tools(scenario: Scenario) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": t["name"], "description": t.get("description", ""), "parameters": t["parameters"]},
        }
        for t in scenario.tools
    ]


def arguments(call: ExpectedCall) -> str:
    # json.dumps' default separators: recorded Mistral and Kimi arguments read '{"city": "Paris"}'.
    return json.dumps(dict(call.arguments), ensure_ascii=False)


def chat_messages(scenario: Scenario, upto: int, api: str) -> list[dict[str, Any]]:
    """The messages a correct client sends before response `upto`: ids mapped into `api`'s grammar
    (kept when it accepts them), results after their calls, naming their function."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]
    ids = IdMap(api)
    for turn in (*prior_turns(scenario), *scenario.turns[:upto]):
        if not turn.calls:
            messages.append({"role": "assistant", "content": turn.text})
            continue
        mapped = [ids.call(c.id, c.name) for c in turn.calls]
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": i, "type": "function", "function": {"name": c.name, "arguments": arguments(c)}}
                    for i, c in zip(mapped, turn.calls, strict=True)
                ],
            }
        )
        answered = list(zip(mapped, turn.calls, strict=True))
        if scenario.answer_order == "reversed":
            answered.reverse()
        messages.extend({"role": "tool", "tool_call_id": i, "name": c.name, "content": c.output} for i, c in answered)
    return messages


def chat_request(scenario: Scenario, upto: int, api: str = API) -> dict[str, Any]:
    """The request a correct client sends before response `upto` (Mistral's layout, which Kimi shares)."""
    body: dict[str, Any] = {
        "model": scenario.model,
        "messages": chat_messages(scenario, upto, api),
        "tools": function_tools(scenario),
    }
    if scenario.stream:
        body["stream"] = True
    return body


def _response(scenario: Scenario, index: int) -> tuple[str, str]:
    turn = scenario.turns[index]
    digest = seed(scenario, index)
    completion_id = digest[:32]
    created = 1769700000 + int(digest[:6], 16) % 86400
    prompt_tokens = 77 + 40 * index
    completion_tokens = 12 + 9 * len(turn.calls) if turn.calls else 29
    usage = {
        "prompt_tokens": prompt_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "completion_tokens": completion_tokens,
    }
    finish = "tool_calls" if turn.calls else "stop"
    calls = [
        {"id": c.id, "function": {"name": c.name, "arguments": arguments(c)}, "index": k}
        for k, c in enumerate(turn.calls)
    ]
    if not scenario.stream:
        message: dict[str, Any] = {"role": "assistant", "tool_calls": calls or None, "content": turn.text or ""}
        body = {
            "id": completion_id,
            "object": "chat.completion",
            "created": created,
            "model": scenario.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        }
        return JSON, json.dumps(body, indent=2, ensure_ascii=False) + "\n"

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        data: dict[str, Any] = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": scenario.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
        if finish_reason:
            data["usage"] = usage
        return f"data: {compact(data)}\n\n"

    events = [chunk({"role": "assistant", "content": ""})]
    if calls:
        events.append(chunk({"tool_calls": calls}, finish))
    else:
        pieces = split(turn.text or "", 4)
        events.extend(chunk({"content": p}) for p in pieces[:-1])
        events.append(chunk({"content": pieces[-1]}, finish))
    events.append("data: [DONE]\n\n")
    return SSE, "".join(events)


def build(scenario: Scenario) -> list[dict[str, Any]]:
    interactions = []
    for index in range(len(scenario.turns)):
        content_type, body = _response(scenario, index)
        interactions.append(interaction(URI, chat_request(scenario, index), content_type, body))
    return interactions
