"""The Responses API over HTTP: OpenAI Responses, Azure AI Foundry and Open Responses servers.

A turn is `POST .../responses`; `"stream": true` asks for named server-sent events
(`response.created` ... `response.completed`, each with a `sequence_number`). A request may
continue a history the server holds: `previous_response_id` names a response it served (its
input and output come before the new input), `conversation` names a conversation that gathers
every turn's input and output. SDKs also fetch a stored response (`GET .../responses/{id}`), count
input tokens (`POST .../responses/input_tokens`) and create conversations (`POST .../conversations`).
"""

from __future__ import annotations

import hashlib
import itertools
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
    model_in_path,
    sse_frame,
)

_TURN = re.compile(r"/responses/?$")
_COUNT = re.compile(r"/responses/input_tokens/?$")
_STORED = re.compile(r"/responses/([^/]+)/?$")
_CONVERSATIONS = re.compile(r"/conversations/?$")
_MODELS = re.compile(r"/models(/.+)?/?$")
_FINAL_EVENTS = ("response.completed", "response.incomplete", "response.failed")


class Responses(ProviderTransport):
    def __init__(self, api: str, provider_hosts: tuple[str, ...]) -> None:
        self.api = api
        self.provider_hosts = provider_hosts

    def route(self, request: Request) -> Route | None:
        path = request.path
        if _COUNT.search(path) and request.method == "POST":
            return Route("side", side="count-tokens")
        if _TURN.search(path) and request.method == "POST":
            body = request.json()
            stream = isinstance(body, dict) and body.get("stream") is True
            return Route("turn", stream=stream, framing="sse" if stream else "json")
        if _STORED.search(path) and request.method in ("GET", "DELETE"):
            return Route("side", side="response" if request.method == "GET" else "delete-response")
        if _CONVERSATIONS.search(path) and request.method == "POST":
            return Route("side", side="conversation")
        found = _MODELS.search(path)
        if found and request.method == "GET":
            return Route("side", side="model" if found.group(1) else "models")
        return None

    def side_answer(self, route: Route, request: Request, model: str, earlier: Sequence[Earlier]) -> Answer:
        if route.side in ("response", "delete-response"):
            match = _STORED.search(request.path)
            wanted = match.group(1) if match else ""
            stored = next((e.response for e in earlier if _id(e.response) == wanted), None)
            if stored is None:
                return self.error(404, f"Response with id '{wanted}' not found.")
            if route.side == "delete-response":
                return Answer.json(200, {"id": wanted, "object": "response.deleted", "deleted": True})
            return Answer.json(200, stored)
        if route.side == "count-tokens":
            body = request.json()
            size = len(json.dumps(body.get("input", "") if isinstance(body, dict) else ""))
            return Answer.json(200, {"object": "response.input_tokens", "input_tokens": max(1, size // 4)})
        if route.side == "conversation":
            digest = hashlib.sha256(request.body).hexdigest()[:48]
            created = {"id": f"conv_{digest}", "object": "conversation", "created_at": 1735689600, "metadata": {}}
            return Answer.json(200, created)
        asked = model_in_path(request.path) or model
        entry = {"id": asked, "object": "model", "created": 1735689600, "owned_by": "system"}
        return Answer.json(200, entry if route.side == "model" else {"object": "list", "data": [entry]})

    def body_of(self, payload: Mapping[str, Any]) -> Any:
        if not payload.get("stream"):
            return payload.get("body")
        events = events_in(payload)
        final = [e.data["response"] for e in events if _type(e) in _FINAL_EVENTS and isinstance(e.data, dict)]
        if final and isinstance(final[-1], dict) and isinstance(final[-1].get("output"), list):
            return final[-1]
        # No final response (a stream cut short): the items as each was done, in output order.
        opened = next((e.data.get("response") for e in events if _type(e) == "response.created"), None) or {}
        done: dict[int, Any] = {}
        for event in events:
            if _type(event) == "response.output_item.done" and isinstance(event.data, dict):
                done[int(event.data.get("output_index", len(done)))] = event.data.get("item")
        return {**opened, "status": "incomplete", "output": [done[k] for k in sorted(done)]}

    def events_of(self, body: Any) -> list[StreamEvent]:
        if not isinstance(body, dict) or not isinstance(body.get("output"), list):
            raise ReframeError("a response without an output list cannot be streamed")
        calls = [i.get("id") for i in body["output"] if isinstance(i, dict) and i.get("type") in _STREAMED_CALLS]
        if len(set(calls)) < len(calls):
            # Argument events name their item by `item_id` alone: calls without an id of their own (Mistral
            # may leave it out) would stream as a form no server sends, each event fitting either call.
            raise ReframeError(
                "its calls share one item id (or have none), so their argument events cannot be told apart"
            )
        return _stream(body)

    def frame(self, events: Sequence[StreamEvent], framing: Framing) -> tuple[str, bytes]:
        return sse_frame(self.api, events, framing)

    def reconstruct(self, body: Any, earlier: Sequence[Earlier]) -> Any:
        return _referenced(self._continued(body, earlier), earlier)

    def _continued(self, body: Any, earlier: Sequence[Earlier]) -> Any:
        if not isinstance(body, dict):
            return body
        previous = body.get("previous_response_id")
        conversation = _conversation(body)
        if not previous and not conversation:
            return body
        held: list[Any] | None = None
        if previous:
            before = next((e for e in earlier if _id(e.response) == previous), None)
            if before is not None:
                held = _items(before.request) + _output(before.response)
        elif conversation:
            held = []
            for before in earlier:
                if _conversation(before.raw) == conversation:
                    held += _items(before.request)[len(_items_before(before)) :] + _output(before.response)
        if held is None:
            return body  # a response this replay never served: the dialect sees the continuation
        full = {k: v for k, v in body.items() if k not in ("previous_response_id", "conversation")}
        full["input"] = held + _items(body)
        return full


# Items whose content streams in events that name the item by `item_id`.
_STREAMED_CALLS = ("function_call", "custom_tool_call")


def _type(event: StreamEvent) -> str:
    data = event.data if isinstance(event.data, dict) else {}
    return str(data.get("type") or event.name or "")


def _id(response: Any) -> Any:
    return response.get("id") if isinstance(response, dict) else None


def _conversation(body: Any) -> str | None:
    if not isinstance(body, dict):
        return None
    value = body.get("conversation")
    if isinstance(value, dict):
        value = value.get("id")
    return value if isinstance(value, str) and value else None


def _items(body: Any) -> list[Any]:
    """A request's input as a list of items (a string is one user message)."""
    value = body.get("input") if isinstance(body, dict) else None
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    return list(value) if isinstance(value, list) else []


def _items_before(before: Earlier) -> list[Any]:
    """The items of a conversation that an earlier turn's reconstruction put before its own input."""
    own = _items(before.raw)
    full = _items(before.request)
    return full[: len(full) - len(own)]


def _referenced(body: Any, earlier: Sequence[Earlier]) -> Any:
    """The request with each `item_reference` to an output item of a stored response this replay
    served replaced by that item, as the server resolves it (a client may send any stored item back
    by its id alone). A response served with `store: false` holds nothing to refer to, and a
    reference to an item never served is left as sent: the server answers both with an error."""
    items = body.get("input") if isinstance(body, dict) else None
    if not isinstance(items, list) or not any(_reference(item) for item in items):
        return body
    stored: dict[str, Any] = {}
    for before in earlier:
        if isinstance(before.response, dict) and before.response.get("store") is not False:
            stored.update((i["id"], i) for i in _output(before.response) if isinstance(i, dict) and i.get("id"))
    resolved = [stored.get(ref, item) if (ref := _reference(item)) else item for item in items]
    return {**body, "input": resolved}


def _reference(item: Any) -> str | None:
    if isinstance(item, dict) and item.get("type") == "item_reference" and isinstance(item.get("id"), str):
        return str(item["id"])
    return None


def _output(response: Any) -> list[Any]:
    output = response.get("output") if isinstance(response, dict) else None
    return list(output) if isinstance(output, list) else []


def _opened(item: Any) -> Any:
    """An output item as `response.output_item.added` announces it, before its content streams."""
    if not isinstance(item, dict):
        return item
    kind = item.get("type")
    opened = {**item}
    if "status" in item:
        opened["status"] = "in_progress"
    if kind == "function_call":
        opened["arguments"] = ""
    elif kind == "custom_tool_call":
        opened["input"] = ""
    elif kind == "message":
        opened["content"] = []
    return opened


def _stream(body: dict[str, Any]) -> list[StreamEvent]:
    counter = itertools.count()
    events: list[StreamEvent] = []

    def emit(name: str, data: dict[str, Any]) -> None:
        events.append(StreamEvent(name, {"type": name, "sequence_number": next(counter), **data}))

    opening = {**body, "status": "in_progress", "output": []}
    if "usage" in opening:
        opening["usage"] = None
    emit("response.created", {"response": opening})
    emit("response.in_progress", {"response": opening})
    for k, item in enumerate(body["output"]):
        emit("response.output_item.added", {"output_index": k, "item": _opened(item)})
        if isinstance(item, dict):
            _item_events(emit, k, item)
        emit("response.output_item.done", {"output_index": k, "item": item})
    status = body.get("status")
    final = {"incomplete": "response.incomplete", "failed": "response.failed"}.get(str(status), "response.completed")
    emit(final, {"response": body})
    return events


def _item_events(emit: Any, k: int, item: dict[str, Any]) -> None:
    kind = item.get("type")
    item_id = item.get("id")
    if kind == "function_call":
        arguments = item.get("arguments") or ""
        emit("response.function_call_arguments.delta", {"item_id": item_id, "output_index": k, "delta": arguments})
        done = {"item_id": item_id, "output_index": k, "arguments": arguments, "name": item.get("name")}
        emit("response.function_call_arguments.done", done)
    elif kind == "custom_tool_call":
        text = item.get("input") or ""
        emit("response.custom_tool_call_input.delta", {"item_id": item_id, "output_index": k, "delta": text})
        emit("response.custom_tool_call_input.done", {"item_id": item_id, "output_index": k, "input": text})
    elif kind == "message":
        for j, part in enumerate(item.get("content") or []):
            if not isinstance(part, dict):
                continue
            where = {"item_id": item_id, "output_index": k, "content_index": j}
            if part.get("type") != "output_text":
                emit("response.content_part.added", {**where, "part": part})
                emit("response.content_part.done", {**where, "part": part})
                continue
            text = part.get("text") or ""
            emit("response.content_part.added", {**where, "part": {**part, "text": ""}})
            emit("response.output_text.delta", {**where, "delta": text, "logprobs": []})
            emit("response.output_text.done", {**where, "text": text, "logprobs": []})
            emit("response.content_part.done", {**where, "part": part})
