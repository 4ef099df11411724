"""OpenAI Chat Completions (`POST /v1/chat/completions`), and OpenAI-compatible servers.

Ids: `tool_calls[].id` on the assistant message, echoed by `tool_call_id` on each tool message.
Streams: `choices[].delta.tool_calls[]` deltas are joined by `index`; the id arrives once per
index (the official accumulator concatenates repeated string keys), though some compatible
servers repeat it on every delta or reuse index 0 for every call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from conformance.engine.dialects.base import DialectError, Placement
from conformance.engine.wire import History, Served, WireCall, WireMessage, WireResult
from conformance.recordings.cassette import HttpRequest, HttpResponse
from conformance.recordings.sse import parse_events

API = "openai-chat"
CALL = f"{API}/ChatCompletionMessageToolCall"
CUSTOM_CALL = f"{API}/ChatCompletionMessageCustomToolCall"
CHUNK = f"{API}/ChatCompletionMessageToolCallChunk"
TOOL_MESSAGE = f"{API}/ChatCompletionRequestToolMessage"

# Hosts that speak a chat/completions dialect of their own, with other id grammars.
_OTHER_DIALECT_HOSTS = ("api.mistral.ai", "api.moonshot.ai", "api.moonshot.cn")


def _entry_call(entry: Any, path: str, call_type: str = CALL, custom_type: str = CUSTOM_CALL) -> WireCall:
    if not isinstance(entry, dict):
        raise DialectError(path, "a tool_calls entry is not an object")
    if entry.get("type") == "custom" or "custom" in entry:
        custom = _object(entry.get("custom"), f"{path}.custom")
        return WireCall(
            call_id=entry.get("id"),
            name=custom.get("name"),
            arguments=custom.get("input"),
            wire_type=custom_type,
            path=path,
        )
    function = entry.get("function")
    if type(function) is not dict:
        function = _object(function, f"{path}.function")
    return WireCall(entry.get("id"), function.get("name"), function.get("arguments"), call_type, path)


def _object(value: Any, path: str) -> dict[str, Any]:
    """A call's `function` (or `custom`) object; absent is empty, anything else is not an object."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise DialectError(path, f"is a {type(value).__name__}, not an object")
    return value


def _list(value: Any, path: str) -> list[Any]:
    """A list a stream chunk carries; absent (or null) is empty, anything else is not a list."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise DialectError(path, f"is a {type(value).__name__}, not a list")
    return value


MessagePart = Callable[[dict[str, Any], str], Any]


def messages_history(body: Any, where: str, what: str, calls_of: MessagePart, result_of: MessagePart) -> History:
    """A `messages` list in the Chat Completions layout, which several APIs share: calls on
    assistant messages, one result per `tool` message. `calls_of` and `result_of` read the
    API's own fields."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        raise DialectError(where, f"{what} needs a 'messages' list")
    messages: list[WireMessage] = []
    for i, message in enumerate(body["messages"]):
        path = f"{where}.messages[{i}]"
        if not isinstance(message, dict):
            raise DialectError(path, "a message is not an object")
        role = message.get("role")
        if role == "assistant":
            messages.append(WireMessage(i, role, path, calls_of(message, path)))
        elif role == "tool":
            messages.append(WireMessage(i, role, path, (), (result_of(message, path),)))
        else:
            messages.append(WireMessage(i, _role(role), path))
    return History(messages=tuple(messages))


def message_calls(message: Any, path: str, entry_call: Callable[[Any, str], WireCall]) -> tuple[WireCall, ...]:
    """The calls of a message's `tool_calls` list, each entry read by the API's `entry_call`."""
    if not isinstance(message, dict) or not message.get("tool_calls"):
        return ()
    entries = message["tool_calls"]
    if not isinstance(entries, list):
        raise DialectError(f"{path}.tool_calls", "tool_calls is not a list")
    return tuple([entry_call(e, f"{path}.tool_calls[{j}]") for j, e in enumerate(entries)])


def _role(value: Any) -> Any:
    return value if value in ("system", "user", "assistant", "tool") else "other"


@dataclass
class _StreamCall:
    index: int
    path: str
    call_id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)


