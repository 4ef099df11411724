"""Chat Completions over HTTP: OpenAI and the servers that speak its wire (Mistral, Kimi, and the
OpenAI-compatible endpoints of Gemini, Ollama, vLLM, Azure, OpenRouter).

A turn is `POST .../chat/completions` under any base path (`/v1`, `/openai/deployments/D`,
`/v1beta/openai`, `/api/v1`); `"stream": true` in the body asks for server-sent events of
`chat.completion.chunk`, ended by `data: [DONE]`. SDKs may look the model up with `GET .../models`.
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
    model_in_path,
    sse_frame,
)

_TURN = re.compile(r"/chat/completions/?$")
_MODELS = re.compile(r"/models(/.+)?/?$")


class ChatCompletions(ProviderTransport):
    def __init__(
        self,
        api: str,
        owner: str,
        provider_hosts: tuple[str, ...],
        *,
        whole_calls: bool = False,
        usage_apart: bool = False,
    ) -> None:
        self.api = api
        self.owner = owner
        self.provider_hosts = provider_hosts
        # Mistral streams each tool call whole (id, name and arguments in one delta), in the chunk that
        # finishes the turn; its SDK's chunk model requires the name on every call delta.
        self.whole_calls = whole_calls
        self.usage_apart = usage_apart

    def route(self, request: Request) -> Route | None:
        if _TURN.search(request.path):
            if request.method != "POST":
                return None
            body = request.json()
            stream = isinstance(body, dict) and body.get("stream") is True
            return Route("turn", stream=stream, framing="sse" if stream else "json")
        found = _MODELS.search(request.path)
        if found and request.method == "GET":
            return Route("side", side="model" if found.group(1) else "models")
        return None

    def side_answer(self, route: Route, request: Request, model: str, earlier: Sequence[Earlier]) -> Answer:
        asked = model_in_path(request.path) or model
        entry = {"id": asked, "object": "model", "created": 1735689600, "owned_by": self.owner}
        if route.side == "model":
            return Answer.json(200, entry)
        return Answer.json(200, {"object": "list", "data": [entry]})

    def body_of(self, payload: Mapping[str, Any]) -> Any:
        if not payload.get("stream"):
            return payload.get("body")
        return _accumulate(events_in(payload))

    def events_of(self, body: Any) -> list[StreamEvent]:
        return _chunks(body, whole_calls=self.whole_calls, usage_apart=self.usage_apart)

    def frame(self, events: Sequence[StreamEvent], framing: Framing) -> tuple[str, bytes]:
        return sse_frame(self.api, events, framing, named=False, done=True)


def _accumulate(events: Sequence[StreamEvent]) -> dict[str, Any]:
    """One `chat.completion` from its chunks, joined the way the dialect reads them: by index, a new
    call where an index comes back with another id (some servers put every call at index 0)."""
    envelope: dict[str, Any] = {}
    text: list[str] = []
    refusal: list[str] = []
    calls: list[dict[str, Any]] = []
    open_calls: dict[Any, dict[str, Any]] = {}
    finish: Any = None
    usage: Any = None
    for event in events:
        data = event.data if isinstance(event.data, dict) else {}
        for key in ("id", "created", "model", "system_fingerprint", "service_tier"):
            if key in data and key not in envelope:
                envelope[key] = data[key]
        if data.get("usage"):
            usage = data["usage"]
        for choice in data.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                text.append(delta["content"])
            if isinstance(delta.get("refusal"), str):
                refusal.append(delta["refusal"])
            for entry in delta.get("tool_calls") or []:
                if isinstance(entry, dict):
                    _join_call(entry, open_calls, calls)
            if choice.get("finish_reason"):
                finish = choice["finish_reason"]
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text) if text or not calls else None}
    if refusal:
        message["refusal"] = "".join(refusal)
    if calls:
        message["tool_calls"] = calls
    body = {
        "id": envelope.get("id", ""),
        "object": "chat.completion",
        "created": envelope.get("created", 0),
        "model": envelope.get("model", ""),
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish or "stop"}],
    }
    for key in ("system_fingerprint", "service_tier"):
        if key in envelope:
            body[key] = envelope[key]
    if usage is not None:
        body["usage"] = usage
    return body


def _join_call(entry: dict[str, Any], open_calls: dict[Any, dict[str, Any]], calls: list[dict[str, Any]]) -> None:
    index = entry.get("index", 0)
    call_id = entry.get("id")
    call = open_calls.get(index)
    if call is None or (call_id and call["id"] and call_id != call["id"]):
        kind = entry.get("type") or ("custom" if "custom" in entry else "function")
        call = {"id": "", "type": kind}
        call.update(
            {"custom": {"name": "", "input": ""}} if kind == "custom" else {"function": {"name": "", "arguments": ""}}
        )
        open_calls[index] = call
        calls.append(call)
    if isinstance(call_id, str) and call_id and not call["id"]:
        call["id"] = call_id
    if "custom" in call:
        custom = entry.get("custom") or {}
        if custom.get("name") and not call["custom"]["name"]:
            call["custom"]["name"] = custom["name"]
        if isinstance(custom.get("input"), str):
            call["custom"]["input"] += custom["input"]
        return
    function = entry.get("function") or {}
    if function.get("name") and not call["function"]["name"]:
        call["function"]["name"] = function["name"]
    if isinstance(function.get("arguments"), str):
        call["function"]["arguments"] += function["arguments"]


def _chunks(body: Any, *, whole_calls: bool = False, usage_apart: bool = False) -> list[StreamEvent]:
    """The chunks OpenAI streams for a completion: the role, the text, each call opened with its
    id and name and then its arguments, and a last chunk with the finish reason (and usage). With
    `whole_calls` (Mistral), every call goes whole in that last chunk. With `usage_apart` (OpenAI), the
    usage comes after it in a chunk of its own whose `choices` is empty, as `stream_options.include_usage`
    streams it: a client may rightly take any chunk with usage for that one (openai-java does)."""
    if not isinstance(body, dict) or not isinstance(body.get("choices"), list) or not body["choices"]:
        raise ReframeError("a chat.completion without choices cannot be streamed")
    choice = body["choices"][0]
    message = choice.get("message") or {}
    head = {k: body[k] for k in ("id", "created", "model", "system_fingerprint", "service_tier") if k in body}
    head["object"] = "chat.completion.chunk"

    def chunk(delta: dict[str, Any], finish: Any = None, **extra: Any) -> StreamEvent:
        entry = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return StreamEvent(None, {**head, "choices": [entry], **extra})

    calls = [c for c in message.get("tool_calls") or [] if isinstance(c, dict)]
    events = [chunk({"role": "assistant", "content": None if calls and not message.get("content") else ""})]
    if isinstance(message.get("content"), str) and message["content"]:
        events.append(chunk({"content": message["content"]}))
    if isinstance(message.get("refusal"), str) and message["refusal"]:
        events.append(chunk({"refusal": message["refusal"]}))
    if any(call.get("type") == "custom" or "custom" in call for call in calls):
        # The chunk types (openai-python's ChoiceDeltaToolCall) have no custom tool call.
        raise ReframeError("a custom tool call has no Chat Completions stream form")
    extra = {"usage": body["usage"]} if body.get("usage") and not usage_apart else {}
    finish = choice.get("finish_reason") or ("tool_calls" if calls else "stop")
    if whole_calls and calls:
        whole = [
            {"id": call.get("id"), "function": dict(call.get("function") or {}), "index": k}
            for k, call in enumerate(calls)
        ]
        events.append(chunk({"tool_calls": whole}, finish, **extra))
        return events
    for k, call in enumerate(calls):
        function = call.get("function") or {}
        arguments = function.get("arguments") or ""
        opening = {
            "index": k,
            "id": call.get("id"),
            "type": call.get("type") or "function",
            "function": {"name": function.get("name"), "arguments": ""},
        }
        events.append(chunk({"tool_calls": [opening]}))
        if arguments:
            events.append(chunk({"tool_calls": [{"index": k, "function": {"arguments": arguments}}]}))
    events.append(chunk({}, finish, **extra))
    if usage_apart and body.get("usage"):
        events.append(StreamEvent(None, {**head, "choices": [], "usage": body["usage"]}))
    return events
