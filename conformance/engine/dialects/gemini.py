"""Gemini `generateContent` and `streamGenerateContent` (Developer API and Vertex AI).

Ids: `functionCall.id` is optional. Gemini 3 always sends one and `functionResponse.id` must echo
it; older models send none, and then responses pair with the calls of the model turn right before
them by name and order. A part's `thoughtSignature` (beside `functionCall`, not inside it) must go
back on the same part, so it is the call's opaque field. Server-run parts (`executableCode` with
its `codeExecutionResult`, `toolCall` with its `toolResponse`) come back in the same model content
and are replayed there; they are named `code_execution` and by their `toolType`, which is all
that pairs them when they carry no id.

Streams come in two forms, both read as one event per `GenerateContentResponse`: SSE
(`?alt=sse`) and, without `alt=sse`, one JSON array of responses. Parts arrive whole, but parallel
calls may arrive in separate chunks: every `functionCall` part is a call of its own.

The JSON parser behind the REST API takes proto field names too, and some clients send
`function_call` / `function_response`; both spellings are read. The opaque field is keyed
`thoughtSignature` whichever spelling carried it, so that the two compare.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import replace
from typing import Any

from conformance.engine.dialects.base import DialectError, Placement
from conformance.engine.wire import History, Role, Served, WireCall, WireMessage, WireResult
from conformance.recordings.cassette import HttpRequest, HttpResponse
from conformance.recordings.sse import parse_events

API = "gemini"
CALL = f"{API}/FunctionCall"
RESPONSE = f"{API}/FunctionResponse"
CODE = f"{API}/ExecutableCode"
CODE_RESULT = f"{API}/CodeExecutionResult"
SERVER_CALL = f"{API}/ToolCall"
SERVER_RESPONSE = f"{API}/ToolResponse"

CODE_EXECUTION = "code_execution"  # the name a code execution pair goes by (it has no function name)
SIGNATURE = "thoughtSignature"

_RESULT_OF = {CALL: RESPONSE, CODE: CODE_RESULT, SERVER_CALL: SERVER_RESPONSE}
_ROLES: dict[Any, Role] = {"user": "user", "model": "assistant", "function": "tool"}
_ENDPOINT = re.compile(r":(?:stream)?generateContent$", re.IGNORECASE)


def _kinds(content: Any) -> tuple[str, str]:
    """A content's role and what function parts it holds ("calls", "responses" or "")."""
    if not isinstance(content, dict):
        return ("other", "")
    role = _ROLES.get(content.get("role", "user"), "other")
    raw = content.get("parts")
    parts = [p for p in raw if isinstance(p, dict)] if isinstance(raw, list) else []
    if any("functionCall" in p or "function_call" in p for p in parts):
        return (role, "calls")
    if any("functionResponse" in p or "function_response" in p for p in parts):
        return (role, "responses")
    return (role, "")


def _field(part: dict[str, Any], camel: str, snake: str) -> tuple[str, Any] | None:
    """The key a part uses for one of its fields, and the value, in either spelling."""
    for key in (camel, snake):
        if key in part:
            return key, part[key]
    return None


def _id(value: dict[str, Any]) -> str | None:
    found = value.get("id")
    return found if isinstance(found, str) and found else None


# A part's key in either spelling, with the id field it carries.
_CALL_KEYS = (("functionCall", "functionCall.id"), ("function_call", "function_call.id"))
_RESPONSE_KEYS = (("functionResponse", "functionResponse.id"), ("function_response", "function_response.id"))


def _signature(part: dict[str, Any]) -> dict[str, Any]:
    found = _field(part, SIGNATURE, "thought_signature")
    return {SIGNATURE: canonical_bytes(found[1])} if found else {}


