"""Kimi (Moonshot) chat completions responses and requests: the OpenAI Chat shapes Moonshot
documents (its guide drives the API with the OpenAI SDK), with `functions.{name}:{index}` ids and
tool messages that name their function."""

from __future__ import annotations

import json
from typing import Any

from builders.common import JSON, SSE, compact, interaction, seed, split, stream_shape
from builders.mistral_chat import arguments, chat_request
from conformance.corpus.loading import Scenario

API = "kimi-chat"
URI = "https://api.moonshot.ai/v1/chat/completions"


def _response(scenario: Scenario, index: int) -> tuple[str, str]:
    turn = scenario.turns[index]
    digest = seed(scenario, index)
    completion_id = f"chatcmpl-{digest[:24]}"
    created = 1767225600 + int(digest[:6], 16) % 86400
    finish = "tool_calls" if turn.calls else "stop"
    if not scenario.stream:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or ""}
        if turn.calls:
            message["tool_calls"] = [
                {"index": k, "id": c.id, "type": "function", "function": {"name": c.name, "arguments": arguments(c)}}
                for k, c in enumerate(turn.calls)
            ]
        prompt_tokens = 96 + 40 * index
        body = {
            "id": completion_id,
            "object": "chat.completion",
            "created": created,
            "model": scenario.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 21, "total_tokens": prompt_tokens + 21},
        }
        return JSON, json.dumps(body, indent=2, ensure_ascii=False) + "\n"

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        data = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": scenario.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
        return f"data: {compact(data)}\n\n"

    events = [chunk({"role": "assistant", "content": ""})]
    for k, call in enumerate(turn.calls):
        opening = {"index": k, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}
        events.append(chunk({"tool_calls": [opening]}))
        for piece in split(arguments(call), stream_shape(scenario).fragments):
            events.append(chunk({"tool_calls": [{"index": k, "function": {"arguments": piece}}]}))
    if not turn.calls and turn.text:
        events.extend(chunk({"content": piece}) for piece in split(turn.text, 4))
    events.append(chunk({}, finish))
    events.append("data: [DONE]\n\n")
    return SSE, "".join(events)


def build(scenario: Scenario) -> list[dict[str, Any]]:
    interactions = []
    for index in range(len(scenario.turns)):
        content_type, body = _response(scenario, index)
        interactions.append(interaction(URI, chat_request(scenario, index, API), content_type, body))
    return interactions
