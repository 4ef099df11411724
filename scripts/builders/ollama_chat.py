"""Ollama `/api/chat` responses and requests, in the shapes of ollama's api/types.go: calls with
an optional id and function {index, name, arguments object}; NDJSON streams where each call
arrives whole in a chunk of its own and the last chunk (done: true) carries the timings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from builders.common import JSON, compact, interaction, prior_turns, seed, split
from conformance.corpus.loading import ExpectedCall, Scenario
from conformance.engine.ids import IdMap

API = "ollama-chat"
URI = "http://localhost:11434/api/chat"
NDJSON = "application/x-ndjson"


def _call(call: ExpectedCall, index: int, call_id: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"function": {"index": index, "name": call.name, "arguments": dict(call.arguments)}}
    return {"id": call_id, **entry} if call_id else entry


def _request(scenario: Scenario, upto: int) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]
    ids = IdMap(API)
    prior = prior_turns(scenario)
    for position, turn in enumerate((*prior, *scenario.turns[:upto])):
        if not turn.calls:
            messages.append({"role": "assistant", "content": turn.text or ""})
            continue
        # A call Ollama served without an id goes back without one.
        served = position >= len(prior)
        mapped = [None if served and not c.id else ids.call(c.id, c.name) for c in turn.calls]
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [_call(c, k, i) for k, (i, c) in enumerate(zip(mapped, turn.calls, strict=True))],
            }
        )
        answered = list(zip(mapped, turn.calls, strict=True))
        if scenario.answer_order == "reversed":
            answered.reverse()
        for call_id, call in answered:
            result: dict[str, Any] = {"role": "tool", "content": call.output, "tool_name": call.name}
            if call_id:
                result["tool_call_id"] = call_id
            messages.append(result)
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
    start = datetime(2026, 3, 1, 9, 0, tzinfo=UTC) + timedelta(seconds=int(digest[:5], 16) % 86400)

    def stamp(offset_ms: int) -> str:
        moment = start + timedelta(milliseconds=offset_ms)
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond:06d}{int(digest[5:8], 16) % 1000:03d}Z"

    eval_count = 18 + 9 * len(turn.calls) if turn.calls else 14
    timings = {
        "total_duration": 1_482_000_000 + int(digest[8:12], 16) * 1000,
        "load_duration": 38_000_000 + int(digest[12:15], 16) * 1000,
        "prompt_eval_count": 180 + 40 * index,
        "prompt_eval_duration": 212_000_000,
        "eval_count": eval_count,
        "eval_duration": 1_190_000_000,
    }
    calls = [_call(c, k, c.id) for k, c in enumerate(turn.calls)]
    if not scenario.stream:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or ""}
        if calls:
            message["tool_calls"] = calls
        body = {
            "model": scenario.model,
            "created_at": stamp(1500),
            "message": message,
            "done": True,
            "done_reason": "stop",
            **timings,
        }
        # One line, as Ollama's server writes it (gin's c.JSON): its Go client reads even a
        # non-streamed answer line by line, as NDJSON.
        return f"{JSON}; charset=utf-8", compact(body)
    lines: list[dict[str, Any]] = []
    for k, call in enumerate(calls):
        message = {"role": "assistant", "content": "", "tool_calls": [call]}
        lines.append({"model": scenario.model, "created_at": stamp(600 + 300 * k), "message": message, "done": False})
    if not calls:
        for k, piece in enumerate(split(turn.text or "", 4)):
            message = {"role": "assistant", "content": piece}
            lines.append(
                {"model": scenario.model, "created_at": stamp(400 + 80 * k), "message": message, "done": False}
            )
    done = {"role": "assistant", "content": ""}
    lines.append(
        {"model": scenario.model, "created_at": stamp(1500), "message": done, "done": True, "done_reason": "stop"}
        | timings
    )
    return NDJSON, "".join(compact(line) + "\n" for line in lines)


def build(scenario: Scenario) -> list[dict[str, Any]]:
    interactions = []
    for index in range(len(scenario.turns)):
        content_type, body = _response(scenario, index)
        interactions.append(interaction(URI, _request(scenario, index), content_type, body))
    return interactions
