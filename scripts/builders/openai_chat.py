"""OpenAI Chat Completions responses and requests, in the shapes of the API reference."""

from __future__ import annotations

import json
import string
from collections.abc import Callable
from functools import partial
from typing import Any

from builders.common import JSON, SSE, StreamShape, compact, interaction, prior_turns, seed, split, stream_shape
from conformance.corpus.loading import ExpectedCall, Scenario
from conformance.engine.ids import IdMap
from conformance.reference.session import INTERRUPTED

API = "openai-chat"


def _completion_id(digest: str) -> str:
    """OpenAI's own completion ids: `chatcmpl-` and 29 mixed-case letters and digits, as recorded traffic shows
    (chatcmpl-Dx0XpqH8w09uBXwq1zFGYdETjtnEl in pydantic/pydantic-ai, tests/models/cassettes/test_openai/
    test_run_stream_sync_streams_real_model.yaml at 4fda3898)."""
    alphabet = string.ascii_letters + string.digits
    number, out = int(digest, 16), []
    while len(out) < 29:
        number, digit = divmod(number, len(alphabet))
        out.append(alphabet[digit])
    return "chatcmpl-" + "".join(out)


def _custom_tools(scenario: Scenario) -> set[str]:
    return {t["name"] for t in scenario.tools if t.get("type") == "custom"}


def _tool_call(call_id: str | None, call: ExpectedCall, custom: set[str]) -> dict[str, Any]:
    if call.name in custom:
        # A custom tool's input is free-form text, carried as arguments.input in the scenario.
        return {"id": call_id, "type": "custom", "custom": {"name": call.name, "input": call.arguments["input"]}}
    return {"id": call_id, "type": "function", "function": {"name": call.name, "arguments": compact(call.arguments)}}


