"""Cohere chat v2 (`POST https://api.cohere.com/v2/chat`).

`message.tool_calls[]` entries are OpenAI-shaped (`{id, type: function, function: {name,
arguments}}`, arguments a JSON string) with ids like `get_weather_k88p0m8504w5`; the assistant's
text before its calls is `tool_plan`. A `role: tool` message answers one call through a required
`tool_call_id`, its content a string or a list of text/document blocks. Streams are SSE with the
event type in the data (`type`) and in the `event:` line: `tool-call-start` carries the id and
name for an `index`, `tool-call-delta` argument fragments for that index, `tool-call-end` closes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.engine.dialects.base import DialectError, Placement
from conformance.engine.dialects.openai_chat import message_calls, messages_history
from conformance.engine.wire import History, Served, WireCall, WireResult
from conformance.recordings.cassette import HttpRequest, HttpResponse
from conformance.recordings.sse import parse_events

API = "cohere-v2"
CALL = f"{API}/ToolCallV2"
TOOL_MESSAGE = f"{API}/ToolMessageV2"


def _call(entry: Any, path: str) -> WireCall:
    if not isinstance(entry, dict):
        raise DialectError(path, "a tool_calls entry is not an object")
    function = entry.get("function") or {}
    return WireCall(
        call_id=entry.get("id"),
        name=function.get("name"),
        arguments=function.get("arguments"),
        wire_type=CALL,
        path=path,
    )


def _calls(message: Any, path: str) -> tuple[WireCall, ...]:
    return message_calls(message, path, _call)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _result(message: dict[str, Any], path: str) -> WireResult:
    return WireResult(
        call_id=message.get("tool_call_id"),
        output=message.get("content"),
        wire_type=TOOL_MESSAGE,
        path=path,
    )


@dataclass
class _StreamCall:
    index: int
    path: str
    call_id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)


def _delta_call(data: dict[str, Any]) -> dict[str, Any]:
    """`delta.message.tool_calls` of a tool-call event: one object, not a list."""
    message = (data.get("delta") or {}).get("message") or {}
    found = message.get("tool_calls") or {}
    return found if isinstance(found, dict) else {}


class CohereV2:
    api = API
    placement: Placement = "following-messages"
    call_type = CALL

    def handles(self, request: HttpRequest) -> bool:
        return request.path.endswith("/v2/chat")

    def history(self, body: Any, where: str = "request") -> History:
        return messages_history(body, where, "a Cohere v2 chat request", _calls, _result)

    def served(self, response: HttpResponse, where: str = "response") -> Served:
        if response.is_event_stream:
            return self._served_stream(response, where)
        body = response.json()
        if not isinstance(body, dict) or not isinstance(body.get("message"), dict):
            raise DialectError(f"{where}.message", "a Cohere v2 chat response needs a message")
        message = body["message"]
        text = _text(message.get("content")) or (message.get("tool_plan") or "")
        return Served(
            stream=False,
            calls=_calls(message, f"{where}.message"),
            text=text,
            payload={"stream": False, "body": body},
        )

    def _served_stream(self, response: HttpResponse, where: str) -> Served:
        events = parse_events(response.body)
        calls: list[_StreamCall] = []
        current: dict[int, _StreamCall] = {}
        notes: list[str] = []
        text: list[str] = []
        for event in events:
            data = event.data if isinstance(event.data, dict) else {}
            kind = data.get("type") or event.event
            index = data.get("index", 0)
            if kind == "content-delta":
                content = ((data.get("delta") or {}).get("message") or {}).get("content") or {}
                if isinstance(content, dict) and isinstance(content.get("text"), str):
                    text.append(content["text"])
            elif kind == "tool-call-start":
                entry = _delta_call(data)
                if index in current:
                    notes.append(f"event[{event.index}]: tool-call-start reopens index {index}")
                call = _StreamCall(index=index, path=f"{where}.events[{event.index}].delta.message.tool_calls")
                call.call_id = entry.get("id")
                call.name = (entry.get("function") or {}).get("name")
                arguments = (entry.get("function") or {}).get("arguments")
                if isinstance(arguments, str):
                    call.arguments.append(arguments)
                current[index] = call
                calls.append(call)
            elif kind == "tool-call-delta":
                open_call = current.get(index)
                if open_call is None:
                    notes.append(f"event[{event.index}]: tool-call-delta for index {index}, which no start opened")
                    continue
                arguments = (_delta_call(data).get("function") or {}).get("arguments")
                if isinstance(arguments, str):
                    open_call.arguments.append(arguments)
            elif kind == "tool-call-end":
                current.pop(index, None)
        wire_calls = tuple(
            WireCall(call_id=c.call_id, name=c.name, arguments="".join(c.arguments), wire_type=CALL, path=c.path)
            for c in calls
        )
        payload = {"stream": True, "events": [{"event": e.event, "data": e.data} for e in events]}
        return Served(stream=True, calls=wire_calls, text="".join(text), payload=payload, notes=tuple(notes))

    def result_type(self, call_wire_type: str) -> str | None:
        return TOOL_MESSAGE
