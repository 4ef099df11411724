"""Anthropic Messages over HTTP: `POST /v1/messages` (also Claude on Vertex AI's `:rawPredict` and
`:streamRawPredict`, and Bedrock's `/model/{id}/invoke`, which carry the same bodies).

`"stream": true` asks for named server-sent events (`message_start`, `content_block_start` /
`_delta` / `_stop`, `message_delta`, `message_stop`). SDKs count tokens
(`POST /v1/messages/count_tokens`) and list models. A message thread lets the server hold the
history: the first turn says `"thread": {"type": "create"}`, later ones `{"type": "continue",
"previous_message_id": ...}` with only the new messages, and take `system` and `tools` from the
thread; a continuation of a message the server does not hold is answered `thread_not_found`, and
the SDK then sends the whole history under a new thread.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from conformance.replay.transports.base import (
    Answer,
    Earlier,
    Framing,
    ProviderTransport,
    ReframeError,
    Rejected,
    Request,
    Route,
    StreamEvent,
    events_in,
    model_in_path,
    sse_frame,
)

API = "anthropic-messages"
_TURN = re.compile(r"/messages/?$")
_COUNT = re.compile(r"/messages/count_tokens/?$")
_MODELS = re.compile(r"/v1/models(/.+)?/?$")
_VERTEX = re.compile(r"/publishers/anthropic/models/[^/:]+:(rawPredict|streamRawPredict)$")
_INVOKE = re.compile(r"/model/[^/]+/invoke$")
# Request fields the server takes from the thread on a continuation.
_THREAD_FIELDS = ("system", "tools")
_CALL_BLOCKS = ("tool_use", "server_tool_use", "mcp_tool_use")


class Anthropic(ProviderTransport):
    api = API
    provider_hosts: tuple[str, ...] = ("api.anthropic.com", "aiplatform.googleapis.com", ".amazonaws.com")

    def route(self, request: Request) -> Route | None:
        path = unquote(request.path)
        if request.method == "POST" and _COUNT.search(path):
            return Route("side", side="count-tokens")
        vertex = _VERTEX.search(path)
        if request.method == "POST" and (vertex or _TURN.search(path) or _INVOKE.search(path)):
            body = request.json()
            stream = (
                (vertex.group(1) == "streamRawPredict")
                if vertex
                else (isinstance(body, dict) and body.get("stream") is True)
            )
            return Route("turn", stream=stream, framing="sse" if stream else "json")
        found = _MODELS.search(path)
        if found and request.method == "GET":
            return Route("side", side="model" if found.group(1) else "models")
        return None

    def side_answer(self, route: Route, request: Request, model: str, earlier: Sequence[Earlier]) -> Answer:
        if route.side == "count-tokens":
            body = request.json()
            size = len(json.dumps(body.get("messages", []) if isinstance(body, dict) else []))
            return Answer.json(200, {"input_tokens": max(1, size // 4)})
        asked = model_in_path(unquote(request.path)) or model
        entry = {"type": "model", "id": asked, "display_name": asked, "created_at": "2025-01-01T00:00:00Z"}
        if route.side == "model":
            return Answer.json(200, entry)
        return Answer.json(200, {"data": [entry], "has_more": False, "first_id": asked, "last_id": asked})

    def body_of(self, payload: Mapping[str, Any]) -> Any:
        if not payload.get("stream"):
            return payload.get("body")
        return _accumulate(events_in(payload))

    def events_of(self, body: Any) -> list[StreamEvent]:
        if not isinstance(body, dict) or not isinstance(body.get("content"), list):
            raise ReframeError("a message without a content list cannot be streamed")
        return _stream(body)

    def frame(self, events: Sequence[StreamEvent], framing: Framing) -> tuple[str, bytes]:
        return sse_frame(self.api, events, framing)

    def reconstruct(self, body: Any, earlier: Sequence[Earlier]) -> Any:
        thread = body.get("thread") if isinstance(body, dict) else None
        if not isinstance(thread, dict):
            return body
        full = {k: v for k, v in body.items() if k != "thread"}
        if thread.get("type") != "continue":
            return full
        previous = thread.get("previous_message_id")
        before = next((e for e in earlier if isinstance(e.response, dict) and e.response.get("id") == previous), None)
        if before is None or not isinstance(before.request, dict):
            error = {
                "type": "error",
                "error": {
                    "type": "not_found_error",
                    "message": f"No thread continues from message {previous!r}.",
                    "details": {"error_code": "thread_not_found"},
                },
            }
            raise Rejected(
                Answer.json(404, error), f"a thread continuation of {previous!r}, which this replay never served"
            )
        reply = {"role": "assistant", "content": before.response.get("content", [])}
        full["messages"] = [*before.request.get("messages", []), reply, *(body.get("messages") or [])]
        for name in _THREAD_FIELDS:
            if name not in full and name in before.request:
                full[name] = before.request[name]
        return full


def _accumulate(events: Sequence[StreamEvent]) -> dict[str, Any]:
    message: dict[str, Any] = {}
    blocks: dict[Any, dict[str, Any]] = {}
    order: list[Any] = []
    partial: dict[Any, list[str]] = {}
    for event in events:
        data = event.data if isinstance(event.data, dict) else {}
        kind = data.get("type") or event.name
        index = data.get("index")
        if kind == "message_start" and isinstance(data.get("message"), dict):
            message = dict(data["message"])
        elif kind == "content_block_start" and isinstance(data.get("content_block"), dict):
            blocks[index] = dict(data["content_block"])
            order.append(index)
        elif kind == "content_block_delta" and index in blocks:
            _apply_delta(blocks[index], data.get("delta") or {}, partial.setdefault(index, []))
        elif kind == "content_block_stop" and index in blocks:
            _finish_block(blocks[index], partial.pop(index, []))
        elif kind == "message_delta":
            message.update({k: v for k, v in (data.get("delta") or {}).items()})
            if isinstance(data.get("usage"), dict):
                message["usage"] = {**(message.get("usage") or {}), **data["usage"]}
    for index in list(partial):
        _finish_block(blocks[index], partial.pop(index))
    message["content"] = [blocks[i] for i in order]
    message.setdefault("type", "message")
    message.setdefault("role", "assistant")
    return message


def _apply_delta(block: dict[str, Any], delta: dict[str, Any], fragments: list[str]) -> None:
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = str(block.get("text", "")) + str(delta.get("text", ""))
    elif kind == "input_json_delta":
        fragments.append(str(delta.get("partial_json", "")))
    elif kind == "thinking_delta":
        block["thinking"] = str(block.get("thinking", "")) + str(delta.get("thinking", ""))
    elif kind == "signature_delta":
        block["signature"] = str(block.get("signature", "")) + str(delta.get("signature", ""))
    elif kind == "citations_delta" and "citation" in delta:
        block["citations"] = [*(block.get("citations") or []), delta["citation"]]


def _finish_block(block: dict[str, Any], fragments: list[str]) -> None:
    joined = "".join(fragments)
    if joined:
        try:
            block["input"] = json.loads(joined)
        except json.JSONDecodeError as exc:
            raise ReframeError(
                f"the input_json_delta fragments of a {block.get('type')} block are not JSON: {exc}"
            ) from None


def _stream(body: dict[str, Any]) -> list[StreamEvent]:
    events: list[StreamEvent] = []

    def emit(name: str, data: dict[str, Any]) -> None:
        events.append(StreamEvent(name, {"type": name, **data}))

    usage = dict(body.get("usage") or {})
    opening = {
        **body,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**usage, "output_tokens": 1},
    }
    emit("message_start", {"message": opening})
    for index, block in enumerate(body["content"]):
        if not isinstance(block, dict):
            raise ReframeError(f"content[{index}] is not a block")
        kind = block.get("type")
        if kind in _CALL_BLOCKS:
            emit("content_block_start", {"index": index, "content_block": {**block, "input": {}}})
            arguments = block.get("input")
            if arguments:
                delta = {"type": "input_json_delta", "partial_json": json.dumps(arguments, ensure_ascii=False)}
                emit("content_block_delta", {"index": index, "delta": delta})
        elif kind == "text":
            emit("content_block_start", {"index": index, "content_block": {**block, "text": ""}})
            if block.get("text"):
                emit("content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": block["text"]}})
        elif kind == "thinking":
            opened = {**block, "thinking": "", "signature": ""}
            emit("content_block_start", {"index": index, "content_block": opened})
            if block.get("thinking"):
                delta = {"type": "thinking_delta", "thinking": block["thinking"]}
                emit("content_block_delta", {"index": index, "delta": delta})
            if block.get("signature"):
                delta = {"type": "signature_delta", "signature": block["signature"]}
                emit("content_block_delta", {"index": index, "delta": delta})
        else:  # results of server tools and everything else arrive whole
            emit("content_block_start", {"index": index, "content_block": block})
        emit("content_block_stop", {"index": index})
    ending: dict[str, Any] = {"stop_reason": body.get("stop_reason"), "stop_sequence": body.get("stop_sequence")}
    emit("message_delta", {"delta": ending, "usage": {"output_tokens": usage.get("output_tokens", 0)}})
    emit("message_stop", {})
    return events
