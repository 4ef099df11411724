"""OpenAI Chat Completions responses and requests, in the shapes of the API reference."""

from __future__ import annotations

import json
from typing import Any

from builders.common import JSON, SSE, compact, interaction, prior_turns, seed, split
from conformance.corpus import Scenario
from conformance.ids import IdMap

API = "openai-chat"


def _chat_request(scenario: Scenario, upto: int) -> dict[str, Any]:
    """The request a correct client sends before response `upto`."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]
    ids = IdMap(API)
    for turn in (*prior_turns(scenario), *scenario.turns[:upto]):
        if not turn.calls:
            messages.append({"role": "assistant", "content": turn.text})
            continue
        mapped = [ids.call(c.id, c.name) for c in turn.calls]
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": i, "type": "function", "function": {"name": c.name, "arguments": compact(c.arguments)}}
                    for i, c in zip(mapped, turn.calls, strict=True)
                ],
            }
        )
        answered = list(zip(mapped, turn.calls, strict=True))
        if scenario.answer_order == "reversed":
            answered.reverse()
        messages.extend({"role": "tool", "tool_call_id": i, "content": c.output} for i, c in answered)
    body: dict[str, Any] = {"model": scenario.model, "messages": messages}
    body["tools"] = [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t.get("description", ""),
                "parameters": t["parameters"],
            },
        }
        for t in scenario.tools
    ]
    if scenario.stream:
        body["stream"] = True
    return body


def _chat_response(scenario: Scenario, index: int) -> tuple[str, str]:
    turn = scenario.turns[index]
    digest = seed(scenario, index)
    completion_id = f"chatcmpl-{digest[:29]}"
    created = 1767225600 + int(digest[:6], 16) % 86400
    model = f"{scenario.model}-2024-07-18" if scenario.model == "gpt-4o-mini" else scenario.model
    finish = "tool_calls" if turn.calls else "stop"
    if not scenario.stream:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text if not turn.calls else None}
        if turn.calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": compact(c.arguments)}}
                for c in turn.calls
            ]
        message["refusal"] = None
        message["annotations"] = []
        body = {
            "id": completion_id,
            "object": "chat.completion",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": {"prompt_tokens": 80 + 40 * index, "completion_tokens": 18, "total_tokens": 98 + 40 * index},
            "service_tier": "default",
            "system_fingerprint": "fp_560af6e559",
        }
        return JSON, json.dumps(body, indent=2, ensure_ascii=False) + "\n"

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        data = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "service_tier": "default",
            "system_fingerprint": "fp_560af6e559",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
        }
        return f"data: {compact(data)}\n\n"

    events = [chunk({"role": "assistant", "content": None if turn.calls else "", "refusal": None})]
    for k, call in enumerate(turn.calls):
        opening = {"index": k, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}
        events.append(chunk({"tool_calls": [opening]}))
        for piece in split(compact(call.arguments)):
            events.append(chunk({"tool_calls": [{"index": k, "function": {"arguments": piece}}]}))
    if not turn.calls and turn.text:
        for piece in split(turn.text, 4):
            events.append(chunk({"content": piece}))
    events.append(chunk({}, finish))
    events.append("data: [DONE]\n\n")
    return SSE, "".join(events)


def build(scenario: Scenario) -> list[dict[str, Any]]:
    interactions = []
    for index in range(len(scenario.turns)):
        content_type, body = _chat_response(scenario, index)
        interactions.append(
            interaction(
                "https://api.openai.com/v1/chat/completions", _chat_request(scenario, index), content_type, body
            )
        )
    return interactions
