"""Cohere chat v2 over HTTP: `POST /v2/chat`; `"stream": true` asks for named server-sent events
(`message-start`, `tool-plan-delta`, `tool-call-start` / `-delta` / `-end` by index,
`content-start` / `-delta` / `-end`, `message-end`).
"""

from __future__ import annotations

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

API = "cohere-v2"
_TURN = re.compile(r"/v2/chat/?$")


class Cohere(ProviderTransport):
    api = API
    provider_hosts: tuple[str, ...] = ("api.cohere.com", "api.cohere.ai")

    def route(self, request: Request) -> Route | None:
        if not _TURN.search(request.path) or request.method != "POST":
            return None
        body = request.json()
        stream = isinstance(body, dict) and body.get("stream") is True
        return Route("turn", stream=stream, framing="sse" if stream else "json")

    def side_answer(self, route: Route, request: Request, model: str, earlier: Sequence[Earlier]) -> Answer:
        return self.error(404, f"Not found: {request.method} {request.path}")

    def body_of(self, payload: Mapping[str, Any]) -> Any:
        if not payload.get("stream"):
            return payload.get("body")
        return _accumulate(events_in(payload))

    def events_of(self, body: Any) -> list[StreamEvent]:
        if not isinstance(body, dict) or not isinstance(body.get("message"), dict):
            raise ReframeError("a Cohere chat response without a message cannot be streamed")
        return _stream(body)

    def frame(self, events: Sequence[StreamEvent], framing: Framing) -> tuple[str, bytes]:
        return sse_frame("Cohere", events, framing)


def _accumulate(events: Sequence[StreamEvent]) -> dict[str, Any]:
    body: dict[str, Any] = {}
    plan: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    texts: dict[int, list[str]] = {}
    for event in events:
        data = event.data if isinstance(event.data, dict) else {}
        kind = data.get("type") or event.name
        delta = data.get("delta") or {}
        message = delta.get("message") or {}
        index = data.get("index", 0)
        if kind == "message-start":
            body["id"] = data.get("id")
        elif kind == "tool-plan-delta" and isinstance(message.get("tool_plan"), str):
            plan.append(message["tool_plan"])
        elif kind == "tool-call-start" and isinstance(message.get("tool_calls"), dict):
            opened = dict(message["tool_calls"])
            opened["function"] = {**(opened.get("function") or {})}
            opened["function"].setdefault("arguments", "")
            calls[index] = opened
        elif kind == "tool-call-delta" and index in calls:
            piece = ((message.get("tool_calls") or {}).get("function") or {}).get("arguments")
            if isinstance(piece, str):
                calls[index]["function"]["arguments"] += piece
        elif kind in ("content-start", "content-delta"):
            piece = (message.get("content") or {}).get("text")
            if isinstance(piece, str):
                texts.setdefault(index, []).append(piece)
        elif kind == "message-end":
            body["finish_reason"] = delta.get("finish_reason")
            if "usage" in delta:
                body["usage"] = delta["usage"]
    out: dict[str, Any] = {"role": "assistant"}
    if plan:
        out["tool_plan"] = "".join(plan)
    if calls:
        out["tool_calls"] = [calls[k] for k in sorted(calls)]
    if texts:
        out["content"] = [{"type": "text", "text": "".join(texts[k])} for k in sorted(texts)]
    return {**body, "message": out}


def _stream(body: dict[str, Any]) -> list[StreamEvent]:
    events: list[StreamEvent] = []

    def emit(name: str, data: dict[str, Any]) -> None:
        events.append(StreamEvent(name, {"type": name, **data}))

    message = body["message"]
    start = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
    emit("message-start", {"id": body.get("id"), "delta": {"message": start}})
    if message.get("tool_plan"):
        emit("tool-plan-delta", {"delta": {"message": {"tool_plan": message["tool_plan"]}}})
    for k, call in enumerate(message.get("tool_calls") or []):
        function = dict(call.get("function") or {})
        arguments = function.get("arguments") or ""
        opening = {**call, "function": {**function, "arguments": ""}}
        emit("tool-call-start", {"index": k, "delta": {"message": {"tool_calls": opening}}})
        if arguments:
            fragment = {"tool_calls": {"function": {"arguments": arguments}}}
            emit("tool-call-delta", {"index": k, "delta": {"message": fragment}})
        emit("tool-call-end", {"index": k})
    for k, part in enumerate(message.get("content") or []):
        if not isinstance(part, dict) or part.get("type") != "text":
            continue
        emit("content-start", {"index": k, "delta": {"message": {"content": {"type": "text", "text": ""}}}})
        emit("content-delta", {"index": k, "delta": {"message": {"content": {"text": part.get("text", "")}}}})
        emit("content-end", {"index": k})
    end: dict[str, Any] = {"finish_reason": body.get("finish_reason")}
    if "usage" in body:
        end["usage"] = body["usage"]
    emit("message-end", {"delta": end})
    return events