class OpenAIChat:
    api = API
    placement: Placement = "following-messages"
    call_type = CALL
    # Compatible dialects subclass this one and name their own wire types.
    custom_call_type = CUSTOM_CALL
    chunk_type = CHUNK
    tool_message_type = TOOL_MESSAGE

    def handles(self, request: HttpRequest) -> bool:
        return request.path.endswith("/chat/completions") and request.host not in _OTHER_DIALECT_HOSTS

    def history(self, body: Any, where: str = "request") -> History:
        return messages_history(body, where, "a Chat Completions request", self._calls, self._result)

    def _calls(self, message: dict[str, Any], path: str) -> tuple[WireCall, ...]:
        return message_calls(message, path, self._entry_call)

    def _result(self, message: dict[str, Any], path: str) -> WireResult:
        return WireResult(
            message.get("tool_call_id"), message.get("content"), self.tool_message_type, path, name=message.get("name")
        )

    def served(self, response: HttpResponse, where: str = "response") -> Served:
        if response.is_event_stream:
            return self._served_stream(response, where)
        body = response.json()
        message = _first_message(body, where)
        entries = message.get("tool_calls") or []
        calls = tuple(self._entry_call(e, f"{where}.choices[0].message.tool_calls[{j}]") for j, e in enumerate(entries))
        content = message.get("content")
        return Served(
            stream=False,
            calls=calls,
            text=content if isinstance(content, str) else "",
            payload={"stream": False, "body": body},
        )

    def _served_stream(self, response: HttpResponse, where: str) -> Served:
        events = parse_events(response.body)
        calls: list[_StreamCall] = []
        current: dict[int, _StreamCall] = {}
        notes: list[str] = []
        text: list[str] = []
        for event in events:
            at = f"{where}.events[{event.index}]"
            choices = event.data.get("choices") if isinstance(event.data, dict) else None
            for c, choice in enumerate(_list(choices, f"{at}.choices")):
                choice = _object(choice, f"{at}.choices[{c}]")
                if choice.get("index", 0) != 0:
                    continue  # n > 1 is out of scope: tool loops use one choice
                delta = _object(choice.get("delta"), f"{at}.choices[{c}].delta")
                if isinstance(delta.get("content"), str):
                    text.append(delta["content"])
                for j, entry in enumerate(_list(delta.get("tool_calls"), f"{at}.choices[{c}].delta.tool_calls")):
                    entry = _object(entry, f"{at}.choices[{c}].delta.tool_calls[{j}]")
                    index = entry.get("index", 0)
                    if not isinstance(index, int):
                        raise DialectError(f"{at}.choices[{c}].delta.tool_calls[{j}].index", "is not an integer")
                    call_id = self.delta_id(entry)
                    call = current.get(index)
                    if call is None or (call_id and call.call_id and call_id != call.call_id):
                        if call is not None:
                            notes.append(f"event[{event.index}]: index {index} reused by a new id {call_id!r}")
                        call = _StreamCall(
                            index=index, path=f"{where}.events[{event.index}].choices[0].delta.tool_calls[{j}]"
                        )
                        current[index] = call
                        calls.append(call)
                    if call_id and call.call_id is None:
                        call.call_id = call_id
                    function = _object(entry.get("function"), f"{at}.choices[{c}].delta.tool_calls[{j}].function")
                    if function.get("name") and call.name is None:
                        call.name = function["name"]
                    if isinstance(function.get("arguments"), str):
                        call.arguments.append(function["arguments"])
        wire_calls = tuple(
            WireCall(
                call_id=c.call_id,
                name=c.name,
                arguments="".join(c.arguments),
                wire_type=self.chunk_type,
                path=c.path,
            )
            for c in calls
        )
        payload = {"stream": True, "events": [{"event": e.event, "data": e.data} for e in events]}
        return Served(stream=True, calls=wire_calls, text="".join(text), payload=payload, notes=tuple(notes))

    def _entry_call(self, entry: Any, path: str) -> WireCall:
        return _entry_call(entry, path, self.call_type, self.custom_call_type)

    def delta_id(self, entry: dict[str, Any]) -> str | None:
        """The id a stream delta carries; None when it carries none."""
        return entry.get("id") or None

    def result_type(self, call_wire_type: str) -> str | None:
        return self.tool_message_type


def _first_message(body: Any, where: str) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise DialectError(where, "a Chat Completions response is not an object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise DialectError(f"{where}.choices", "a Chat Completions response needs choices[0]")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise DialectError(f"{where}.choices[0].message", "missing message")
    return message
