"""Amazon Bedrock Converse (`POST /model/{modelId}/converse` and `/converse-stream`).

Ids: `toolUse.toolUseId` in an assistant message's content, echoed by `toolResult.toolUseId` in
the next user message, which holds every result of that turn. A toolUse with `type:
server_tool_use` is run by Bedrock, and its toolResult follows it in the same assistant message.
Streams are AWS event-stream frames, not SSE: `contentBlockStart` carries the toolUseId and name
once, and `contentBlockDelta` input fragments are joined by `contentBlockIndex`, never by id.
Text blocks stream without a `contentBlockStart`, so a call's index is not its ordinal.
Reasoning (`reasoningContent`, text and signature; Claude's thinking) before a call is that call's
opaque `reasoningContent`: it must come back unchanged in the request's last assistant message, and
may be left out of earlier ones, as on Anthropic's own API.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from conformance.engine.dialects.base import DialectError, Placement
from conformance.engine.wire import History, Served, WireCall, WireMessage, WireResult
from conformance.engine.wording import a
from conformance.recordings import eventstream
from conformance.recordings.cassette import HttpRequest, HttpResponse

API = "bedrock-converse"
TOOL_USE = f"{API}/ToolUseBlock"
TOOL_RESULT = f"{API}/ToolResultBlock"
SERVER_TOOL = "server_tool_use"
EVENT_STREAM = "application/vnd.amazon.eventstream"

# The model id may be percent-encoded (`...-v1%3A0`); proxies put their own prefix before /model/.
_PATH = re.compile(r"/model/[^/]+/converse(-stream)?$")


def _blocks(content: Any, path: str) -> list[Any]:
    if not isinstance(content, list):
        raise DialectError(f"{path}.content", "a Converse message needs a 'content' list")
    return content


REASONING = "reasoningContent"


def _call(block: dict[str, Any], path: str, reasoning: list[Any] | None = None, lenient: bool = False) -> WireCall:
    use = block["toolUse"]
    if not isinstance(use, dict):
        raise DialectError(path, "toolUse is not an object")
    return WireCall(
        use.get("toolUseId"),
        use.get("name"),
        use.get("input"),
        TOOL_USE,
        path,
        "toolUseId",
        opaque={REASONING: list(reasoning)} if reasoning else {},
        provider_executed=use.get("type") == SERVER_TOOL,
        optional_opaque=(REASONING,) if lenient else (),
    )


def _result(block: dict[str, Any], path: str, in_assistant: bool) -> WireResult:
    result = block["toolResult"]
    if not isinstance(result, dict):
        raise DialectError(path, "toolResult is not an object")
    return WireResult(
        result.get("toolUseId"), result.get("content"), TOOL_RESULT, path, "toolUseId", provider_executed=in_assistant
    )


def _content(
    blocks: list[Any], path: str, in_assistant: bool, lenient: bool = False
) -> tuple[tuple[WireCall, ...], tuple[WireResult, ...]]:
    calls: list[WireCall] = []
    results: list[WireResult] = []
    reasoning: list[Any] = []
    for j, block in enumerate(blocks):
        if not isinstance(block, dict):
            raise DialectError(f"{path}.content[{j}]", "a content block is not an object")
        if "toolUse" in block:
            calls.append(_call(block, f"{path}.content[{j}].toolUse", reasoning, lenient))
            reasoning = []
        elif REASONING in block:
            reasoning.append(block[REASONING])
        elif "toolResult" in block:
            results.append(_result(block, f"{path}.content[{j}].toolResult", in_assistant))
    return tuple(calls), tuple(results)


def _text(blocks: list[Any]) -> str:
    return "".join(b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str))


@dataclass
class _StreamBlock:
    index: int
    path: str
    kind: str  # "toolUse" or "toolResult"
    call_id: str | None
    name: str | None = None
    server: bool = False
    fragments: list[Any] = field(default_factory=list)


class BedrockConverse:
    api = API
    placement: Placement = "next-message"
    call_type = TOOL_USE

    def handles(self, request: HttpRequest) -> bool:
        return _PATH.search(request.path) is not None

    def history(self, body: Any, where: str = "request") -> History:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            raise DialectError(where, "a Converse request needs a 'messages' list")
        messages: list[WireMessage] = []
        # Reasoning must come back in the last assistant message only (earlier ones may leave it out).
        last = max(
            (i for i, m in enumerate(body["messages"]) if isinstance(m, dict) and m.get("role") == "assistant"),
            default=-1,
        )
        for i, message in enumerate(body["messages"]):
            path = f"{where}.messages[{i}]"
            if not isinstance(message, dict):
                raise DialectError(path, "a message is not an object")
            role: Any = message.get("role")
            if role != "user" and role != "assistant":
                role = "other"
            content = message.get("content")
            if type(content) is not list:
                content = _blocks(content, path)
            calls, results = _content(content, path, role == "assistant", lenient=i != last)
            messages.append(WireMessage(i, role, path, calls, results))
        return History(messages=tuple(messages))

    def served(self, response: HttpResponse, where: str = "response") -> Served:
        if response.content_type == EVENT_STREAM or eventstream.looks_like_event_stream(response.body):
            return self._served_stream(response, where)
        body = response.json()
        message = _output_message(body, where)
        path = f"{where}.output.message"
        blocks = _blocks(message.get("content"), path)
        calls, results = _content(blocks, path, True)
        return Served(
            stream=False, calls=calls, text=_text(blocks), payload={"stream": False, "body": body}, results=results
        )

    def _served_stream(self, response: HttpResponse, where: str) -> Served:
        try:
            frames = eventstream.decode(response.body)
        except eventstream.EventStreamError as exc:
            raise DialectError(f"{where}.events[{exc.index}]", str(exc)) from None
        events: list[dict[str, Any]] = []
        notes: list[str] = []
        blocks: list[_StreamBlock] = []
        open_blocks: dict[int, _StreamBlock] = {}
        text: list[str] = []
        reasoning: dict[int, list[Any]] = {}  # by contentBlockIndex: a reasoning block's deltas
        for frame in frames:
            k = frame.index
            name, data = _event(frame, f"{where}.events[{k}]")
            events.append({"event": name, "data": data})
            if frame.header(":message-type") != "event":
                detail = data.get("message", "") if isinstance(data, dict) else ""
                notes.append(f"event[{k}]: the stream carries {a(name)} exception: {detail}")
                continue
            if not isinstance(data, dict):
                continue
            index = data.get("contentBlockIndex")
            if name == "contentBlockStart":
                start = data.get("start") or {}
                kind = "toolUse" if "toolUse" in start else "toolResult" if "toolResult" in start else None
                if kind is None or not isinstance(index, int):
                    continue
                if index in open_blocks:
                    notes.append(f"event[{k}]: contentBlockIndex {index} started again before it stopped")
                entry = start[kind]
                block = _StreamBlock(
                    index=index,
                    path=f"{where}.events[{k}].start.{kind}",
                    kind=kind,
                    call_id=entry.get("toolUseId"),
                    name=entry.get("name"),
                    server=entry.get("type") == SERVER_TOOL,
                )
                open_blocks[index] = block
                blocks.append(block)
            elif name == "contentBlockDelta":
                delta = data.get("delta") or {}
                if isinstance(delta.get("text"), str):
                    text.append(delta["text"])
                    continue
                if isinstance(delta.get(REASONING), dict) and isinstance(index, int):
                    reasoning.setdefault(index, []).append(delta[REASONING])
                    continue
                piece = delta.get("toolUse", {}).get("input") if "toolUse" in delta else delta.get("toolResult")
                if piece is None:
                    continue
                target = open_blocks.get(index) if isinstance(index, int) else None
                if target is None:
                    notes.append(f"event[{k}]: a tool delta for contentBlockIndex {index!r}, which no start opened")
                    continue
                target.fragments.append(piece)
            elif name == "contentBlockStop" and isinstance(index, int):
                open_blocks.pop(index, None)
        for block in open_blocks.values():
            notes.append(f"{block.path}: the stream ends before contentBlockStop for index {block.index}")
        if frames and not any(e["event"] == "messageStop" for e in events):
            notes.append(f"{where}: the stream ends without messageStop")
        calls = tuple(
            WireCall(
                call_id=b.call_id,
                name=b.name,
                arguments="".join(str(f) for f in b.fragments),
                wire_type=TOOL_USE,
                path=b.path,
                id_field="toolUseId",
                provider_executed=b.server,
                opaque={REASONING: thought} if (thought := _reasoning_before(b, blocks, reasoning)) else {},
            )
            for b in blocks
            if b.kind == "toolUse"
        )
        results = tuple(
            WireResult(
                call_id=b.call_id,
                output=[
                    f for fragment in b.fragments for f in (fragment if isinstance(fragment, list) else [fragment])
                ],
                wire_type=TOOL_RESULT,
                path=b.path,
                id_field="toolUseId",
                provider_executed=True,
            )
            for b in blocks
            if b.kind == "toolResult"
        )
        payload = {"stream": True, "events": events}
        return Served(
            stream=True, calls=calls, text="".join(text), payload=payload, results=results, notes=tuple(notes)
        )

    def result_type(self, call_wire_type: str) -> str | None:
        return TOOL_RESULT


def _reasoning_before(call: _StreamBlock, blocks: list[_StreamBlock], reasoning: dict[int, list[Any]]) -> list[Any]:
    """The reasoning blocks streamed after the previous call and before this one, each as the
    ReasoningContentBlock a history sends back: its text and signature joined, or its redacted content."""
    earlier = [b.index for b in blocks if b.kind == "toolUse" and b.index < call.index]
    after = max(earlier, default=-1)
    out: list[Any] = []
    for index in sorted(k for k in reasoning if after < k < call.index):
        deltas = reasoning[index]
        redacted = [d["redactedContent"] for d in deltas if "redactedContent" in d]
        if redacted:
            out.append({"redactedContent": redacted[-1]})
            continue
        text = "".join(str(d["text"]) for d in deltas if "text" in d)
        signature = "".join(str(d["signature"]) for d in deltas if "signature" in d)
        out.append({"reasoningText": {"text": text, "signature": signature} if signature else {"text": text}})
    return out


def _event(frame: eventstream.Message, where: str) -> tuple[str, Any]:
    name = frame.header(":event-type") or frame.header(":exception-type") or frame.header(":error-code") or "?"
    if not frame.payload:
        return name, {}
    try:
        return name, json.loads(frame.payload)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DialectError(where, f"the {name} payload is not JSON: {exc}") from None


def _output_message(body: Any, where: str) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise DialectError(where, "a Converse response is not an object")
    output = body.get("output")
    message = output.get("message") if isinstance(output, dict) else None
    if not isinstance(message, dict):
        raise DialectError(f"{where}.output.message", "a Converse response needs output.message")
    return message
