"""Gemini over HTTP: the Developer API (`/v1beta/models/{m}:generateContent`, also `/v1` and
`/v1alpha`) and Vertex AI (`/v1/projects/{p}/locations/{l}/publishers/google/models/{m}:...`).

The method in the path says whether to stream: `:streamGenerateContent` streams
`GenerateContentResponse` chunks, as server-sent events when the query says `alt=sse` (google-genai
always does) and as one JSON array otherwise. SDKs look a model up (`GET .../models/{m}`) and count
tokens (`:countTokens`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from conformance.replay.transports.base import (
    JSON_TYPE,
    SSE_TYPE,
    Answer,
    Earlier,
    Framing,
    ProviderTransport,
    ReframeError,
    Request,
    Route,
    StreamEvent,
    compact,
    events_in,
    sse,
)

API = "gemini"
_METHOD = re.compile(r"models/([^/:]+):(generateContent|streamGenerateContent|countTokens)$", re.IGNORECASE)
_LOOKUP = re.compile(r"/(?:tuned)?models(?:/([^/:]+))?/?$")


class Gemini(ProviderTransport):
    api = API
    provider_hosts: tuple[str, ...] = ("generativelanguage.googleapis.com", "aiplatform.googleapis.com")

    def route(self, request: Request) -> Route | None:
        path = unquote(request.path)
        method = _METHOD.search(path)
        if method and request.method == "POST":
            name = method.group(2).lower()
            if name == "counttokens":
                return Route("side", side="count-tokens")
            if name == "streamgeneratecontent":
                sse_wanted = (request.param("alt") or "").lower() == "sse"
                return Route("turn", stream=True, framing="sse" if sse_wanted else "json-array")
            return Route("turn")
        lookup = _LOOKUP.search(path)
        if lookup and request.method == "GET":
            return Route("side", side="model" if lookup.group(1) else "models")
        return None

    def side_answer(self, route: Route, request: Request, model: str, earlier: Sequence[Earlier]) -> Answer:
        if route.side == "count-tokens":
            size = len(request.body)
            return Answer.json(200, {"totalTokens": max(1, size // 4)})
        lookup = _LOOKUP.search(unquote(request.path))
        asked = (lookup.group(1) if lookup else None) or model
        prefix = "publishers/google/models/" if "/publishers/google/" in request.path else "models/"
        entry = {
            "name": f"{prefix}{asked}",
            "version": "001",
            "displayName": asked,
            "inputTokenLimit": 1048576,
            "outputTokenLimit": 65536,
            "supportedGenerationMethods": ["generateContent", "countTokens", "streamGenerateContent"],
        }
        return Answer.json(200, entry if route.side == "model" else {"models": [entry]})

    def recorded_framing(self, payload: Mapping[str, Any], content_type: str, body: bytes) -> Framing:
        if not payload.get("stream"):
            return "json"
        if "event-stream" in content_type or body.lstrip().startswith(b"data:"):
            return "sse"
        return "json-array"

    def body_of(self, payload: Mapping[str, Any]) -> Any:
        if not payload.get("stream"):
            return payload.get("body")
        return _merge([e.data for e in events_in(payload)])

    def events_of(self, body: Any) -> list[StreamEvent]:
        if not isinstance(body, dict):
            raise ReframeError("a GenerateContentResponse that is not an object cannot be streamed")
        return [StreamEvent(None, body)]

    def frame(self, events: Sequence[StreamEvent], framing: Framing) -> tuple[str, bytes]:
        if framing == "sse":
            return SSE_TYPE, sse(events, named=False, newline="\r\n")
        if framing == "json-array":
            return JSON_TYPE, ("[" + ",\r\n".join(compact(e.data) for e in events) + "]").encode()
        raise ReframeError(f"Gemini streams as server-sent events or a JSON array, not {framing}")


def _merge(chunks: Sequence[Any]) -> dict[str, Any]:
    """One response from its chunks: every chunk's parts in order, the last chunk's envelope."""
    merged: dict[str, Any] = {}
    parts: list[Any] = []
    candidate: dict[str, Any] = {}
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue
        merged.update({k: v for k, v in chunk.items() if k != "candidates"})
        candidates = chunk.get("candidates")
        if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
            continue
        first = candidates[0]
        candidate.update({k: v for k, v in first.items() if k != "content"})
        content = first.get("content")
        if isinstance(content, dict) and isinstance(content.get("parts"), list):
            parts.extend(content["parts"])
    if candidate or parts:
        merged["candidates"] = [{**candidate, "content": {"role": "model", "parts": parts}}]
    return merged