def _chat_request(scenario: Scenario, upto: int) -> dict[str, Any]:
    """The request a correct client sends before response `upto`."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]
    ids = IdMap(API)
    custom = _custom_tools(scenario)
    prior = prior_turns(scenario)
    for k, turn in enumerate((*prior, *scenario.turns[:upto])):
        if turn.prompt:
            messages.append({"role": "user", "content": turn.prompt})  # a new run of the session
        if not turn.calls:
            messages.append({"role": "assistant", "content": turn.text})
            continue
        # Ids this API served go back verbatim, whatever they look like; a history's are mapped.
        # A served "" is no id: a correct client mints one (IdMap sends a native "" back as it is).
        mapped = [ids.call(c.id or None, c.name, native=k >= len(prior)) for c in turn.calls]
        messages.append(
            {
                "role": "assistant",
                "content": turn.text,
                "tool_calls": [_tool_call(i, c, custom) for i, c in zip(mapped, turn.calls, strict=True)],
            }
        )
        answered = [(i, c) for i, c in zip(mapped, turn.calls, strict=True) if not c.interrupted]
        if scenario.answer_order == "reversed":
            answered.reverse()
        messages.extend({"role": "tool", "tool_call_id": i, "content": c.output} for i, c in answered)
        # A run cut off before a tool answered: the repair a correct client makes before the next run.
        interrupted = [i for i, c in zip(mapped, turn.calls, strict=True) if c.interrupted]
        messages.extend({"role": "tool", "tool_call_id": i, "content": INTERRUPTED} for i in interrupted)
    if upto < len(scenario.turns) and scenario.turns[upto].prompt:
        messages.append({"role": "user", "content": scenario.turns[upto].prompt})
    body: dict[str, Any] = {"model": scenario.model, "messages": messages}
    body["tools"] = [
        {"type": "custom", "custom": {"name": t["name"], "description": t.get("description", "")}}
        if t.get("type") == "custom"
        else {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t.get("description", ""),
                "parameters": t["parameters"],
            },
        }
        for t in scenario.tools
    ]
    if scenario.stream:
        body["stream"] = True
    return body


def _chat_response(scenario: Scenario, index: int) -> tuple[str, str]:
    turn = scenario.turns[index]
    digest = seed(scenario, index)
    completion_id = _completion_id(digest)
    created = 1767225600 + int(digest[:6], 16) % 86400
    model = f"{scenario.model}-2024-07-18" if scenario.model == "gpt-4o-mini" else scenario.model
    finish = "tool_calls" if turn.calls else "stop"
    if not scenario.stream:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text if not turn.calls else None}
        if turn.calls:
            message["tool_calls"] = [_tool_call(c.id, c, _custom_tools(scenario)) for c in turn.calls]
        message["refusal"] = None
        message["annotations"] = []
        body = {
            "id": completion_id,
            "object": "chat.completion",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": {"prompt_tokens": 80 + 40 * index, "completion_tokens": 18, "total_tokens": 98 + 40 * index},
            "service_tier": "default",
            "system_fingerprint": "fp_560af6e559",
        }
        return JSON, json.dumps(body, indent=2, ensure_ascii=False) + "\n"

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        data = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "service_tier": "default",
            "system_fingerprint": "fp_560af6e559",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
        }
        return f"data: {compact(data)}\n\n"

    events = [chunk({"role": "assistant", "content": None if turn.calls else "", "refusal": None})]
    for k, call in enumerate(turn.calls):
        opening = {"index": k, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}
        events.append(chunk({"tool_calls": [opening]}))
        for piece in split(compact(call.arguments)):
            events.append(chunk({"tool_calls": [{"index": k, "function": {"arguments": piece}}]}))
    if not turn.calls and turn.text:
        for piece in split(turn.text, 4):
            events.append(chunk({"content": piece}))
    events.append(chunk({}, finish))
    events.append("data: [DONE]\n\n")
    return SSE, "".join(events)


# --- OpenAI-compatible servers -------------------------------------------------------------
# Some scenarios are served by an OpenAI-compatible server rather than by OpenAI. The scenario
# schema has no field for the server, so this table names it, by scenario id; each server shapes
# its responses its own way (ids, chunking, call indexes), as the sources each scenario cites show.

OPENAI_URI = "https://api.openai.com/v1/chat/completions"
OLLAMA_URI = "http://localhost:11434/v1/chat/completions"
GEMINI_URI = "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions"
VLLM_URI = "http://localhost:8000/v1/chat/completions"

SERVED_BY: dict[str, str] = {
    "openai-chat/ollama-parallel-index-zero": "ollama",
    "openai-chat/gemini-compat-empty-ids": "gemini",
    "openai-chat/kimi-k2-chain": "vllm",
    "openai-chat/kimi-k2-first-chunk-duplicate-index": "vllm-speculative",
    "openai-chat/streamed-id-on-every-delta": "deepseek",
    "openai-chat/streamed-empty-ids-after-first": "dashscope",
    "openai-chat/streamed-calls-without-ids": "stepfun",
    "openai-chat/streamed-interleaved-parallel-calls": "openrouter",
    "openai-chat/streamed-indices-from-one": "litellm-proxy",
    "openai-chat/streamed-name-after-arguments": "compatible",
    "openai-chat/streamed-two-calls-one-chunk": "litellm-proxy",
    # A history played on a LiteLLM gateway that served several models (its notes say which).
    "bedrock-converse/from-openai-chat.history": "litellm-gateway",
}


def _created(digest: str) -> int:
    return 1767225600 + int(digest[:6], 16) % 86400


def _ollama_response(scenario: Scenario, index: int) -> tuple[str, str]:
    """Ollama's stream (openai/openai.go toChunk and FinishChunk): each call whole in one chunk, and
    every call at index 0 (ollama/ollama#15457); an empty content is kept, not left out."""
    if not scenario.stream:
        raise SystemExit(f"{scenario.id}: the Ollama builder writes streams only")
    turn = scenario.turns[index]
    digest = seed(scenario, index)
    head = {
        "id": f"chatcmpl-{int(digest[:6], 16) % 999}",
        "object": "chat.completion.chunk",
        "created": _created(digest),
        "model": scenario.model,
        "system_fingerprint": "fp_ollama",
    }

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
        return f"data: {compact({**head, 'choices': [choice]})}\n\n"

    events = []
    for k, call in enumerate(turn.calls):
        entry = {
            "id": call.id,
            "index": 0,
            "type": "function",
            "function": {"name": call.name, "arguments": compact(call.arguments)},
        }
        events.append(chunk({**({"role": "assistant"} if k == 0 else {}), "content": "", "tool_calls": [entry]}))
    if not turn.calls:
        for k, piece in enumerate(split(turn.text or "", 4)):
            events.append(chunk({**({"role": "assistant"} if k == 0 else {}), "content": piece}))
    events.append(chunk({}, "tool_calls" if turn.calls else "stop"))
    events.append("data: [DONE]\n\n")
    return SSE, "".join(events)


def _gemini_response(scenario: Scenario, index: int) -> tuple[str, str]:
    """Gemini's OpenAI-compatible endpoint: a call's id may come back as "" (vercel/ai#7834,
    dotnet/extensions#6380); keys in alphabetical order, as in the responses those reports quote."""
    if scenario.stream:
        raise SystemExit(f"{scenario.id}: the Gemini builder writes non-streamed responses only")
    turn = scenario.turns[index]
    digest = seed(scenario, index)
    message: dict[str, Any] = {"role": "assistant"}
    if turn.calls:
        message["tool_calls"] = [
            {"function": {"arguments": compact(c.arguments), "name": c.name}, "id": c.id, "type": "function"}
            for c in turn.calls
        ]
    else:
        message["content"] = turn.text
    body = {
        "choices": [{"finish_reason": "tool_calls" if turn.calls else "stop", "index": 0, "message": message}],
        "created": _created(digest),
        "id": _base62(digest, 23),
        "model": scenario.model,
        "object": "chat.completion",
        "usage": {"completion_tokens": 18, "prompt_tokens": 80 + 40 * index, "total_tokens": 98 + 40 * index},
    }
    return JSON, json.dumps(body, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _vllm_response(scenario: Scenario, index: int, *, speculative: bool = False) -> tuple[str, str]:
    """vLLM's stream: a call's first delta carries its id and name, later ones its argument fragments.
    With speculative decoding several tokens are accepted at once, and the first tool_calls delta
    can carry the header and the first argument fragment as two entries of the same index
    (openai/openai-python#3201, #3203)."""
    if not scenario.stream:
        raise SystemExit(f"{scenario.id}: the vLLM builder writes streams only")
    turn = scenario.turns[index]
    digest = seed(scenario, index)
    head = {
        "id": f"chatcmpl-{digest[:32]}",
        "object": "chat.completion.chunk",
        "created": _created(digest),
        "model": scenario.model,
    }

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return f"data: {compact({**head, 'choices': [choice]})}\n\n"

    events = [chunk({"role": "assistant", "content": ""})]
    for k, call in enumerate(turn.calls):
        header = {"index": k, "id": call.id, "type": "function", "function": {"name": call.name}}
        pieces = split(compact(call.arguments))
        if speculative:
            events.append(chunk({"tool_calls": [header, {"index": k, "function": {"arguments": pieces[0]}}]}))
            pieces = pieces[1:]
        else:
            events.append(chunk({"tool_calls": [header]}))
        for piece in pieces:
            events.append(chunk({"tool_calls": [{"index": k, "function": {"arguments": piece}}]}))
    if not turn.calls:
        for piece in split(turn.text or "", 4):
            events.append(chunk({"content": piece}))
    events.append(chunk({}, "tool_calls" if turn.calls else "stop"))
    events.append("data: [DONE]\n\n")
    return SSE, "".join(events)


def tool_call_deltas(calls: tuple[ExpectedCall, ...], shape: StreamShape) -> list[dict[str, Any]]:
    """The `tool_calls` entries a stream delivers a turn's calls in, one a chunk, in the shape given."""
    per_call: list[list[dict[str, Any]]] = []
    for k, call in enumerate(calls):
        index = shape.index(k)
        pieces = split(compact(call.arguments), shape.fragments)
        own = {} if shape.id == "absent" else {"id": call.id}
        if shape.name == "late":
            # The opening delta carries the id and the first fragment; the name follows with the next.
            deltas = [{"index": index, **own, "type": "function", "function": {"arguments": pieces[0]}}]
            rest, named = pieces[1:] or [""], False
        else:
            deltas = [{"index": index, **own, "type": "function", "function": {"name": call.name, "arguments": ""}}]
            rest, named = pieces, True
        for piece in rest:
            function: dict[str, Any] = {"arguments": piece} if named else {"name": call.name, "arguments": piece}
            named = True
            if shape.id == "every":
                deltas.append({"index": index, "id": call.id, "type": "function", "function": function})
            elif shape.id == "empty-after-first":
                deltas.append({"id": "", "type": "function", "index": index, "function": function})
            else:
                deltas.append({"index": index, "function": function})
        per_call.append(deltas)
    if not shape.interleave:
        return [d for deltas in per_call for d in deltas]
    ordered: list[dict[str, Any]] = []
    for step in range(max((len(d) for d in per_call), default=0)):
        ordered += [deltas[step] for deltas in per_call if step < len(deltas)]
    return ordered


# Servers whose streams have a shape of their own (the scenario's stream_shape): the address, the
# model name they report, and the fields every chunk carries besides choices.
COMPATIBLE: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "deepseek": (
        "https://api.deepseek.com/chat/completions",
        {"object": "chat.completion.chunk", "system_fingerprint": "fp_8802369eaa_prod0623_fp8_kvcache"},
        {"logprobs": None},
    ),
    "dashscope": (
        "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions",
        {"object": "chat.completion.chunk", "system_fingerprint": None, "usage": None},
        {"logprobs": None},
    ),
    "stepfun": ("https://api.stepfun.com/v1/chat/completions", {"object": "chat.completion.chunk"}, {}),
    "openrouter": (
        "https://openrouter.ai/api/v1/chat/completions",
        {"provider": "Google", "object": "chat.completion.chunk"},
        {"native_finish_reason": None, "logprobs": None},
    ),
    "litellm-proxy": (
        "http://localhost:4000/v1/chat/completions",
        {"object": "chat.completion.chunk", "provider_specific_fields": {}},
        {},
    ),
    "compatible": ("http://localhost:8080/v1/chat/completions", {"object": "chat.completion.chunk"}, {}),
}


def _compatible_response(scenario: Scenario, index: int, server: str) -> tuple[str, str]:
    """A compatible server's stream: the turn's text first, then its calls in the scenario's stream_shape."""
    if not scenario.stream:
        raise SystemExit(f"{scenario.id}: the {server} builder writes streams only")
    _, fields, choice_fields = COMPATIBLE[server]
    turn = scenario.turns[index]
    digest = seed(scenario, index)
    head = {"id": f"chatcmpl-{digest[:32]}", "created": _created(digest), "model": scenario.model, **fields}

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason, **choice_fields}
        return f"data: {compact({**head, 'choices': [choice]})}\n\n"

    shape = stream_shape(scenario)
    if shape.calls_per_event == "all" and turn.calls:
        # Every call whole, in the one chunk that opens the turn (LiteLLM's stream of a Gemini response,
        # whose functionCall parts arrive complete and together: BerriAI/litellm#11999).
        whole = [
            {
                "id": c.id,
                "function": {"arguments": compact(c.arguments), "name": c.name},
                "type": "function",
                "index": shape.index(k),
            }
            for k, c in enumerate(turn.calls)
        ]
        events = [chunk({"role": "assistant", "tool_calls": whole})]
    else:
        events = [chunk({"role": "assistant", "content": ""})]
        for piece in split(turn.text or "", 4) if turn.text else []:
            events.append(chunk({"content": piece}))
        for entry in tool_call_deltas(turn.calls, shape):
            events.append(chunk({"tool_calls": [entry]}))
    events.append(chunk({}, "tool_calls" if turn.calls else "stop"))
    events.append("data: [DONE]\n\n")
    return SSE, "".join(events)


