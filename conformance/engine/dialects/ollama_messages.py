"""Ollama's Anthropic-compatible Messages endpoint (`POST /v1/messages` on an Ollama server).

The Anthropic wire, read by the Anthropic dialect, with Ollama's own wire types: Ollama translates
to its chat API, so a `tool_use` block it serves carries the chat API's call id (`call_` and eight
characters), and a `tool_use` block sent back must have an id (it answers 400 "tool_use block
missing required 'id' field") while a `tool_result`'s `tool_use_id` is copied unchecked.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from conformance.engine.dialects.anthropic_messages import API as BASE
from conformance.engine.dialects.anthropic_messages import AnthropicMessages
from conformance.engine.wire import History, Served, WireCall, WireMessage, WireResult
from conformance.recordings.cassette import HttpRequest, HttpResponse

API = "ollama-messages"


def _own(wire_type: str) -> str:
    return f"{API}/{wire_type[len(BASE) + 1 :]}" if wire_type.startswith(f"{BASE}/") else wire_type


def _call(call: WireCall) -> WireCall:
    return dataclasses.replace(call, wire_type=_own(call.wire_type))


def _result(result: WireResult) -> WireResult:
    return dataclasses.replace(result, wire_type=_own(result.wire_type))


def _message(message: WireMessage) -> WireMessage:
    calls = tuple(_call(c) for c in message.calls)
    return dataclasses.replace(message, calls=calls, results=tuple(_result(r) for r in message.results))


class OllamaMessages(AnthropicMessages):
    api = API
    call_type = f"{API}/ToolUseBlock"

    def handles(self, request: HttpRequest) -> bool:
        # ollama.com serves it for cloud models; a local server is not claimed by host, since other
        # Anthropic-compatible servers run on localhost too.
        return request.host.endswith("ollama.com") and super().handles(request)

    def history(self, body: Any, where: str = "request") -> History:
        found = super().history(body, where)
        return dataclasses.replace(found, messages=tuple(_message(m) for m in found.messages))

    def served(self, response: HttpResponse, where: str = "response") -> Served:
        found = super().served(response, where)
        calls = tuple(_call(c) for c in found.calls)
        return dataclasses.replace(found, calls=calls, results=tuple(_result(r) for r in found.results))

    def result_type(self, call_wire_type: str) -> str | None:
        base = f"{BASE}/{call_wire_type[len(API) + 1 :]}" if call_wire_type.startswith(f"{API}/") else call_wire_type
        found = super().result_type(base)
        return _own(found) if found else None
