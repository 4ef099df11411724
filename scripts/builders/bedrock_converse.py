"""Amazon Bedrock Converse responses and requests, in the shapes of botocore's service model.

ConverseStream bodies are AWS event-stream frames (each with its prelude and message CRC32),
written with conformance.recordings.eventstream and stored as `!!binary` in the cassette. As Bedrock does,
every event but `metadata` carries a `p` padding field of varying length, and text blocks stream
without a `contentBlockStart`, so the calls of a turn that opens with text start at index 1.
A call's `extra.reasoningContent` holds the ReasoningContentBlocks (text and signature) the model
wrote before the response's calls: they open the content (streamed, like text, without a start:
reasoning text deltas, then the signature), the request turns Claude's thinking on, and a correct
client sends them back unchanged first in the assistant message.
"""

from __future__ import annotations

import json
import string
import uuid
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from builders.common import JSON, compact, prior_turns, seed, split, stream_shape, text_before
from conformance.corpus.loading import ExpectedTurn, Scenario
from conformance.engine.ids import IdMap
from conformance.recordings import eventstream

API = "bedrock-converse"
HOST = "bedrock-runtime.us-east-1.amazonaws.com"
EVENT_STREAM = "application/vnd.amazon.eventstream"
_PADDING = string.ascii_lowercase + string.ascii_uppercase + string.digits


def _uri(scenario: Scenario) -> str:
    operation = "converse-stream" if scenario.stream else "converse"
    return f"https://{HOST}/model/{quote(scenario.model, safe='')}/{operation}"


def _result_content(output: str) -> list[dict[str, Any]]:
    """The same content a correct client sends: a JSON object as a json block, anything else as text."""
    try:
        parsed = json.loads(output)
    except json.JSONDecodeError:
        parsed = None
    return [{"json": parsed}] if isinstance(parsed, dict) else [{"text": output}]


REASONING = "reasoningContent"  # the call extra holding the reasoning blocks before the response's calls
THINKING_BUDGET = 2048


def _reasoning(turn: ExpectedTurn) -> list[dict[str, Any]]:
    return [dict(block) for call in turn.calls for block in call.extra.get(REASONING, ())]


def _assistant_content(turn: ExpectedTurn, ids: list[str], with_text: bool) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = [{REASONING: block} for block in _reasoning(turn)]
    text = [{"text": turn.text}] if turn.text and (with_text or not turn.calls) else []
    uses = [
        {"toolUse": {"toolUseId": i, "name": c.name, "input": dict(c.arguments)}}
        for i, c in zip(ids, turn.calls, strict=True)
    ]
    at = text_before(turn)
    return [*content, *uses[:at], *text, *uses[at:]]