def _base62(digest: str, length: int) -> str:
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    number = int(digest, 16)
    out = []
    for _ in range(length):
        number, digit = divmod(number, 62)
        out.append(alphabet[digit])
    return "".join(out)


SERVERS: dict[str, tuple[str, Callable[[Scenario, int], tuple[str, str]]]] = {
    "openai": (OPENAI_URI, _chat_response),
    "ollama": (OLLAMA_URI, _ollama_response),
    "gemini": (GEMINI_URI, _gemini_response),
    "vllm": (VLLM_URI, _vllm_response),
    "vllm-speculative": (VLLM_URI, partial(_vllm_response, speculative=True)),
    **{name: (uri, partial(_compatible_response, server=name)) for name, (uri, _, _) in COMPATIBLE.items()},
    "litellm-gateway": ("http://localhost:4000/v1/chat/completions", _chat_response),
}


def served_by(scenario: Scenario) -> str:
    """The server whose shapes a scenario's responses take. OpenAI itself has one stream shape; a
    scenario that asks for another (its stream_shape) is served by a compatible server, in that shape."""
    named = SERVED_BY.get(scenario.id)
    if named is not None:
        return named
    return "compatible" if scenario.stream and scenario.data.get("stream_shape") else "openai"


def build(scenario: Scenario) -> list[dict[str, Any]]:
    uri, respond = SERVERS[served_by(scenario)]
    interactions = []
    for index in range(len(scenario.turns)):
        content_type, body = respond(scenario, index)
        interactions.append(interaction(uri, _chat_request(scenario, index), content_type, body))
    return interactions
