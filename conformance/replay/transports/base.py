"""How an API travels over HTTP: the contract every transport implements.

A dialect reads bodies; a transport knows where they go and in what form: which paths and API
versions reach the API, how a request asks for a stream and in which framing, which side requests
real SDKs make (model lookups, token counts) and what the provider answers them, how a streamed
response becomes one body and back, and how a request that continues a history the server holds
(Responses `previous_response_id`, Anthropic message threads) reads in full.

The replay engine uses both, so that a client is answered in the form it asks for and judged on
what it sends, whatever form the recording was made in.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol
from urllib.parse import parse_qs, urlsplit

# How a response body is laid out: one JSON document, or a stream in one of the providers' framings.
Framing = Literal["json", "sse", "json-array", "ndjson", "eventstream"]
STREAM_FRAMINGS: tuple[Framing, ...] = ("sse", "json-array", "ndjson", "eventstream")


class ReframeError(ValueError):
    """A recorded response that cannot be served in the form a request asks for."""


@dataclass(frozen=True)
class Request:
    """One HTTP request as the replay sees it, whichever way it arrived (vcrpy or the server)."""

    method: str  # upper case: clients send `post` too, and the API does not care
    path: str  # the part after any replay prefix, percent-decoding left to the transport
    query: Mapping[str, tuple[str, ...]]
    headers: Mapping[str, str]  # lower-case names
    body: bytes = b""

    @classmethod
    def of(cls, method: str, url: str, headers: Mapping[str, Any], body: bytes | str | None) -> Request:
        parts = urlsplit(url)
        query = {k: tuple(v) for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        raw = body.encode() if isinstance(body, str) else (body or b"")
        lowered = {str(k).lower(): _header_value(v) for k, v in headers.items()}
        return cls(method=method.upper(), path=parts.path or "/", query=query, headers=lowered, body=raw)

    def json(self) -> Any:
        """The body parsed as JSON; None when it is empty or not JSON."""
        if not self.body:
            return None
        try:
            return json.loads(self.body)
        except (ValueError, UnicodeDecodeError, RecursionError):  # too deep for Python is no JSON for the provider
            return None

    def param(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None


def _header_value(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


@dataclass(frozen=True)
class Route:
    """What a request asks for: a turn of the conversation (streamed or not), or a side request."""

    kind: Literal["turn", "side"]
    stream: bool = False
    framing: Framing = "json"
    side: str = ""  # side requests: what is asked ("model", "models", "count-tokens", ...)


@dataclass(frozen=True)
class Answer:
    """A response to send: status, headers (lower-case names) and the body's bytes."""

    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, status: int, value: Any, headers: Mapping[str, str] | None = None) -> Answer:
        return cls(status, json.dumps(value).encode(), {"content-type": "application/json", **(headers or {})})


@dataclass(frozen=True)
class StreamEvent:
    name: str | None  # the SSE `event:` name, or the event-stream `:event-type`; None where there is none
    data: Any


@dataclass(frozen=True)
class Earlier:
    """A turn already played: the request in full (continuations resolved), the response as one
    body, and the request as the client sent it."""

    request: Any
    response: Any
    raw: Any = None


class Transport(Protocol):
    api: str
    # Hosts (exact, or a suffix beginning with a dot) where the provider itself serves the API; empty
    # where the API is self-hosted or an open specification, so any host speaks for it.
    provider_hosts: tuple[str, ...]

    def route(self, request: Request) -> Route | None:
        """What the request asks for; None when it is no request of this API at all."""
        ...

    def side_answer(self, route: Route, request: Request, model: str, earlier: Sequence[Earlier]) -> Answer:
        """What the provider answers a side request (a model lookup, a token count, a stored response)."""
        ...

    def recorded_framing(self, payload: Mapping[str, Any], content_type: str, body: bytes) -> Framing:
        """The framing a recorded response was served in."""
        ...

    def body_of(self, payload: Mapping[str, Any]) -> Any:
        """A served payload (`{"stream": False, "body"}` or `{"stream": True, "events"}`) as one body."""
        ...

    def events_of(self, body: Any) -> list[StreamEvent]:
        """The stream a provider serves for a body."""
        ...

    def frame(self, events: Sequence[StreamEvent], framing: Framing) -> tuple[str, bytes]:
        """A stream's events as bytes in a framing, with their content type."""
        ...

    def reconstruct(self, body: Any, earlier: Sequence[Earlier]) -> Any:
        """The request in full when it continues a history the server holds; the body itself otherwise."""
        ...

    def error(self, status: int, message: str) -> Answer:
        """An error in the provider's own shape."""
        ...


