"""DSPy, run as its documentation shows for an agent with native function calling: `dspy.ReActV2` over a
`question -> answer` signature, its tools called through the model's own tool calls
(`dspy.ChatAdapter(use_native_function_calling=True)`), until the model calls ReActV2's `submit` tool.

Every API is reached through `dspy.LM`, which speaks to providers through LiteLLM: a provider-prefixed model
(`openai/`, `anthropic/`, `gemini/`, `mistral/`, `cohere_chat/`, `ollama_chat/`, `bedrock/converse/`,
`moonshot/`) with `api_base` at the replay, and `model_type="responses"` for the Responses API and the
servers that speak it (the `openai/` prefix with their `api_base`). The LM's cache is off (`cache=False`),
as is every retry (`num_retries=0`), so each request reaches the replay once. Tools are `dspy.Tool`s built
from the scenario's name, description and JSON schema properties, returning its canned output. A streamed
scenario runs the program through `dspy.streamify`, which asks the LM for a stream.

A restored history and a session's earlier runs are ReActV2's `history` (a `dspy.History` of its own
events: the question, then each turn's `tool_calls` with their `tool_call_results`), the documented way to
continue a ReActV2 conversation; each run returns the history the next one continues.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from conformance.clients.official_sdks.common import bedrock_region, installed_version
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.engine.neutral import text_of

# Enough for the longest recorded chain; ReActV2's default is 20.
MAX_ITERS = 8

# LiteLLM reads these as it is imported; without them it fetches its cost map and Anthropic beta table.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")


def _tools(loop: ToolLoop) -> list[Any]:
    import dspy

    for t in loop.tools:
        if t.get("type", "function") != "function":
            loop.skip(f"DSPy cannot declare the {t.get('type')} tool {t['name']!r}: a dspy.Tool has JSON arguments")
    if loop.server_tools:
        kinds = loop.server_tool_kinds
        loop.skip(
            f"DSPy declares only its dspy.Tools (`Tool.format_as_litellm_function_call`); no provider tool: {kinds}"
        )

    def implementation(name: str) -> Any:
        def run(**arguments: Any) -> str:
            # A call the scenario cuts off raises RunInterrupted (a BaseException): ReActV2 catches
            # `Exception` only (react_v2.py:228), so the run ends there.
            return loop.call_tool(name, arguments)

        return run

    return [
        dspy.Tool(
            implementation(t["name"]),
            name=t["name"],
            desc=t.get("description", ""),
            args=dict((t.get("parameters") or {}).get("properties") or {}),
        )
        for t in loop.tools
    ]


def restored_history(loop: ToolLoop) -> Any:
    """A saved conversation as ReActV2's `dspy.History`: an event holding the question, then one per
    assistant turn with its `ToolCalls` and their `ToolCallResults` (the call's id on each)."""
    import dspy
    from dspy.adapters.types.tool import ToolCallResults, ToolCalls

    events: list[dict[str, Any]] = []
    pending: dict[str, Any] = {}
    calls: list[dict[str, Any]] = []
    for message in loop.history:
        role, text = message["role"], text_of(message)
        if role == "user":
            pending = {"question": text}
        elif role == "assistant":
            # A call saved without an id gets the one ReActV2 gives a call the model sent without
            # (`_ensure_tool_call_ids`, dspy/predict/react_v2.py:380-386): `call_<turn>_<index>`.
            turn = len(events)
            calls = [
                {"name": p["name"], "args": p.get("arguments") or {}, "id": p.get("call_id") or f"call_{turn}_{i}"}
                for i, p in enumerate(
                    q for q in message["parts"] if q["type"] == "tool_call" and not q.get("provider_executed")
                )
            ]
            event = dict(pending)
            pending = {}
            if text:
                event["next_thought"] = text
            event["tool_calls"] = ToolCalls.from_dict_list(calls)
            events.append(event)
        elif role == "tool" and events:
            tool_calls = events[-1]["tool_calls"]
            results = ToolCallResults.from_tool_calls_and_values(
                tool_calls, [str(p.get("output", "")) for p in message["parts"]], [False] * len(message["parts"])
            )
            events[-1]["tool_calls"] = tool_calls.model_copy(update={"tool_call_results": results})
    if pending:
        events.append(pending)
    return dspy.History(messages=events)


def _run(loop: ToolLoop, lm: Any) -> str:
    import dspy

    from conformance.replay.continued import RunInterrupted

    agent = dspy.ReActV2("question -> answer", tools=_tools(loop), max_iters=MAX_ITERS)
    adapter = dspy.ChatAdapter(use_native_function_calling=True)
    history = restored_history(loop) if loop.history else dspy.History(messages=[])
    answer = ""
    with dspy.context(lm=lm, adapter=adapter):
        for prompt in loop.runs:
            try:
                prediction = _predict(loop, agent, prompt, history)
            except RunInterrupted:
                continue
            answer, history = str(prediction.answer), prediction.history
    return answer


def _predict(loop: ToolLoop, agent: Any, prompt: str | None, history: Any) -> Any:
    import dspy

    inputs: dict[str, Any] = {"history": history}
    if prompt is not None:
        inputs["question"] = prompt
    if not loop.stream:
        return agent(**inputs)

    async def streamed() -> Any:
        found: Any = None
        async for item in dspy.streamify(agent)(**inputs):
            if isinstance(item, dspy.Prediction):
                found = item
        return found

    return asyncio.run(streamed())


def _lm(loop: ToolLoop, model: str, **kwargs: Any) -> Any:
    import dspy

    return dspy.LM(model, api_key=loop.api_key, cache=False, num_retries=0, max_retries=0, **kwargs)


def openai_chat(loop: ToolLoop) -> str:
    return _run(loop, _lm(loop, f"openai/{loop.model}", api_base=loop.base_url))


def kimi_chat(loop: ToolLoop) -> str:
    return _run(loop, _lm(loop, f"moonshot/{loop.model}", api_base=loop.base_url))


def openai_responses(loop: ToolLoop) -> str:
    return _run(loop, _lm(loop, f"openai/{loop.model}", model_type="responses", api_base=loop.base_url))


def anthropic_messages(loop: ToolLoop) -> str:
    return _run(loop, _lm(loop, f"anthropic/{loop.model}", api_base=loop.base_url))


def gemini(loop: ToolLoop) -> str:
    # LiteLLM's Gemini api_base carries the API version: {api_base}/models/{model}:generateContent.
    return _run(loop, _lm(loop, f"gemini/{loop.model}", api_base=f"{loop.base_url}/v1beta"))


def mistral_chat(loop: ToolLoop) -> str:
    return _run(loop, _lm(loop, f"mistral/{loop.model}", api_base=loop.base_url))


def cohere_v2(loop: ToolLoop) -> str:
    # LiteLLM's Cohere api_base is the whole endpoint.
    return _run(loop, _lm(loop, f"cohere_chat/{loop.model}", api_base=f"{loop.base_url}/v2/chat"))


def ollama_chat(loop: ToolLoop) -> str:
    return _run(loop, _lm(loop, f"ollama_chat/{loop.model}", api_base=loop.base_url))


def bedrock_converse(loop: ToolLoop) -> str:
    lm = _lm(
        loop,
        f"bedrock/converse/{loop.model}",
        api_base=loop.base_url,
        aws_region_name=bedrock_region(loop.base_url),
        aws_access_key_id="conformance",
        aws_secret_access_key=loop.api_key,
    )
    return _run(loop, lm)


ADAPTER = ClientAdapter(
    name="dspy",
    version=installed_version("dspy"),
    clients={
        "openai-chat": openai_chat,
        "kimi-chat": kimi_chat,
        "openai-responses": openai_responses,
        "openresponses": openai_responses,
        "mistral-responses": openai_responses,
        "ollama-responses": openai_responses,
        "anthropic-messages": anthropic_messages,
        "ollama-messages": anthropic_messages,
        "gemini": gemini,
        "mistral-chat": mistral_chat,
        "cohere-v2": cohere_v2,
        "ollama-chat": ollama_chat,
        "bedrock-converse": bedrock_converse,
    },
    homepage="https://github.com/stanfordnlp/dspy",
    continues=frozenset({"history", "sessions"}),
    unsupported={
        "gemini-interactions": "dspy.LM reaches Gemini through LiteLLM's generateContent; it has no Interactions API",
        "azure-foundry": "dspy.LM has no Azure AI Foundry agent provider; the project endpoint's agent tool items "
        "(AI Search, Functions, Bing, SharePoint, A2A, ...) have no DSPy type",
    },
)
