"""Gemini Interactions over HTTP: `POST /{version}/interactions` (google-genai 3.6.1 sends `v1beta`).

`"stream": true` in the body asks for named server-sent events (`interaction.created`, then
`step.start` / `step.delta` / `step.stop` for each step, then `interaction.completed`), whose data
carry `event_type`. A request may continue an interaction the server stored
(`previous_interaction_id`): its input and steps come before the new input. SDKs also fetch a
stored interaction (`GET /{version}/interactions/{id}`) and delete one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from conformance.replay.transports.base import (
    Answer,
    Earlier,
    Framing,
    ProviderTransport,
    ReframeError,
    Request,
    Route,
    StreamEvent,
    events_in,
    sse_frame,
)

API = "gemini-interactions"
_TURN = re.compile(r"/interactions/?$")
_STORED = re.compile(r"/interactions/([^/:]+)/?$")
_CONTENT_TYPES = ("text", "image", "audio", "document", "video")


class GeminiInteractions(ProviderTransport):
    api = API
    provider_hosts: tuple[str, ...] = ("generativelanguage.googleapis.com",)

    def route(self, request: Request) -> Route | None:
        path = request.path
        if _TURN.search(path) and request.method == "POST":
            body = request.json()
            stream = isinstance(body, dict) and body.get("stream") is True
            return Route("turn", stream=stream, framing="sse" if stream else "json")
        if _STORED.search(path) and request.method in ("GET", "DELETE"):
            return Route("side", side="interaction" if request.method == "GET" else "delete-interaction")
        return None

    def side_answer(self, route: Route, request: Request, model: str, earlier: Sequence[Earlier]) -> Answer:
        match = _STORED.search(request.path)
        wanted = match.group(1) if match else ""
        stored = next((e.response for e in earlier if _id(e.response) == wanted), None)
        if stored is None:
            return self.error(404, f"Interaction {wanted} not found.")
        if route.side == "delete-interaction":
            return Answer.json(200, {})
        return Answer.json(200, stored)

    def body_of(self, payload: Mapping[str, Any]) -> Any:
        if not payload.get("stream"):
            return payload.get("body")
        events = [e.data for e in events_in(payload) if isinstance(e.data, dict)]
        envelope: dict[str, Any] = {}
        for data in events:
            interaction = data.get("interaction")
            if data.get("event_type") in ("interaction.created", "interaction.completed") and isinstance(
                interaction, dict
            ):
                envelope.update(interaction)
        envelope["steps"] = stream_steps(events)
        envelope.setdefault("status", "incomplete")
        return envelope

    def events_of(self, body: Any) -> list[StreamEvent]:
        if not isinstance(body, dict) or not isinstance(body.get("steps"), list):
            raise ReframeError("an interaction without a steps list cannot be streamed")
        return stream_of(body)

    def frame(self, events: Sequence[StreamEvent], framing: Framing) -> tuple[str, bytes]:
        return sse_frame(self.api, events, framing)

    def reconstruct(self, body: Any, earlier: Sequence[Earlier]) -> Any:
        if not isinstance(body, dict):
            return body
        previous = body.get("previous_interaction_id")
        if not isinstance(previous, str) or not previous:
            return body
        before = next((e for e in earlier if _id(e.response) == previous), None)
        if before is None:
            return body  # an interaction this replay never served: the dialect sees the continuation
        held = steps_of_input(before.request) + _served_steps(before.response)
        full = {k: v for k, v in body.items() if k != "previous_interaction_id"}
        full["input"] = held + steps_of_input(body)
        return full


def _id(response: Any) -> Any:
    return response.get("id") if isinstance(response, dict) else None


def steps_of_input(body: Any) -> list[Any]:
    """A request's input as a list of steps (a string, a content or a list of contents is one user turn)."""
    value = body.get("input") if isinstance(body, dict) else None
    if isinstance(value, str):
        return [{"type": "user_input", "content": [{"type": "text", "text": value}]}]
    if isinstance(value, dict):
        return [{"type": "user_input", "content": [value]}]
    if not isinstance(value, list):
        return []
    if value and all(isinstance(v, dict) and v.get("type") in _CONTENT_TYPES for v in value):
        return [{"type": "user_input", "content": list(value)}]
    return list(value)


def _served_steps(response: Any) -> list[Any]:
    steps = response.get("steps") if isinstance(response, dict) else None
    return (
        [s for s in steps if not (isinstance(s, dict) and s.get("type") == "user_input")]
        if isinstance(steps, list)
        else []
    )