class ProviderTransport:
    """What most transports share: errors in the provider's own body shape, no history held at the
    server (transports whose server holds one override `reconstruct`), and recorded streams read as
    server-sent events (`recorded_framing`)."""

    api: str

    def recorded_framing(self, payload: Mapping[str, Any], content_type: str, body: bytes) -> Framing:
        return "sse" if payload.get("stream") else "json"

    def reconstruct(self, body: Any, earlier: Sequence[Earlier]) -> Any:
        return body

    def error(self, status: int, message: str) -> Answer:
        return provider_error(self.api, status, message)


def sse_frame(
    label: str, events: Sequence[StreamEvent], framing: Framing, *, named: bool = True, done: bool = False
) -> tuple[str, bytes]:
    """A stream framed as server-sent events, for an API that streams in no other framing."""
    if framing != "sse":
        raise ReframeError(f"{label} streams only as server-sent events, not {framing}")
    return SSE_TYPE, sse(events, named=named, done=done)


def events_in(payload: Mapping[str, Any]) -> list[StreamEvent]:
    """A served stream payload's events."""
    return [StreamEvent(e.get("event"), e.get("data")) for e in payload.get("events") or []]


def sse(events: Sequence[StreamEvent], *, named: bool, done: bool = False, newline: str = "\n") -> bytes:
    """Server-sent events: `event:` lines where the provider sends them, compact JSON data."""
    out: list[str] = []
    for event in events:
        head = f"event: {event.name}{newline}" if named and event.name else ""
        out.append(f"{head}data: {compact(event.data)}{newline}{newline}")
    if done:
        out.append(f"data: [DONE]{newline}{newline}")
    return "".join(out).encode()


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


SSE_TYPE = "text/event-stream; charset=utf-8"
JSON_TYPE = "application/json"
# What each framing goes out as when the recording kept no content-type header (some recorders drop
# every header): a client that streams checks it before it reads an event.
FRAMING_TYPES: Mapping[Framing, str] = {
    "json": JSON_TYPE,
    "sse": SSE_TYPE,
    "json-array": JSON_TYPE,
    "ndjson": "application/x-ndjson",
    "eventstream": "application/vnd.amazon.eventstream",
}


def provider_error(api: str, status: int, message: str) -> Answer:
    """An error in the provider's own body shape (see conformance.engine.provider_errors), with a status."""
    from conformance.engine.provider_errors import error_response

    raw = error_response(api, message)
    headers = {str(k).lower(): str(v[0]) for k, v in (raw.get("headers") or {}).items()}
    return Answer(status, raw["body"]["string"], headers)


def model_in_path(path: str, marker: str = "/models/") -> str | None:
    """The model id after a `/models/` segment (ids may hold slashes: `moonshotai/kimi-k2`)."""
    _, found, rest = path.partition(marker)
    return rest or None if found else None


class Rejected(Exception):
    """A request the server refuses before it is a turn (a continuation of a thread it does not hold)."""

    def __init__(self, answer: Answer, reason: str) -> None:
        self.answer = answer
        self.reason = reason
        super().__init__(reason)


def is_provider_host(transport: Transport, host: str) -> bool:
    """Whether a host is one where the provider itself serves the transport's API."""
    if not transport.provider_hosts:
        return True
    return any(host == h or (h.startswith(".") and host.endswith(h)) for h in transport.provider_hosts)
