"""Strands Agents (`strands-agents`), run as its documentation shows: an `Agent` with tools, called on the prompt.

Each API gets the Strands model provider that speaks it: `OpenAIModel` (Chat Completions, and
Moonshot's OpenAI-compatible endpoint as Strands' guide for compatible servers configures it),
`OpenAIResponsesModel` (OpenAI's Responses API and the servers that speak it), `AnthropicModel`
(Anthropic's Messages API, and Ollama's copy of it), `GeminiModel`, `BedrockModel`, `OllamaModel`
and `MistralModel`, pointed at `loop.base_url` with `loop.api_key`. Tools are `PythonAgentTool`s,
the module-tool form of Strands' tools guide: a `TOOL_SPEC` of the scenario's name, description and
JSON schema, and a function returning the scenario's canned output as a `ToolResult`. The provider
tools the recording declared (web search, code execution, ...) are passed the way each provider
takes them (`anthropic_tools`, `gemini_tools`, Responses `params["tools"]`), and the recorded Anthropic
MCP servers through the model's `params`, in the SDK's `extra_body` (the Messages API's `mcp_servers`
is not a keyword of the SDK's `messages.stream`); a scenario that needs a tool Strands cannot declare
or run is declared unsupported (`loop.skip`).

Streaming follows `loop.stream` where the provider lets one choose (`stream` for OpenAI and
Mistral, `streaming` for Bedrock); the Anthropic, Gemini, Ollama and Responses providers always
stream, and the replay answers them in the form they ask for. SDK retries are off (`max_retries=0`,
a single attempt for Gemini, Mistral and boto3), so a provider error surfaces once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from conformance.clients.official_sdks.common import (
    bedrock_region,
    installed_version,
    one_attempt,
    recorded_extras,
    server_tools,
)
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.engine.neutral import text_of

# Anthropic and Bedrock: the recorded traffic used 4096.
MAX_TOKENS = 4096

# Responses built-in tools that `strands/models/openai_responses.py` (its module docstring, lines 6-16) lists
# as not supported, and the client-run ones it never mentions: their items have no handler, so the loop
# cannot answer them.
_DOCSTRING = "strands.models.openai_responses module docstring"
# What the stream reads: OpenAIResponsesModel.stream opens a tool use for a `function_call` item alone.
_FUNCTION_CALLS_ONLY = "OpenAIResponsesModel.stream reads function_call output items only"
_RESPONSES_UNSUPPORTED = {
    "tool_search": f"tool_search (not supported: it needs defer_loading on function tools; {_DOCSTRING})",
    "image_generation": f"image_generation (not supported: it needs image content block deltas; {_DOCSTRING})",
    "computer_use_preview": f"computer_use_preview (not supported: it needs a screenshot/action loop; {_DOCSTRING})",
    "local_shell": f"local_shell (client-executed shell is not supported; {_DOCSTRING})",
    "shell": f"shell (client-executed shell is not supported; {_DOCSTRING})",
    "apply_patch": f"apply_patch (its apply_patch_call items are never run: {_FUNCTION_CALLS_ONLY})",
    "programmatic_tool_calling": f"programmatic_tool_calling (its program items go unread: {_FUNCTION_CALLS_ONLY})",
}


def _tools(loop: ToolLoop, cancel: Callable[[], None] = lambda: None) -> list[Any]:
    """The scenario's tools; a call the scenario cuts off first cancels the run (`cancel`)."""
    from strands.tools.tools import PythonAgentTool

    from conformance.replay.continued import RunInterrupted

    for t in loop.tools:
        if t.get("type", "function") != "function":
            # Declaring it as a function tool would send another request than the recorded one.
            loop.skip(f"Strands cannot declare the {t.get('type')} tool {t['name']!r}: a tool spec has a JSON schema")
        extras = recorded_extras(loop, t["name"], drop=frozenset({"strict", "cache_control"}))
        if extras:
            # A tool spec is a name, a description and a schema: no per-tool provider options.
            loop.skip(
                f"Strands cannot declare {', '.join(sorted(extras))} on the tool {t['name']!r}: a ToolSpec has "
                "name, description and inputSchema only, and AnthropicModel.format_request writes each as name, "
                "description and input_schema"
            )

    def implementation(name: str) -> Callable[..., Any]:
        def run(tool_use: Any, **_: Any) -> Any:
            try:
                output = loop.call_tool(name, tool_use.get("input") or {})
            except RunInterrupted:
                cancel()
                raise
            return {"toolUseId": tool_use["toolUseId"], "status": "success", "content": [{"text": output}]}

        return run

    return [
        PythonAgentTool(
            t["name"],
            {
                "name": t["name"],
                "description": t.get("description", ""),
                "inputSchema": {"json": dict(t.get("parameters") or {"type": "object", "properties": {}})},
            },
            implementation(t["name"]),
        )
        for t in loop.tools
    ]


