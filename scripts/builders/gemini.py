"""Gemini generateContent responses and requests, in the shapes of the API reference and python-genai.

Non-streamed responses are one GenerateContentResponse. Streams come in the two forms the API
serves: SSE (`:streamGenerateContent?alt=sse`, one compact `data:` line per chunk, CRLF framed)
and, without `alt=sse`, one pretty-printed JSON array of chunks. Streamed parts arrive whole, one
part per chunk, so parallel calls land in separate chunks (as Gemini 3 sends them), except where a
scenario serves a step's calls together in one chunk (as Gemini 2.5 on Vertex does).

Requests are what a correct client sends: every part of every model turn replayed as served (with
its thoughtSignature on the same part), then one functionResponse per function call in call
order, each with its call's name and, only when the call had one, its id. A history begun on
another API goes without its ids (see conformance/reference/gemini.py for why).
"""

from __future__ import annotations

import base64
import json
from typing import Any

from builders.common import interaction, prior_turns, seed, split, stream_shape
from conformance.corpus.loading import ExpectedCall, ExpectedTurn, Scenario

JSON_UTF8 = "application/json; charset=UTF-8"
SSE = "text/event-stream"
DEVELOPER = "https://generativelanguage.googleapis.com/v1beta/models"
VERTEX = "https://aiplatform.googleapis.com/v1/projects/toolcall-conformance/locations/global/publishers/google/models"
CODE_EXECUTION = "code_execution"

# Transport choices the scenario format has no field for, by scenario id.
JSON_ARRAY_STREAMS = {"gemini/streamed-json-array"}  # streamGenerateContent without alt=sse
ON_VERTEX = {"gemini/cross-provider-from-openai-chat", "gemini/streamed-parallel-calls-one-chunk"}
CALLS_IN_ONE_CHUNK = {"gemini/streamed-parallel-calls-one-chunk"}  # a stream's calls arrive together
THOUGHT_SUMMARIES = {"gemini/streamed-json-array"}  # thinkingConfig.includeThoughts: a thought part first


def _response_body(output: str) -> Any:
    try:
        parsed = json.loads(output)
    except ValueError:
        parsed = None
    return parsed if isinstance(parsed, dict) else {"output": output}


def _with_id(value: dict[str, Any], call_id: str | None) -> dict[str, Any]:
    return {**value, "id": call_id} if call_id else value


def _signed(part: dict[str, Any], call: ExpectedCall) -> dict[str, Any]:
    signature = call.extra.get("thoughtSignature")
    return {**part, "thoughtSignature": signature} if signature else part


def _call_parts(call: ExpectedCall, native: bool = True) -> list[dict[str, Any]]:
    """The parts one call takes in a model content: a server-run call is followed by its result."""
    call_id = call.id if native else None
    if not call.provider_executed:
        part = {"functionCall": _with_id({"name": call.name, "args": dict(call.arguments)}, call_id)}
        return [_signed(part, call) if native else part]
    if call.name == CODE_EXECUTION:
        code = _signed({"executableCode": _with_id(dict(call.arguments), call_id)}, call)
        result = {"codeExecutionResult": _with_id({"outcome": "OUTCOME_OK", "output": call.output}, call_id)}
        return [code, result]
    tool = {"toolType": call.name, "args": dict(call.arguments)}
    response = {"toolType": call.name, "response": json.loads(call.output)}
    return [_signed({"toolCall": _with_id(tool, call_id)}, call), {"toolResponse": _with_id(response, call_id)}]


def _model_parts(turn: ExpectedTurn, native: bool = True) -> list[dict[str, Any]]:
    if not turn.calls:
        return [{"text": turn.text or ""}]
    if native:
        return [p for c in turn.calls for p in _call_parts(c)]
    return [p for c in turn.client_calls for p in _call_parts(c, native=False)]  # server tools stay behind


def _responses(turn: ExpectedTurn, native: bool = True) -> list[dict[str, Any]]:
    return [
        {"functionResponse": _with_id({"name": c.name, "response": _response_body(c.output)}, c.id if native else None)}
        for c in turn.client_calls
    ]


def _tools(scenario: Scenario) -> list[dict[str, Any]]:
    declarations = [
        {"name": t["name"], "description": t.get("description", ""), "parameters": t["parameters"]}
        for t in scenario.tools
    ]
    tools: list[dict[str, Any]] = [{"functionDeclarations": declarations}]
    server = {c.name for c in scenario.all_calls() if c.provider_executed}
    if CODE_EXECUTION in server:
        tools.append({"codeExecution": {}})
    if "GOOGLE_SEARCH_WEB" in server:
        tools.append({"googleSearch": {}})
    return tools