def _request(scenario: Scenario, upto: int) -> dict[str, Any]:
    """The request a correct client sends before response `upto`."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"text": scenario.prompt}]}]
    ids = IdMap(API)
    prior = prior_turns(scenario)
    for k, turn in enumerate((*prior, *scenario.turns[:upto])):
        mapped = [ids.call(c.id, c.name) for c in turn.calls]
        # A history begun elsewhere arrives as its source decoded it: a calling turn's text is not kept.
        messages.append({"role": "assistant", "content": _assistant_content(turn, mapped, k >= len(prior))})
        answered = list(zip(mapped, turn.calls, strict=True))
        if scenario.answer_order == "reversed":
            answered.reverse()
        if answered:
            results = [
                {"toolResult": {"toolUseId": i, "content": _result_content(c.output), "status": "success"}}
                for i, c in answered
            ]
            messages.append({"role": "user", "content": results})
    tools = [
        {
            "toolSpec": {
                "name": t["name"],
                "description": t.get("description") or t["name"],
                "inputSchema": {"json": t["parameters"]},
            }
        }
        for t in scenario.tools
    ]
    body: dict[str, Any] = {"messages": messages, "toolConfig": {"tools": tools}}
    if any(_reasoning(t) for t in scenario.turns):
        # Claude's extended thinking, passed through to the model.
        body["additionalModelRequestFields"] = {"thinking": {"type": "enabled", "budget_tokens": THINKING_BUDGET}}
    return body


def _usage(index: int) -> dict[str, int]:
    prompt, completion = 412 + 63 * index, 57 if index == 0 else 31
    return {"inputTokens": prompt, "outputTokens": completion, "totalTokens": prompt + completion}


def _response(scenario: Scenario, index: int) -> dict[str, Any]:
    turn = scenario.turns[index]
    stop = "tool_use" if turn.calls else "end_turn"
    latency = 900 + int(seed(scenario, index)[:4], 16) % 3000
    body = {
        "output": {
            "message": {
                "role": "assistant",
                "content": _assistant_content(turn, [c.id or "" for c in turn.calls], True),
            }
        },
        "stopReason": stop,
        "usage": _usage(index),
        "metrics": {"latencyMs": latency},
    }
    return {"string": compact(body)}


def _frame(event: str, data: Mapping[str, Any], padding: str | None) -> bytes:
    payload = dict(data) if padding is None else {**data, "p": padding}
    headers = {":event-type": event, ":content-type": JSON, ":message-type": "event"}
    return eventstream.encode(headers, compact(payload).encode("utf-8"))


def _stream(scenario: Scenario, index: int) -> bytes:
    turn = scenario.turns[index]
    digest = seed(scenario, index)
    counter = iter(range(10_000))

    def pad() -> str:
        k = next(counter)
        return _PADDING[: 3 + int(digest[(2 * k) % 60 : (2 * k) % 60 + 2], 16) % (len(_PADDING) - 3)]

    frames = [_frame("messageStart", {"role": "assistant"}, pad())]
    block = 0
    for reasoning in _reasoning(turn):
        text = reasoning.get("reasoningText") or {}
        deltas = [{"text": piece} for piece in split(text.get("text", ""), 3)] if text else []
        deltas += [{"signature": text["signature"]}] if text.get("signature") else []
        deltas += [{"redactedContent": reasoning["redactedContent"]}] if "redactedContent" in reasoning else []
        for delta in deltas:
            data = {"contentBlockIndex": block, "delta": {REASONING: delta}}
            frames.append(_frame("contentBlockDelta", data, pad()))
        frames.append(_frame("contentBlockStop", {"contentBlockIndex": block}, pad()))
        block += 1
    at = text_before(turn)
    for k, call in [*enumerate(turn.calls), (len(turn.calls), None)]:
        if k == min(at, len(turn.calls)) and turn.text:
            for piece in split(turn.text, 4):
                data = {"contentBlockIndex": block, "delta": {"text": piece}}
                frames.append(_frame("contentBlockDelta", data, pad()))
            frames.append(_frame("contentBlockStop", {"contentBlockIndex": block}, pad()))
            block += 1
        if call is None:
            break
        start = {"toolUse": {"toolUseId": call.id, "name": call.name}}
        frames.append(_frame("contentBlockStart", {"contentBlockIndex": block, "start": start}, pad()))
        for piece in split(compact(call.arguments), stream_shape(scenario).fragments):
            delta = {"toolUse": {"input": piece}}
            frames.append(_frame("contentBlockDelta", {"contentBlockIndex": block, "delta": delta}, pad()))
        frames.append(_frame("contentBlockStop", {"contentBlockIndex": block}, pad()))
        block += 1
    stop = "tool_use" if turn.calls else "end_turn"
    frames.append(_frame("messageStop", {"stopReason": stop}, pad()))
    latency = 900 + int(digest[:4], 16) % 3000
    frames.append(_frame("metadata", {"usage": _usage(index), "metrics": {"latencyMs": latency}}, None))
    return b"".join(frames)


def build(scenario: Scenario) -> list[dict[str, Any]]:
    interactions = []
    for index in range(len(scenario.turns)):
        request_id = str(uuid.UUID(seed(scenario, index)[:32]))
        content_type = EVENT_STREAM if scenario.stream else JSON
        body = {"string": _stream(scenario, index)} if scenario.stream else _response(scenario, index)
        interactions.append(
            {
                "request": {
                    "body": compact(_request(scenario, index)),
                    "headers": {"content-type": [JSON], "host": [HOST]},
                    "method": "POST",
                    "uri": _uri(scenario),
                },
                "response": {
                    "body": body,
                    "headers": {"content-type": [content_type], "x-amzn-requestid": [request_id]},
                    "status": {"code": 200, "message": "OK"},
                },
            }
        )
    return interactions