def _run(loop: ToolLoop, model: Any) -> str:
    """The documented loop: an Agent holding the tools, called on the prompt until it answers. A restored
    history is the Agent's `messages` (and a saved system message its `system_prompt`); each run of a
    session is a call on the same Agent, `agent()` with no prompt continuing the restored messages. A run
    cut off in a tool is cancelled the way Strands documents stopping a run (`agent.cancel()`); the next
    call on the Agent repairs the conversation itself."""
    from strands import Agent

    system, messages = restored_messages(loop)
    agents: list[Any] = []
    # No callback handler: the default one prints the stream to stdout.
    agent = Agent(
        model=model,
        tools=_tools(loop, cancel=lambda: agents[0].cancel()),
        callback_handler=None,
        messages=messages or None,
        system_prompt=system,
    )
    agents.append(agent)
    answer = ""
    for prompt in loop.runs:
        answer = str(agent(prompt))
    return answer


def restored_messages(loop: ToolLoop) -> tuple[str | None, list[dict[str, Any]]]:
    """A saved conversation as a Strands Agent keeps one (its `messages`, provider-neutral content blocks:
    `toolUse` under the call's id, a `toolResult` under the same id in a user message), and the system
    message for its `system_prompt`. A call saved without an id gets one of the form Strands' own
    providers mint for a call read without (`tooluse_` and a random token), and its result the same."""
    import secrets

    system: str | None = None
    messages: list[dict[str, Any]] = []
    minted: list[str] = []
    for message in loop.history:
        parts = message["parts"]
        text = text_of(message)
        if message["role"] == "system":
            system = text
        elif message["role"] == "user":
            messages.append({"role": "user", "content": [{"text": text}]})
        elif message["role"] == "assistant":
            calls = [p for p in parts if p["type"] == "tool_call" and not p.get("provider_executed")]
            minted = [p.get("call_id") or f"tooluse_{secrets.token_urlsafe(16)}" for p in calls]
            uses = [
                {"toolUse": {"toolUseId": i, "name": p["name"], "input": p.get("arguments") or {}}}
                for i, p in zip(minted, calls, strict=True)
            ]
            messages.append({"role": "assistant", "content": [*([{"text": text}] if text else []), *uses]})
        elif message["role"] == "tool":
            results = [
                {
                    "toolResult": {
                        "toolUseId": p.get("call_id") or minted[i],
                        "status": "success",
                        "content": [{"text": str(p.get("output", ""))}],
                    }
                }
                for i, p in enumerate(parts)
            ]
            messages.append({"role": "user", "content": results})
    return system, messages


def _openai_chat(loop: ToolLoop) -> str:
    from strands.models.openai import OpenAIModel

    client = {"base_url": loop.base_url, "api_key": loop.api_key, "max_retries": 0}
    return _run(loop, OpenAIModel(client_args=client, model_id=loop.model, stream=loop.stream))


def _responses(loop: ToolLoop) -> str:
    from strands.models.openai_responses import OpenAIResponsesModel

    builtin = server_tools(loop)
    for tool in builtin:
        kind = str(tool.get("type"))
        if kind in _RESPONSES_UNSUPPORTED:
            loop.skip(f"Strands cannot run the Responses built-in tool {_RESPONSES_UNSUPPORTED[kind]}")
        if kind == "mcp" and tool.get("require_approval", "never") != "never":
            loop.skip(f"Strands' Responses provider does not surface the MCP approval flow ({_DOCSTRING})")
    client = {"base_url": loop.base_url, "api_key": loop.api_key, "max_retries": 0}
    # Built-in tools go in `params`, merged with the function tools (the provider's documented way).
    model = OpenAIResponsesModel(client_args=client, model_id=loop.model)
    if builtin:
        model.update_config(params={"tools": builtin})
    return _run(loop, model)