def _request(scenario: Scenario, upto: int) -> dict[str, Any]:
    """The request a correct client sends before response `upto`."""
    contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": scenario.prompt}]}]
    turns = [(t, False) for t in prior_turns(scenario)] + [(t, True) for t in scenario.turns[:upto]]
    for turn, native in turns:
        contents.append({"role": "model", "parts": _model_parts(turn, native)})
        if turn.client_calls:
            contents.append({"role": "user", "parts": _responses(turn, native)})
    body: dict[str, Any] = {"contents": contents, "tools": _tools(scenario)}
    if any(c.provider_executed and c.name != CODE_EXECUTION for c in scenario.all_calls()):
        body["toolConfig"] = {"includeServerSideToolInvocations": True}
    if _thoughts(scenario):
        body["generationConfig"] = {"thinkingConfig": {"includeThoughts": True}}
    return body


def _thoughts(scenario: Scenario) -> bool:
    """Thought summaries asked for (thinkingConfig.includeThoughts): a thought part streams first."""
    return scenario.id in THOUGHT_SUMMARIES or (scenario.stream and stream_shape(scenario).thought)


def _response_id(digest: str) -> str:
    return base64.urlsafe_b64encode(bytes.fromhex(digest[:34])).decode().rstrip("=")[:23]


def _usage(scenario: Scenario, index: int, output_tokens: int, thinking: bool) -> dict[str, Any]:
    prompt = 64 + 48 * index
    usage: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": output_tokens,
        "totalTokenCount": prompt + output_tokens + (41 if thinking else 0),
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
    }
    if thinking:
        usage["thoughtsTokenCount"] = 41
    if scenario.id in ON_VERTEX:
        usage["trafficType"] = "ON_DEMAND"
    return usage


def _chunk(
    scenario: Scenario, index: int, parts: list[dict[str, Any]], *, last: bool, calls: bool, output_tokens: int
) -> dict[str, Any]:
    digest = seed(scenario, index)
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
    if last:
        candidate["finishReason"] = "STOP"
    if scenario.id not in ON_VERTEX:
        candidate["index"] = 0
    if last and calls and scenario.id not in ON_VERTEX:
        candidate["finishMessage"] = "Model generated function call(s)."
    thinking = any(c.extra for t in scenario.turns for c in t.calls)
    chunk: dict[str, Any] = {
        "candidates": [candidate],
        "usageMetadata": _usage(scenario, index, output_tokens, thinking),
        "modelVersion": scenario.model,
    }
    if scenario.id in ON_VERTEX:
        second = int(digest[:4], 16) % 3600
        chunk["createTime"] = f"2026-09-01T10:{second // 60:02d}:{second % 60:02d}.{int(digest[4:10], 16) % 10**6:06d}Z"
    chunk["responseId"] = _response_id(digest)
    return chunk


def _response(scenario: Scenario, index: int) -> tuple[str, str]:
    turn = scenario.turns[index]
    parts = _model_parts(turn)
    tokens = 6 + 7 * len(turn.calls) if turn.calls else max(4, len((turn.text or "").split()) + 2)
    if not scenario.stream:
        body = _chunk(scenario, index, parts, last=True, calls=bool(turn.calls), output_tokens=tokens)
        return JSON_UTF8, json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    pieces: list[list[dict[str, Any]]] = (
        [[p] for p in parts] if turn.calls else [[{"text": t}] for t in split(turn.text or "", 3)]
    )
    if (scenario.id in CALLS_IN_ONE_CHUNK or stream_shape(scenario).calls_per_event == "all") and turn.calls:
        pieces = [parts]
    if _thoughts(scenario) and turn.calls:
        thought = f"**Planning the lookup**\n\nI will call `{turn.calls[0].name}` to answer this.\n\n"
        pieces.insert(0, [{"text": thought, "thought": True}])
    chunks = [
        _chunk(
            scenario,
            index,
            piece,
            last=k == len(pieces) - 1,
            calls=bool(turn.calls),
            output_tokens=max(1, tokens * (k + 1) // len(pieces)),
        )
        for k, piece in enumerate(pieces)
    ]
    if scenario.id in JSON_ARRAY_STREAMS:
        text = "[" + "\n,\r\n".join(json.dumps(c, indent=2, ensure_ascii=False) for c in chunks) + "\n]"
        return JSON_UTF8, text
    return SSE, "".join(f"data: {json.dumps(c, separators=(',', ': '), ensure_ascii=False)}\r\n\r\n" for c in chunks)


def _uri(scenario: Scenario) -> str:
    base = VERTEX if scenario.id in ON_VERTEX else DEVELOPER
    if not scenario.stream:
        return f"{base}/{scenario.model}:generateContent"
    if scenario.id in JSON_ARRAY_STREAMS:
        return f"{base}/{scenario.model}:streamGenerateContent"
    return f"{base}/{scenario.model}:streamGenerateContent?alt=sse"


def build(scenario: Scenario) -> list[dict[str, Any]]:
    interactions = []
    for index in range(len(scenario.turns)):
        content_type, body = _response(scenario, index)
        interactions.append(interaction(_uri(scenario), _request(scenario, index), content_type, body))
    return interactions
