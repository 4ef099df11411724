"""Anthropic Messages (`POST /v1/messages`), also as Claude on Vertex AI (`:rawPredict`,
`:streamRawPredict`) and Bedrock InvokeModel (`/invoke`), which take and return the same bodies.

Ids: a `tool_use` block of an assistant message carries `id`; the `tool_result` block answering it
sits in the very next user message, before any other content, and echoes it in `tool_use_id`.
Server tools (`server_tool_use`, `mcp_tool_use`) run at Anthropic: their result blocks follow them
in the same assistant content. A `caller` on a call names the code-execution call that issued it
(programmatic tool calling); the fields that must go back unchanged are listed in the wire-type cases.
Streams: `content_block_start` carries the whole block with its id; `input_json_delta` fragments
join it by `index`, never by id.
Extended thinking: the thinking blocks (with their signatures) before a call are that call's opaque
`thinking`; they must come back unchanged in the request's last assistant message, and may be left
out of earlier ones (Anthropic's extended thinking with tool use).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import unquote

from conformance.engine.dialects.base import DialectError, Placement
from conformance.engine.wire import History, Served, WireCall, WireMessage, WireResult
from conformance.recordings.cassette import HttpRequest, HttpResponse
from conformance.recordings.sse import parse_events

API = "anthropic-messages"
TOOL_USE = f"{API}/ToolUseBlock"
TOOL_RESULT = f"{API}/ToolResultBlock"
SERVER_TOOL_USE = f"{API}/ServerToolUseBlock"
MCP_TOOL_USE = f"{API}/MCPToolUseBlock"
MCP_TOOL_RESULT = f"{API}/MCPToolResultBlock"
MCP_TOOL_LISTING = f"{API}/MCPToolListingBlock"

CALL_BLOCKS = {
    "tool_use": TOOL_USE,
    "server_tool_use": SERVER_TOOL_USE,
    "mcp_tool_use": MCP_TOOL_USE,
    # The server's tools/list call to an MCP server and its result in one block, without an id: read
    # as a provider-run call, so that a history that leaves it out or changes its listing is seen.
    "mcp_tool_listing": MCP_TOOL_LISTING,
}
# Result blocks that sit in the assistant content, after the provider-run call they answer.
SERVER_RESULT_BLOCKS = {
    "web_search_tool_result": f"{API}/WebSearchToolResultBlock",
    "web_fetch_tool_result": f"{API}/WebFetchToolResultBlock",
    "code_execution_tool_result": f"{API}/CodeExecutionToolResultBlock",
    "bash_code_execution_tool_result": f"{API}/BashCodeExecutionToolResultBlock",
    "text_editor_code_execution_tool_result": f"{API}/TextEditorCodeExecutionToolResultBlock",
    "tool_search_tool_result": f"{API}/ToolSearchToolResultBlock",
    "advisor_tool_result": f"{API}/AdvisorToolResultBlock",
    "mcp_tool_result": MCP_TOOL_RESULT,
}

_BEDROCK_INVOKE = re.compile(r"/model/[^/]*anthropic\.[^/]*/invoke")
THINKING_BLOCKS = ("thinking", "redacted_thinking")
THINKING = "thinking"  # the opaque key of the thinking blocks before a call


def _thought(block: dict[str, Any]) -> dict[str, Any]:
    """A thinking block as the API checks it: its text and signature (or its redacted data)."""
    keys = ("type", "data") if block.get("type") == "redacted_thinking" else ("type", "thinking", "signature")
    return {key: block.get(key) for key in keys}


def _call(
    block: dict[str, Any],
    path: str,
    arguments: Any,
    thinking: list[dict[str, Any]] | None = None,
    lenient: bool = False,
) -> WireCall:
    kind = block.get("type")
    if kind == "mcp_tool_listing":
        # What was listed is the block's `tools`, one of its case's returned_fields; the server it asked is the call.
        return WireCall(
            None,
            str(kind),
            {"mcp_server_name": block.get("mcp_server_name")},
            MCP_TOOL_LISTING,
            path,
            provider_executed=True,
            fields=block,
        )
    return WireCall(
        block.get("id"),
        block.get("name"),
        arguments,
        CALL_BLOCKS[str(kind)],
        path,
        fields=block,  # its wire-type case names the fields that come back (caller, toolset_name)
        provider_executed=kind != "tool_use",
        opaque={THINKING: list(thinking)} if thinking else {},
        optional_opaque=(THINKING,) if lenient else (),
    )


def _result(block: dict[str, Any], path: str) -> WireResult | None:
    kind = block.get("type")
    if kind == "tool_result":
        return WireResult(block.get("tool_use_id"), block.get("content"), TOOL_RESULT, path, "tool_use_id")
    if kind in SERVER_RESULT_BLOCKS:
        return WireResult(
            call_id=block.get("tool_use_id"),
            output=block.get("content"),
            wire_type=SERVER_RESULT_BLOCKS[str(kind)],
            path=path,
            id_field="tool_use_id",
            provider_executed=True,
        )
    return None


def _with_late_results(messages: list[WireMessage]) -> tuple[WireMessage, ...]:
    """Server results that answer a provider-run call of an earlier message, moved to that message.

    Anthropic wants a server tool's result after its call, not necessarily in the same message:
    with programmatic tool calling the code-execution result comes a response later, once the
    client calls its code made are answered. The result keeps its own path.
    """
    if not any(r.provider_executed for m in messages for r in m.results):
        return tuple(messages)  # a history of client tools only: nothing to move
    out = list(messages)
    for i, message in enumerate(messages):
        own = {c.call_id for c in message.calls if c.provider_executed}
        for result in message.results:
            if not result.provider_executed or result.call_id in own:
                continue
            k = next(
                (
                    k
                    for k in range(i - 1, -1, -1)
                    if any(c.provider_executed and c.call_id == result.call_id for c in out[k].calls)
                ),
                None,
            )
            if k is None:
                continue
            out[k] = replace(out[k], results=(*out[k].results, result))
            out[i] = replace(out[i], results=tuple(r for r in out[i].results if r is not result))
    return tuple(out)


def _role(value: Any) -> Any:
    return value if value in ("user", "assistant") else "other"


@dataclass
class _StreamBlock:
    block: dict[str, Any]
    path: str
    fragments: list[str] = field(default_factory=list)


class AnthropicMessages:
    api = API
    placement: Placement = "next-message"
    call_type = TOOL_USE

    def handles(self, request: HttpRequest) -> bool:
        path = unquote(request.path)
        if path.endswith("/v1/messages"):
            return True
        if "/publishers/anthropic/models/" in path and path.endswith((":rawPredict", ":streamRawPredict")):
            return True
        # invoke-with-response-stream frames its events in AWS event-stream binary: not this wire.
        return request.host.startswith("bedrock-runtime.") and _BEDROCK_INVOKE.fullmatch(path) is not None

    def history(self, body: Any, where: str = "request") -> History:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            raise DialectError(where, "a Messages request needs a 'messages' list")
        messages: list[WireMessage] = []
        # Thinking must come back in the last assistant message only (earlier ones may leave it out).
        last = max(
            (i for i, m in enumerate(body["messages"]) if isinstance(m, dict) and m.get("role") == "assistant"),
            default=-1,
        )
        for i, message in enumerate(body["messages"]):
            path = f"{where}.messages[{i}]"
            if not isinstance(message, dict):
                raise DialectError(path, "a message is not an object")
            role = _role(message.get("role"))
            content = message.get("content")
            if content is None or isinstance(content, str):
                messages.append(WireMessage(i, role, path))
                continue
            if not isinstance(content, list):
                raise DialectError(f"{path}.content", "content is neither a string nor a list of blocks")
            messages.extend(self._pieces(i, role, path, content, lenient=i != last))
        return History(messages=_with_late_results(messages))

    def _pieces(self, index: int, role: Any, path: str, content: list[Any], lenient: bool = False) -> list[WireMessage]:
        """One message, or the parts of it the API treats as apart.

        Anthropic reads the results of a turn only from the leading run of tool_result blocks of
        the next user message: a result after any other block is as good as missing, so it goes in
        a piece of its own after the message. A server-tool result must come after its call: one
        placed before it goes in a piece of its own before the message. Either way the pairing
        rules then see the result away from its call.
        """
        calls: list[WireCall] = []
        results: list[WireResult] = []
        late: list[WireResult] = []
        early: list[WireResult] = []
        thinking: list[dict[str, Any]] = []
        seen_other = False
        for j, block in enumerate(content):
            if not isinstance(block, dict):
                raise DialectError(f"{path}.content[{j}]", "a content block is not an object")
            kind = block.get("type")
            if kind == "text":
                seen_other = True  # the most common block, decided without building its path
                continue
            at = f"{path}.content[{j}]"
            if kind in CALL_BLOCKS:
                calls.append(_call(block, at, block.get("input"), thinking, lenient))
                thinking = []
                continue
            if kind in THINKING_BLOCKS:
                thinking.append(_thought(block))
            result = _result(block, at)
            if result is None:
                seen_other = True
            elif result.provider_executed and self._called_later(result, content[j + 1 :]):
                early.append(result)
            elif not result.provider_executed and seen_other:
                late.append(result)
            else:
                results.append(result)
        pieces = [WireMessage(index, role, path, tuple(calls), tuple(results))]
        if early:
            pieces.insert(0, WireMessage(index=index, role=role, path=path, results=tuple(early)))
        if late:
            pieces.append(WireMessage(index=index, role=role, path=path, results=tuple(late)))
        return pieces

    @staticmethod
    def _called_later(result: WireResult, rest: list[Any]) -> bool:
        return any(isinstance(b, dict) and b.get("type") in CALL_BLOCKS and b.get("id") == result.call_id for b in rest)

    def served(self, response: HttpResponse, where: str = "response") -> Served:
        if response.is_event_stream:
            return self._served_stream(response, where)
        body = response.json()
        if not isinstance(body, dict) or not isinstance(body.get("content"), list):
            raise DialectError(where, "a Messages response needs a 'content' list")
        calls: list[WireCall] = []
        results: list[WireResult] = []
        text: list[str] = []
        thinking: list[dict[str, Any]] = []
        for j, block in enumerate(body["content"]):
            at = f"{where}.content[{j}]"
            if not isinstance(block, dict):
                raise DialectError(at, "a content block is not an object")
            self._collect(block, at, block.get("input"), calls, results, text, thinking)
        return Served(
            stream=False,
            calls=tuple(calls),
            text="".join(text),
            payload={"stream": False, "body": body},
            results=tuple(results),
        )

    @staticmethod
    def _collect(
        block: dict[str, Any],
        path: str,
        arguments: Any,
        calls: list[WireCall],
        results: list[WireResult],
        text: list[str],
        thinking: list[dict[str, Any]],
    ) -> None:
        """One block read into its list; thinking waits for the call it came before."""
        if block.get("type") in CALL_BLOCKS:
            calls.append(_call(block, path, arguments, thinking))
            thinking.clear()
        elif block.get("type") in THINKING_BLOCKS:
            thinking.append(_thought(block))
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            text.append(block["text"])
        else:
            result = _result(block, path)
            if result is not None:
                results.append(result)

    def _served_stream(self, response: HttpResponse, where: str) -> Served:
        events = parse_events(response.body)
        blocks: list[_StreamBlock] = []
        open_blocks: dict[Any, _StreamBlock] = {}  # by index, whatever JSON value it is
        notes: list[str] = []
        for event in events:
            data = event.data if isinstance(event.data, dict) else {}
            kind = data.get("type")
            index = data.get("index")
            if kind == "content_block_start" and isinstance(data.get("content_block"), dict):
                if index in open_blocks:
                    notes.append(f"event[{event.index}]: index {index} started again before its content_block_stop")
                opened = _StreamBlock(dict(data["content_block"]), f"{where}.events[{event.index}].content_block")
                open_blocks[index] = opened
                blocks.append(opened)
            elif kind == "content_block_delta":
                current = open_blocks.get(index)
                delta = data.get("delta") or {}
                if current is None:
                    notes.append(f"event[{event.index}]: a delta for index {index}, which no open block has")
                elif delta.get("type") == "input_json_delta":
                    current.fragments.append(str(delta.get("partial_json", "")))
                elif delta.get("type") == "text_delta":
                    current.block["text"] = str(current.block.get("text", "")) + str(delta.get("text", ""))
                elif delta.get("type") in ("thinking_delta", "signature_delta"):
                    key = "thinking" if delta["type"] == "thinking_delta" else "signature"
                    current.block[key] = str(current.block.get(key) or "") + str(delta.get(key, ""))
            elif kind == "content_block_stop":
                open_blocks.pop(index, None)
            elif kind == "error":
                notes.append(f"event[{event.index}]: error event: {json.dumps(data.get('error'))[:200]}")
        calls: list[WireCall] = []
        results: list[WireResult] = []
        text: list[str] = []
        thinking: list[dict[str, Any]] = []
        for opened in blocks:
            arguments = opened.block.get("input")
            joined = "".join(opened.fragments)
            if joined:
                try:
                    arguments = json.loads(joined)
                except json.JSONDecodeError:
                    notes.append(f"{opened.path}: the input_json_delta fragments do not join into JSON")
                    arguments = joined
            self._collect(opened.block, opened.path, arguments, calls, results, text, thinking)
        payload = {"stream": True, "events": [{"event": e.event, "data": e.data} for e in events]}
        return Served(
            stream=True,
            calls=tuple(calls),
            text="".join(text),
            payload=payload,
            results=tuple(results),
            notes=tuple(notes),
        )

    def result_type(self, call_wire_type: str) -> str | None:
        if call_wire_type == MCP_TOOL_LISTING:
            return None  # the listing is its own result
        if call_wire_type == MCP_TOOL_USE:
            return MCP_TOOL_RESULT
        if call_wire_type == SERVER_TOOL_USE:
            return None  # the result block depends on the tool's name, not on the call's type
        return TOOL_RESULT