def _anthropic(loop: ToolLoop) -> str:
    from strands.models.anthropic import AnthropicModel

    client = {"base_url": loop.base_url, "api_key": loop.api_key, "max_retries": 0}
    servers = loop.settings.body.get("mcp_servers")
    # The model's `params` go into the request as they are; the Messages API's MCP servers are not a
    # keyword of the SDK's messages.stream, so they ride in its documented `extra_body`.
    model = AnthropicModel(
        client_args=client,
        model_id=loop.model,
        max_tokens=MAX_TOKENS,
        anthropic_tools=server_tools(loop),
        params={"extra_body": {"mcp_servers": servers}} if servers else None,
    )
    return _run(loop, model)


def gemini(loop: ToolLoop) -> str:
    from google.genai import types
    from strands.models.gemini import GeminiModel

    http = types.HttpOptions(base_url=loop.base_url, retry_options=types.HttpRetryOptions(attempts=1))
    builtin = [types.Tool.model_validate(t) for t in server_tools(loop)]
    client = {"api_key": loop.api_key, "http_options": http}
    return _run(loop, GeminiModel(client_args=client, model_id=loop.model, gemini_tools=builtin))


def ollama_chat(loop: ToolLoop) -> str:
    from strands.models.ollama import OllamaModel

    return _run(loop, OllamaModel(host=loop.base_url, model_id=loop.model))


def mistral_chat(loop: ToolLoop) -> str:
    from mistralai.client.utils import BackoffStrategy, RetryConfig
    from strands.models.mistral import MistralModel

    # The Mistral SDK takes the server URL without the API version; it appends /v1/chat/completions.
    server = re.sub(r"/v1/?$", "", loop.base_url)
    no_retries = RetryConfig("none", BackoffStrategy(1, 1, 1.0, 1), False)
    client = {"server_url": server, "retry_config": no_retries}
    return _run(loop, MistralModel(api_key=loop.api_key, client_args=client, model_id=loop.model, stream=loop.stream))


def bedrock_converse(loop: ToolLoop) -> str:
    import boto3
    from botocore.config import Config
    from strands.models.bedrock import BedrockModel

    session = boto3.Session(
        aws_access_key_id="conformance",
        aws_secret_access_key=loop.api_key,
        region_name=bedrock_region(loop.base_url),
    )
    model = BedrockModel(
        boto_session=session,
        boto_client_config=Config(retries=one_attempt()),
        endpoint_url=loop.base_url,
        model_id=loop.model,
        max_tokens=MAX_TOKENS,
        streaming=loop.stream,
    )
    return _run(loop, model)


ADAPTER = ClientAdapter(
    name="strands-agents",
    version=installed_version("strands-agents"),
    clients={
        "openai-chat": _openai_chat,
        "kimi-chat": _openai_chat,
        "openai-responses": _responses,
        "openresponses": _responses,
        "mistral-responses": _responses,
        "ollama-responses": _responses,
        "anthropic-messages": _anthropic,
        "ollama-messages": _anthropic,
        "gemini": gemini,
        "mistral-chat": mistral_chat,
        "bedrock-converse": bedrock_converse,
        "ollama-chat": ollama_chat,
    },
    homepage="https://github.com/strands-agents/sdk-python",
    continues=frozenset({"history", "sessions"}),
    unsupported={
        "cohere-v2": "Strands has no Cohere provider; Cohere is reached only through its OpenAI-compatible "
        "endpoint, not the v2 chat API",
        "azure-foundry": "Strands has no Azure AI Foundry provider; the project endpoint's agent tool items "
        "(AI Search, Functions, Bing, SharePoint, A2A, ...) have no Strands model",
    },
)
