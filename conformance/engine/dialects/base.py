"""The contract every wire dialect implements."""

from __future__ import annotations

from typing import Any, Literal, Protocol

from conformance.engine.wire import DialectError as DialectError  # defined beside the items that raise it
from conformance.engine.wire import History, Served
from conformance.recordings.cassette import HttpRequest, HttpResponse

# How results must be placed relative to their calls:
# - "following-messages": in the messages right after the calling message (OpenAI Chat, Mistral)
# - "next-message": all in the one message right after it (Anthropic, Gemini)
# - "anywhere-after": anywhere later in the input (OpenAI Responses)
# Results without an id (Gemini) answer the calls of their window by function name, in order.
# Results of provider-executed calls (server tools) sit in the same message as their call.
Placement = Literal["following-messages", "next-message", "anywhere-after"]


class Dialect(Protocol):
    api: str
    placement: Placement
    call_type: str  # the wire type of a plain function call, for histories begun elsewhere

    def handles(self, request: HttpRequest) -> bool:
        """Whether a recorded request belongs to this dialect (by host and path)."""
        ...

    def history(self, body: Any, where: str = "request") -> History:
        """The tool calls and results of a request body, message by message."""
        ...

    def served(self, response: HttpResponse, where: str = "response") -> Served:
        """A response's calls, reassembled from its stream when it streams."""
        ...

    def result_type(self, call_wire_type: str) -> str | None:
        """The wire type that answers a call of the given wire type; None when no client result does
        (hybrid items and provider-executed calls carry their own output)."""
        ...
