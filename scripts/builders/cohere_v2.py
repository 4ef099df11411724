"""Cohere chat v2 responses and requests, in the shapes of cohere-python's v2 models: calls with
a tool plan; SSE streams of message-start, tool-plan-delta, tool-call-start/delta/end (by index),
content-start/delta/end and message-end, each named on its `event:` line and in its `type`."""

from __future__ import annotations

import json
import uuid
from typing import Any

from builders.common import JSON, SSE, compact, interaction, prior_turns, seed, split, sse, stream_shape
from conformance.corpus.loading import ExpectedCall, ExpectedTurn, Scenario
from conformance.engine.ids import IdMap

API = "cohere-v2"
URI = "https://api.cohere.com/v2/chat"


def _plan(turn: ExpectedTurn) -> str:
    return f"I will use {' and '.join(dict.fromkeys(c.name for c in turn.calls))} to answer the question."


def _call(call: ExpectedCall, call_id: str | None) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": call.name, "arguments": compact(call.arguments)}}


def _content(output: str) -> list[dict[str, Any]]:
    """A document for a JSON object (Cohere cites documents), a text block otherwise."""
    try:
        parsed = json.loads(output)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        return [{"type": "document", "document": {"data": parsed}}]
    return [{"type": "text", "text": output}]


def _request(scenario: Scenario, upto: int) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]
    ids = IdMap(API)
    for turn in (*prior_turns(scenario), *scenario.turns[:upto]):
        if not turn.calls:
            messages.append({"role": "assistant", "content": turn.text or ""})
            continue
        mapped = [ids.call(c.id, c.name) for c in turn.calls]
        messages.append(
            {
                "role": "assistant",
                "tool_calls": [_call(c, i) for i, c in zip(mapped, turn.calls, strict=True)],
                "tool_plan": _plan(turn),
            }
        )
        answered = list(zip(mapped, turn.calls, strict=True))
        if scenario.answer_order == "reversed":
            answered.reverse()
        messages.extend({"role": "tool", "tool_call_id": i, "content": _content(c.output)} for i, c in answered)
    return {
        "model": scenario.model,
        "messages": messages,
        "tools": [
            {
                "type": "function",
                "function": {"name": t["name"], "description": t.get("description", ""), "parameters": t["parameters"]},
            }
            for t in scenario.tools
        ],
        "stream": scenario.stream,
    }


def _response(scenario: Scenario, index: int) -> tuple[str, str]:
    turn = scenario.turns[index]
    digest = seed(scenario, index)
    response_id = str(uuid.UUID(digest[:32], version=4))
    input_tokens = 1480 + 60 * index
    output_tokens = 24 + 18 * len(turn.calls) if turn.calls else 16
    usage = {
        "billed_units": {"input_tokens": input_tokens - 1420, "output_tokens": output_tokens},
        "tokens": {"input_tokens": input_tokens, "output_tokens": output_tokens + 6},
    }
    finish = "TOOL_CALL" if turn.calls else "COMPLETE"
    if not scenario.stream:
        message: dict[str, Any] = {"role": "assistant"}
        if turn.calls:
            message["tool_plan"] = _plan(turn)
            message["tool_calls"] = [_call(c, c.id) for c in turn.calls]
        else:
            message["content"] = [{"type": "text", "text": turn.text or ""}]
        body = {"id": response_id, "message": message, "finish_reason": finish, "usage": usage}
        return JSON, json.dumps(body, indent=2, ensure_ascii=False) + "\n"

    def event(data: dict[str, Any]) -> str:
        return sse(data, data["type"])

    start = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
    events = [event({"id": response_id, "type": "message-start", "delta": {"message": start}})]
    if turn.calls:
        for piece in split(_plan(turn), 3):
            events.append(event({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": piece}}}))
        for k, call in enumerate(turn.calls):
            opening = {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}
            events.append(event({"type": "tool-call-start", "index": k, "delta": {"message": {"tool_calls": opening}}}))
            for piece in split(compact(call.arguments), stream_shape(scenario).fragments):
                fragment = {"tool_calls": {"function": {"arguments": piece}}}
                events.append(event({"type": "tool-call-delta", "index": k, "delta": {"message": fragment}}))
            events.append(event({"type": "tool-call-end", "index": k}))
    else:
        opening = {"content": {"type": "text", "text": ""}}
        events.append(event({"type": "content-start", "index": 0, "delta": {"message": opening}}))
        for piece in split(turn.text or "", 4):
            content = {"content": {"text": piece}}
            events.append(event({"type": "content-delta", "index": 0, "delta": {"message": content}}))
        events.append(event({"type": "content-end", "index": 0}))
    events.append(event({"type": "message-end", "delta": {"finish_reason": finish, "usage": usage}}))
    return SSE, "".join(events)


def build(scenario: Scenario) -> list[dict[str, Any]]:
    interactions = []
    for index in range(len(scenario.turns)):
        content_type, body = _response(scenario, index)
        interactions.append(interaction(URI, _request(scenario, index), content_type, body))
    return interactions
