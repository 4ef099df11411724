"""Ollama's native chat API (`POST http://localhost:11434/api/chat`).

`message.tool_calls[]` entries are `{id?, function: {index, name, arguments}}` with arguments as
an object. The id exists only from server v0.12.10 on (`call_` + 8 of [a-z0-9], omitted when
empty); older servers send none, and `function.index` (the call's position in this response,
restarting every response) is then the only hint. A `role: tool` message may carry
`tool_call_id` and `tool_name`, both optional. Streams are NDJSON (`application/x-ndjson`), one
JSON object a line, each call whole in the chunk that carries it; `stream` defaults to true, so a
client wanting one body must send `"stream": false`.
"""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

from conformance.engine.dialects.base import DialectError, Placement
from conformance.engine.dialects.openai_chat import message_calls, messages_history
from conformance.engine.wire import History, Served, WireCall, WireMessage, WireResult
from conformance.recordings.cassette import HttpRequest, HttpResponse

API = "ollama-chat"
CALL = f"{API}/ToolCall"
TOOL_MESSAGE = f"{API}/ToolMessage"
NDJSON = "application/x-ndjson"


def _call(entry: Any, path: str) -> WireCall:
    if not isinstance(entry, dict):
        raise DialectError(path, "a tool_calls entry is not an object")
    function = entry.get("function")
    if not isinstance(function, dict):
        raise DialectError(f"{path}.function", "a tool call needs a function object")
    return WireCall(
        call_id=entry.get("id") or None,  # omitempty on the server: "" never goes out
        name=function.get("name"),
        arguments=function.get("arguments"),
        wire_type=CALL,
        path=path,
    )


def _calls(message: Any, path: str) -> tuple[WireCall, ...]:
    return message_calls(message, path, _call)


def parse_ndjson(body: bytes, where: str) -> list[Any]:
    """The JSON objects of an NDJSON body; a line that is not JSON is an error."""
    objects: list[Any] = []
    for index, line in enumerate(body.decode("utf-8").splitlines()):
        if not line.strip():
            continue
        try:
            objects.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise DialectError(f"{where}.events[{index}]", f"an NDJSON line is not JSON: {exc.msg}") from None
    return objects


def is_ndjson(response: HttpResponse) -> bool:
    if response.content_type:
        return response.content_type == NDJSON
    # Recorders that drop headers: more than one JSON object, one a line.
    lines = [line for line in response.body.splitlines() if line.strip()]
    return len(lines) > 1 and all(line.lstrip().startswith(b"{") for line in lines)


def _result(message: dict[str, Any], path: str) -> WireResult:
    return WireResult(
        call_id=message.get("tool_call_id") or None,
        output=message.get("content"),
        wire_type=TOOL_MESSAGE,
        path=path,
        name=message.get("tool_name"),
    )


def one_turn_per_run(history: History) -> History:
    """Consecutive assistant messages are one turn. Ollama validates no pairing: it renders the
    messages through the model's template in order, so a turn a client sends as one assistant
    message per call (ollama-python's and LangChain's split tool calls), then the results in order,
    is the turn the model made, and its results answer it whole."""
    messages = history.messages
    if not any(a.role == b.role == "assistant" for a, b in pairwise(messages)):
        return history
    merged: list[WireMessage] = []
    for message in messages:
        last = merged[-1] if merged else None
        if last is not None and last.role == message.role == "assistant":
            merged[-1] = WireMessage(last.index, "assistant", last.path, (*last.calls, *message.calls), last.results)
        else:
            merged.append(message)
    return History(messages=tuple(merged), continues=history.continues)


class OllamaChat:
    api = API
    placement: Placement = "following-messages"
    call_type = CALL

    def handles(self, request: HttpRequest) -> bool:
        return request.path.endswith("/api/chat")

    def history(self, body: Any, where: str = "request") -> History:
        return one_turn_per_run(messages_history(body, where, "an Ollama chat request", _calls, _result))

    def served(self, response: HttpResponse, where: str = "response") -> Served:
        if is_ndjson(response):
            chunks = parse_ndjson(response.body, where)
            calls: list[WireCall] = []
            text: list[str] = []
            for i, chunk in enumerate(chunks):
                message = chunk.get("message") if isinstance(chunk, dict) else None
                if isinstance(message, dict) and isinstance(message.get("content"), str):
                    text.append(message["content"])
                calls.extend(_calls(message, f"{where}.events[{i}].message"))
            payload = {"stream": True, "events": [{"event": None, "data": c} for c in chunks]}
            return Served(stream=True, calls=tuple(calls), text="".join(text), payload=payload)
        body = response.json()
        if not isinstance(body, dict) or not isinstance(body.get("message"), dict):
            raise DialectError(f"{where}.message", "an Ollama chat response needs a message")
        message = body["message"]
        content = message.get("content")
        return Served(
            stream=False,
            calls=_calls(message, f"{where}.message"),
            text=content if isinstance(content, str) else "",
            payload={"stream": False, "body": body},
        )

    def result_type(self, call_wire_type: str) -> str | None:
        return TOOL_MESSAGE