def stream_steps(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The steps a stream's `step.start` and `step.delta` events build, in index order."""
    steps: dict[int, dict[str, Any]] = {}
    pieces: dict[int, list[str]] = {}
    texts: dict[int, list[str]] = {}
    for data in events:
        index = data.get("index")
        if not isinstance(index, int):
            continue
        if data.get("event_type") == "step.start" and isinstance(data.get("step"), dict):
            steps[index] = dict(data["step"])
        elif data.get("event_type") == "step.delta" and index in steps and isinstance(data.get("delta"), dict):
            delta = data["delta"]
            kind = delta.get("type")
            if kind == "arguments_delta" and isinstance(delta.get("arguments"), str):
                pieces.setdefault(index, []).append(delta["arguments"])
            elif kind == "text" and isinstance(delta.get("text"), str):
                texts.setdefault(index, []).append(delta["text"])
            elif kind == "thought_signature" and delta.get("signature") is not None:
                steps[index]["signature"] = delta["signature"]
            elif kind == steps[index].get("type"):
                steps[index].update({k: v for k, v in delta.items() if k != "type"})
    out: list[dict[str, Any]] = []
    for index in sorted(steps):
        step = steps[index]
        if index in pieces:
            joined = "".join(pieces[index])
            try:
                step["arguments"] = json.loads(joined)
            except ValueError:
                step["arguments"] = joined
        if index in texts:
            step["content"] = [*(step.get("content") or []), {"type": "text", "text": "".join(texts[index])}]
        out.append(step)
    return out


def _opened(step: dict[str, Any]) -> dict[str, Any]:
    """A step as `step.start` announces it, before its deltas."""
    kind = step.get("type")
    if kind == "function_call":
        return {**step, "arguments": {}}
    if kind == "model_output":
        return {**step, "content": []}
    if kind == "thought":
        return {k: v for k, v in step.items() if k != "signature"}
    return step


def _emptied(value: Any) -> Any:
    return type(value)() if isinstance(value, list | dict | str) else None


def _server_delta(step: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """A server step opened empty, and the delta of its own type that fills it (its arguments or
    result, and its signature); None for a step with neither."""
    filled = next((k for k in ("arguments", "result") if k in step), None)
    if filled is None:
        return None
    opened = {k: v for k, v in step.items() if k != "signature"}
    opened[filled] = _emptied(step[filled])
    delta = {"type": step["type"], filled: step[filled]}
    if step.get("signature") is not None:
        delta["signature"] = step["signature"]
    return opened, delta


def stream_of(body: Mapping[str, Any], fragments: int = 1, server_deltas: bool = False) -> list[StreamEvent]:
    """The events a server streams an interaction as; `fragments` pieces of each call's arguments;
    with `server_deltas`, each server step opened empty and filled by a delta of its own type (the
    SDK's <Tool>CallDelta and <Tool>ResultDelta), else served whole in its step.start."""
    events: list[StreamEvent] = []

    def emit(name: str, data: dict[str, Any]) -> None:
        events.append(StreamEvent(name, {**data, "event_type": name}))

    opening = {k: v for k, v in body.items() if k in ("id", "object", "model", "created")}
    emit("interaction.created", {"interaction": {**opening, "status": "in_progress"}})
    steps = [s for s in body["steps"] if not (isinstance(s, dict) and s.get("type") == "user_input")]
    for index, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        kind = step.get("type")
        split = (
            _server_delta(step) if server_deltas and kind not in ("function_call", "model_output", "thought") else None
        )
        emit("step.start", {"index": index, "step": split[0] if split else _opened(step)})
        if split:
            emit("step.delta", {"index": index, "delta": split[1]})
        elif kind == "function_call":
            text = json.dumps(step.get("arguments") or {}, separators=(",", ":"), ensure_ascii=False)
            size = -(-len(text) // max(1, fragments))
            for k in range(0, len(text), size):
                emit(
                    "step.delta",
                    {"index": index, "delta": {"type": "arguments_delta", "arguments": text[k : k + size]}},
                )
        elif kind == "model_output":
            for part in step.get("content") or []:
                if isinstance(part, dict) and part.get("type") == "text":
                    emit("step.delta", {"index": index, "delta": {"type": "text", "text": part.get("text", "")}})
        elif kind == "thought" and step.get("signature") is not None:
            emit("step.delta", {"index": index, "delta": {"type": "thought_signature", "signature": step["signature"]}})
        emit("step.stop", {"index": index})
    closing = {k: v for k, v in body.items() if k not in ("steps", "input")}
    emit("interaction.completed", {"interaction": closing})
    return events
