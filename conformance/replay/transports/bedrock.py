"""Amazon Bedrock Converse over HTTP: `POST /model/{modelId}/converse` answers one JSON body,
`POST /model/{modelId}/converse-stream` AWS event-stream frames (`messageStart`,
`contentBlockStart` / `Delta` / `Stop`, `messageStop`, `metadata`). The operation, not the body,
says whether to stream.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from conformance.recordings import eventstream
from conformance.replay.transports.base import (
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
)

API = "bedrock-converse"
EVENT_STREAM = "application/vnd.amazon.eventstream"
_TURN = re.compile(r"/model/[^/]+/converse(-stream)?$")


class Bedrock(ProviderTransport):
    api = API
    provider_hosts: tuple[str, ...] = (".amazonaws.com",)

    def route(self, request: Request) -> Route | None:
        found = _TURN.search(unquote(request.path))
        if found is None or request.method != "POST":
            return None
        if found.group(1):
            return Route("turn", stream=True, framing="eventstream")
        return Route("turn")

    def side_answer(self, route: Route, request: Request, model: str, earlier: Sequence[Earlier]) -> Answer:
        return self.error(404, f"Unknown operation: {request.method} {request.path}")

    def recorded_framing(self, payload: Mapping[str, Any], content_type: str, body: bytes) -> Framing:
        return "eventstream" if payload.get("stream") else "json"

    def body_of(self, payload: Mapping[str, Any]) -> Any:
        if not payload.get("stream"):
            return payload.get("body")
        return _accumulate(events_in(payload))

    def events_of(self, body: Any) -> list[StreamEvent]:
        output = body.get("output") if isinstance(body, dict) else None
        message = output.get("message") if isinstance(output, dict) else None
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            raise ReframeError("a Converse response without output.message.content cannot be streamed")
        return _stream(body, message)

    def frame(self, events: Sequence[StreamEvent], framing: Framing) -> tuple[str, bytes]:
        if framing != "eventstream":
            raise ReframeError(f"Bedrock streams only as AWS event-stream frames, not {framing}")
        frames = [
            eventstream.encode(
                {":event-type": str(e.name), ":content-type": "application/json", ":message-type": "event"},
                compact(e.data).encode(),
            )
            for e in events
        ]
        return EVENT_STREAM, b"".join(frames)


def _accumulate(events: Sequence[StreamEvent]) -> dict[str, Any]:
    role = "assistant"
    blocks: dict[int, dict[str, Any]] = {}
    fragments: dict[int, list[Any]] = {}
    body: dict[str, Any] = {}
    for event in events:
        data = event.data if isinstance(event.data, dict) else {}
        index = data.get("contentBlockIndex")
        if event.name == "messageStart":
            role = str(data.get("role", role))
        elif event.name == "contentBlockStart" and isinstance(index, int):
            start = data.get("start") or {}
            if "toolUse" in start:
                blocks[index] = {"toolUse": {**start["toolUse"], "input": {}}}
            elif "toolResult" in start:
                blocks[index] = {"toolResult": {**start["toolResult"], "content": []}}
        elif event.name == "contentBlockDelta" and isinstance(index, int):
            _apply_delta(blocks, fragments, index, data.get("delta") or {})
        elif event.name == "messageStop":
            body["stopReason"] = data.get("stopReason")
            if "additionalModelResponseFields" in data:
                body["additionalModelResponseFields"] = data["additionalModelResponseFields"]
        elif event.name == "metadata":
            body.update({k: v for k, v in data.items() if k in ("usage", "metrics", "trace")})
    for index, pieces in fragments.items():
        use = blocks[index].get("toolUse")
        if use is not None:
            joined = "".join(str(p) for p in pieces)
            try:
                use["input"] = json.loads(joined) if joined else {}
            except json.JSONDecodeError as exc:
                raise ReframeError(f"the toolUse input fragments of block {index} are not JSON: {exc}") from None
    content = [blocks[i] for i in sorted(blocks)]
    return {"output": {"message": {"role": role, "content": content}}, **body}


def _apply_delta(blocks: dict[int, dict[str, Any]], fragments: dict[int, list[Any]], index: int, delta: Any) -> None:
    if not isinstance(delta, dict):
        return
    if isinstance(delta.get("text"), str):
        block = blocks.setdefault(index, {"text": ""})
        block["text"] = str(block.get("text", "")) + delta["text"]
    elif "toolUse" in delta and index in blocks:
        fragments.setdefault(index, []).append((delta["toolUse"] or {}).get("input", ""))
    elif "toolResult" in delta and index in blocks and "toolResult" in blocks[index]:
        piece = delta["toolResult"]
        blocks[index]["toolResult"]["content"].extend(piece if isinstance(piece, list) else [piece])
    elif isinstance(delta.get("reasoningContent"), dict):
        block = blocks.setdefault(index, {"reasoningContent": {"reasoningText": {"text": ""}}})
        reasoning = block.setdefault("reasoningContent", {}).setdefault("reasoningText", {"text": ""})
        piece = delta["reasoningContent"]
        if isinstance(piece.get("text"), str):
            reasoning["text"] = str(reasoning.get("text", "")) + piece["text"]
        if isinstance(piece.get("signature"), str):
            reasoning["signature"] = piece["signature"]


def _stream(body: dict[str, Any], message: dict[str, Any]) -> list[StreamEvent]:
    events = [StreamEvent("messageStart", {"role": message.get("role", "assistant")})]
    for index, block in enumerate(message["content"]):
        if not isinstance(block, dict):
            raise ReframeError(f"content[{index}] is not a block")
        at = {"contentBlockIndex": index}
        if "text" in block:
            events.append(StreamEvent("contentBlockDelta", {**at, "delta": {"text": block["text"]}}))
        elif "toolUse" in block:
            use = dict(block["toolUse"])
            arguments = use.pop("input", {})
            events.append(StreamEvent("contentBlockStart", {**at, "start": {"toolUse": use}}))
            delta = {"toolUse": {"input": json.dumps(arguments, ensure_ascii=False)}}
            events.append(StreamEvent("contentBlockDelta", {**at, "delta": delta}))
        elif "toolResult" in block:
            result = dict(block["toolResult"])
            content = result.pop("content", [])
            events.append(StreamEvent("contentBlockStart", {**at, "start": {"toolResult": result}}))
            events.append(StreamEvent("contentBlockDelta", {**at, "delta": {"toolResult": content}}))
        elif "reasoningContent" in block:
            text = block["reasoningContent"].get("reasoningText") or {}
            if text.get("text"):
                events.append(
                    StreamEvent("contentBlockDelta", {**at, "delta": {"reasoningContent": {"text": text["text"]}}})
                )
            if text.get("signature"):
                delta = {"reasoningContent": {"signature": text["signature"]}}
                events.append(StreamEvent("contentBlockDelta", {**at, "delta": delta}))
        else:
            raise ReframeError(f"a {', '.join(block)} block has no Converse stream form")
        events.append(StreamEvent("contentBlockStop", at))
    events.append(StreamEvent("messageStop", {"stopReason": body.get("stopReason", "end_turn")}))
    events.append(StreamEvent("metadata", {k: body[k] for k in ("usage", "metrics") if k in body}))
    return events
