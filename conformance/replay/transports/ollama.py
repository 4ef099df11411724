"""Ollama's native API over HTTP: `POST /api/chat`, which streams unless the body says
`"stream": false`, as NDJSON (one JSON object a line, the last with `"done": true`). Clients also
ask `/api/show`, `/api/tags`, `/api/version` and `/` before they chat.
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
    compact,
    events_in,
)

API = "ollama-chat"
NDJSON = "application/x-ndjson"
_SIDE = {
    ("POST", "/api/show"): "show",
    ("GET", "/api/tags"): "tags",
    ("GET", "/api/version"): "version",
    ("GET", "/api/ps"): "ps",
    ("GET", "/"): "root",
    ("HEAD", "/"): "root",
}
_TURN = re.compile(r"/api/chat/?$")
_TIMINGS = (
    "total_duration",
    "load_duration",
    "prompt_eval_count",
    "prompt_eval_duration",
    "eval_count",
    "eval_duration",
)


class Ollama(ProviderTransport):
    api = API
    provider_hosts: tuple[str, ...] = ()  # self-hosted: whatever host serves it is Ollama

    def route(self, request: Request) -> Route | None:
        if _TURN.search(request.path) and request.method == "POST":
            body = request.json()
            stream = not (isinstance(body, dict) and body.get("stream") is False)
            return Route("turn", stream=stream, framing="ndjson" if stream else "json")
        for (method, suffix), side in _SIDE.items():
            if request.method == method and (request.path.rstrip("/") or "/").endswith(suffix):
                if suffix == "/" and request.path.rstrip("/"):
                    continue  # only the root itself
                return Route("side", side=side)
        return None

    def side_answer(self, route: Route, request: Request, model: str, earlier: Sequence[Earlier]) -> Answer:
        details = {
            "parent_model": "",
            "format": "gguf",
            "family": "llama",
            "families": ["llama"],
            "parameter_size": "8.0B",
            "quantization_level": "Q4_K_M",
        }
        if route.side == "root":
            return Answer(200, b"Ollama is running", {"content-type": "text/plain; charset=utf-8"})
        if route.side == "version":
            return Answer.json(200, {"version": "0.12.6"})
        if route.side == "ps":
            return Answer.json(200, {"models": []})
        if route.side == "tags":
            entry = {
                "name": model,
                "model": model,
                "modified_at": "2026-01-01T00:00:00Z",
                "size": 4920753328,
                "digest": "0" * 64,
                "details": details,
            }
            return Answer.json(200, {"models": [entry]})
        show = {
            "license": "",
            "modelfile": f"FROM {model}\n",
            "parameters": "",
            "template": "{{ .Prompt }}",
            "details": details,
            "model_info": {"general.architecture": "llama"},
            "capabilities": ["completion", "tools"],
            "modified_at": "2026-01-01T00:00:00Z",
        }
        return Answer.json(200, show)

    def recorded_framing(self, payload: Mapping[str, Any], content_type: str, body: bytes) -> Framing:
        return "ndjson" if payload.get("stream") else "json"

    def body_of(self, payload: Mapping[str, Any]) -> Any:
        if not payload.get("stream"):
            return payload.get("body")
        return _accumulate([e.data for e in events_in(payload)])

    def events_of(self, body: Any) -> list[StreamEvent]:
        if not isinstance(body, dict) or not isinstance(body.get("message"), dict):
            raise ReframeError("an Ollama chat response without a message cannot be streamed")
        message = body["message"]
        head = {k: body[k] for k in ("model", "created_at") if k in body}
        first = {**head, "message": {**message, "role": message.get("role", "assistant")}, "done": False}
        last = {
            **head,
            "message": {"role": message.get("role", "assistant"), "content": ""},
            "done": True,
            **{k: body[k] for k in ("done_reason", *_TIMINGS) if k in body},
        }
        return [StreamEvent(None, first), StreamEvent(None, last)]

    def frame(self, events: Sequence[StreamEvent], framing: Framing) -> tuple[str, bytes]:
        if framing != "ndjson":
            raise ReframeError(f"Ollama streams only as NDJSON, not {framing}")
        return NDJSON, "".join(compact(e.data) + "\n" for e in events).encode()


def _accumulate(chunks: Sequence[Any]) -> dict[str, Any]:
    body: dict[str, Any] = {}
    content: list[str] = []
    thinking: list[str] = []
    calls: list[Any] = []
    role = "assistant"
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue
        body.update({k: v for k, v in chunk.items() if k != "message"})
        message = chunk.get("message")
        if not isinstance(message, dict):
            continue
        role = str(message.get("role", role))
        if isinstance(message.get("content"), str):
            content.append(message["content"])
        if isinstance(message.get("thinking"), str):
            thinking.append(message["thinking"])
        calls.extend(message.get("tool_calls") or [])
    message_out: dict[str, Any] = {"role": role, "content": "".join(content)}
    if thinking:
        message_out["thinking"] = "".join(thinking)
    if calls:
        message_out["tool_calls"] = calls
    body["message"] = message_out
    return body