def canonical_bytes(value: Any) -> Any:
    """A bytes field as standard base64: the API accepts the URL-safe alphabet and missing padding
    too (google-genai sends URL-safe), so those spellings are the same signature."""
    if not isinstance(value, str):
        return value
    try:
        raw = base64.b64decode(value.replace("-", "+").replace("_", "/") + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return value  # not base64: compared as it is
    return base64.b64encode(raw).decode()


def parse_part(part: Any, path: str) -> tuple[WireCall | None, WireResult | None]:
    """The call or result one part holds, if any."""
    if not isinstance(part, dict):
        raise DialectError(path, "a part is not an object")
    if "text" in part and len(part) == 1:
        return None, None  # the most common part, decided without looking for every other kind
    for key, id_field in _CALL_KEYS:
        if key in part:
            call = part[key]
            if not isinstance(call, dict):
                raise DialectError(f"{path}.{key}", "functionCall is not an object")
            return WireCall(
                _id(call),
                call.get("name"),
                call.get("args", {}),
                CALL,
                path,
                id_field,
                opaque=_signature(part),
            ), None
    for key, id_field in _RESPONSE_KEYS:
        if key in part:
            response = part[key]
            if not isinstance(response, dict):
                raise DialectError(f"{path}.{key}", "functionResponse is not an object")
            return None, WireResult(
                _id(response),
                response.get("response"),
                RESPONSE,
                path,
                id_field,
                response.get("name"),
            )
    return _server_part(part, path)


def _server_part(part: dict[str, Any], path: str) -> tuple[WireCall | None, WireResult | None]:
    for camel, snake, wire_type in (
        ("executableCode", "executable_code", CODE),
        ("toolCall", "tool_call", SERVER_CALL),
    ):
        found = _field(part, camel, snake)
        if not found:
            continue
        key, value = found
        if not isinstance(value, dict):
            raise DialectError(f"{path}.{key}", f"{camel} is not an object")
        code = wire_type == CODE
        return WireCall(
            call_id=_id(value),
            name=CODE_EXECUTION if code else value.get("toolType", value.get("tool_type")),
            arguments={k: v for k, v in value.items() if k != "id"} if code else value.get("args", {}),
            wire_type=wire_type,
            path=path,
            id_field=f"{key}.id",
            opaque=_signature(part),
            provider_executed=True,
        ), None
    for camel, snake, wire_type in (
        ("codeExecutionResult", "code_execution_result", CODE_RESULT),
        ("toolResponse", "tool_response", SERVER_RESPONSE),
    ):
        found = _field(part, camel, snake)
        if not found:
            continue
        key, value = found
        if not isinstance(value, dict):
            raise DialectError(f"{path}.{key}", f"{camel} is not an object")
        code = wire_type == CODE_RESULT
        return None, WireResult(
            call_id=_id(value),
            output={k: v for k, v in value.items() if k != "id"} if code else value.get("response"),
            wire_type=wire_type,
            path=path,
            id_field=f"{key}.id",
            name=CODE_EXECUTION if code else value.get("toolType", value.get("tool_type")),
            provider_executed=True,
        )
    return None, None


def _parts(content: Any, path: str) -> list[Any]:
    if content is None:
        return []
    if not isinstance(content, dict):
        raise DialectError(path, "content is not an object")
    parts = content.get("parts", [])
    if not isinstance(parts, list):
        raise DialectError(f"{path}.parts", "parts is not a list")
    return parts


_BEFORE_GEMINI_3 = re.compile(r"^gemini-(?:[12])(?:[.-]|$)")


def _signature_optional(model_version: Any) -> bool:
    """Whether the serving model takes a call back without its thoughtSignature: Gemini 3 and later
    refuse it (400 "Function call is missing a thought_signature",
    https://ai.google.dev/gemini-api/docs/thought-signatures); gemini-2.5-flash answered such
    requests with 200 in recorded traffic. An unknown model is taken to be strict."""
    return isinstance(model_version, str) and _BEFORE_GEMINI_3.match(model_version) is not None


def _text(part: Any) -> str:
    if isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought"):
        return str(part["text"])
    return ""


class Gemini:
    api = API
    placement: Placement = "next-message"
    call_type = CALL

    def handles(self, request: HttpRequest) -> bool:
        return _ENDPOINT.search(request.path) is not None

    def history(self, body: Any, where: str = "request") -> History:
        if not isinstance(body, dict) or not isinstance(body.get("contents"), list):
            raise DialectError(where, "a generateContent request needs a 'contents' list")
        messages: list[WireMessage] = []
        merged: dict[int, tuple[list[WireCall], list[WireResult]]] = {}  # turns of several contents
        for i, content in enumerate(body["contents"]):
            path = f"{where}.contents[{i}]"
            if not isinstance(content, dict):
                raise DialectError(path, "a content is not an object")
            calls: list[WireCall] = []
            results: list[WireResult] = []
            for j, part in enumerate(_parts(content, path)):
                call, result = parse_part(part, f"{path}.parts[{j}]")
                if call is not None:
                    calls.append(call)
                elif result is not None:
                    results.append(result)
            # A content without a role is a user turn (single-turn requests leave it out).
            role = _ROLES.get(content.get("role", "user"), "other")
            if messages and messages[-1].role == role:
                # Consecutive contents of one role are one turn to Gemini before 3: it answered 200 to a
                # model turn followed by three user contents of one functionResponse each, and to two model
                # contents answered by one user content (recorded traffic, gemini-3-flash-preview too). Some
                # Gemini 3 models refused responses split over user contents against calls in one content
                # (eino-ext #571): rules.turns reports that shape for the models named (split_responses).
                turn = merged.setdefault(len(messages) - 1, ([*messages[-1].calls], [*messages[-1].results]))
                turn[0].extend(calls)
                turn[1].extend(results)
                continue
            messages.append(WireMessage(len(messages), role, path, tuple(calls), tuple(results)))
        for k, (calls, results) in merged.items():
            messages[k] = WireMessage(k, messages[k].role, messages[k].path, tuple(calls), tuple(results))
        return History(messages=tuple(messages))

    def split_responses(self, body: Any, where: str = "request") -> list[str]:
        """The user contents that carry on the function responses of the content before them, where the
        calls they answer went out in one model content: the shape the models of `model_behaviours`
        (FunctionResponse case) refused, each content read as a turn of its own (eino-ext #571). Calls
        split over model contents and answered in one user content are not this shape: a Gemini 3 model
        answered that 200 (recorded traffic)."""
        contents = body.get("contents") if isinstance(body, dict) else None
        if not isinstance(contents, list):
            return []
        kinds = [_kinds(c) for c in contents]
        found: list[str] = []
        for i in range(1, len(contents)):
            if kinds[i] != ("user", "responses") or kinds[i - 1] != ("user", "responses"):
                continue
            first = i - 1
            while first > 0 and kinds[first - 1] == ("user", "responses"):
                first -= 1
            calls_in_one = (
                first > 0
                and kinds[first - 1] == ("assistant", "calls")
                and (first < 2 or kinds[first - 2] != ("assistant", "calls"))
            )
            if calls_in_one:
                found.append(f"{where}.contents[{i}]")
        return found

    def served(self, response: HttpResponse, where: str = "response") -> Served:
        if response.is_event_stream:
            events = [(e.index, e.event, e.data) for e in parse_events(response.body)]
            return self._served_stream(events, where)
        body = response.json()
        if isinstance(body, list):  # streamGenerateContent without alt=sse: one JSON array
            return self._served_stream([(i, None, chunk) for i, chunk in enumerate(body)], where)
        calls, results, text, notes = self._read(body, where)
        return Served(
            stream=False,
            calls=tuple(calls),
            text=text,
            payload={"stream": False, "body": body},
            results=tuple(results),
            notes=tuple(notes),
        )

    def _served_stream(self, events: list[tuple[int, str | None, Any]], where: str) -> Served:
        calls: list[WireCall] = []
        results: list[WireResult] = []
        text: list[str] = []
        notes: list[str] = []
        for index, _, data in events:
            found = self._read(data, f"{where}.events[{index}]")
            calls += found[0]
            results += found[1]
            text.append(found[2])
            notes += found[3]
        payload = {"stream": True, "events": [{"event": name, "data": data} for _, name, data in events]}
        return Served(
            stream=True,
            calls=tuple(calls),
            text="".join(text),
            payload=payload,
            results=tuple(results),
            notes=tuple(notes),
        )

    def _read(self, body: Any, where: str) -> tuple[list[WireCall], list[WireResult], str, list[str]]:
        """The calls, server results, text and oddities of one GenerateContentResponse."""
        if not isinstance(body, dict):
            raise DialectError(where, "a GenerateContentResponse is not an object")
        candidates = body.get("candidates")
        if not candidates:
            return [], [], "", []  # a usage-only chunk, or a blocked prompt (promptFeedback)
        if not isinstance(candidates, list) or not isinstance(candidates[0], dict):
            raise DialectError(f"{where}.candidates", "candidates is not a list of objects")
        path = f"{where}.candidates[0].content"
        lenient = _signature_optional(body.get("modelVersion"))
        calls: list[WireCall] = []
        results: list[WireResult] = []
        text: list[str] = []
        notes: list[str] = []
        for j, part in enumerate(_parts(candidates[0].get("content"), path)):
            call, result = parse_part(part, f"{path}.parts[{j}]")
            if call is not None:
                calls.append(replace(call, optional_opaque=(SIGNATURE,)) if lenient and call.opaque else call)
                raw = part.get("functionCall") or part.get("function_call") or {}
                if isinstance(raw, dict) and ("partialArgs" in raw or raw.get("willContinue")):
                    notes.append(
                        f"{call.path}: streamed function-call arguments (partialArgs/willContinue) "
                        "are read as they stand, not joined"
                    )
            if result is not None:
                results.append(result)
            text.append(_text(part))
        return calls, results, "".join(text), notes

    def result_type(self, call_wire_type: str) -> str | None:
        return _RESULT_OF.get(call_wire_type, RESPONSE)
