"""Semantic Kernel (`semantic-kernel`), run as its documentation shows: a `ChatCompletionAgent` over a chat
completion service, its plugin's functions called by automatic function calling.

Each API gets the service Semantic Kernel has for it, given an SDK client pointed at `loop.base_url`
with `loop.api_key` (retries off): `OpenAIChatCompletion` (Chat Completions, and Moonshot's
OpenAI-compatible endpoint), `AnthropicChatCompletion` (Anthropic's Messages API and Ollama's copy of
it), `GoogleAIChatCompletion` (Gemini's generateContent through google-genai), `MistralAIChatCompletion`,
`OllamaChatCompletion` (Ollama's /api/chat) and `BedrockChatCompletion` (Converse). The Responses API
has an agent of its own, `OpenAIResponsesAgent`, which runs the same plugin functions.

The tools are one plugin (`tools`) of kernel functions built from the scenario's name, description
and JSON schema (`KernelFunctionFromMethod` with its `KernelParameterMetadata`), returning the
scenario's canned output; the agent's settings ask for `FunctionChoiceBehavior.Auto()`. Semantic
Kernel declares a plugin's function to the model under its fully qualified name, `tools-get_weather`
(Gemini: `tools__get_weather`), and has no way to declare a function outside a plugin, so a recorded
call to `get_weather` is one the provider would not have made for these requests: the replay says so
and the case is a skip naming the declared name.

The provider's own tools a scenario uses are declared where Semantic Kernel has a way to: the
`OpenAIResponsesAgent` takes Responses tool definitions as they are (its `tools`, sent beside the plugin's
functions), so the ones the provider runs are given as recorded. It runs only the function calls of a
response, so a built-in whose calls the client must answer (computer use, shell, tool search, an MCP
approval) is declared unsupported, as is every provider tool on Anthropic and Gemini, whose services
set the request's tools from the kernel's functions alone.

Streaming follows `loop.stream` (`invoke_stream` or `invoke`). A restored history is the agent's
`ChatHistoryAgentThread` holding a `ChatHistory` of the saved messages (`FunctionCallContent` and
`FunctionResultContent` items under the saved ids); each run of a session is an invocation on the same
thread.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from conformance.clients.official_sdks.common import bedrock_client, installed_version
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.engine.neutral import text_of

PLUGIN = "tools"
# Anthropic and Bedrock: the recorded traffic used 4096.
MAX_TOKENS = 4096

# Where each chat service writes the request's tools from the kernel's functions alone, its settings'
# `tools` being "Do not set this manually" (semantic-kernel 1.45.0).
_AI = "semantic_kernel/connectors/ai"
_FUNCTIONS_ONLY = {
    "AnthropicChatCompletion": (
        f"`update_settings_from_function_call_configuration`, {_AI}/anthropic/services/utils.py:123-144"
    ),
    "GoogleAIChatCompletion": (
        f"`update_settings_from_function_choice_configuration`, {_AI}/google/google_ai/services/utils.py:171-192"
    ),
}
# The Responses agent runs the `ResponseFunctionToolCall` items of a response and no other.
_RUNS_FUNCTIONS = (
    "OpenAIResponsesAgent runs only a response's function calls (`_get_tool_calls_from_output`, "
    "semantic_kernel/agents/open_ai/responses_agent_thread_actions.py:891-910)"
)


def _no_provider_tools(loop: ToolLoop, service: str) -> None:
    if loop.server_tools:
        kinds = loop.server_tool_kinds
        loop.skip(
            f"Semantic Kernel's {service} sends the kernel's functions as the request's tools "
            f"({_FUNCTIONS_ONLY[service]}): it cannot declare the provider tool {kinds}"
        )


def _responses_tools(loop: ToolLoop) -> list[Any]:
    """The provider tools of the scenario, as recorded, for the agent's `tools` (some, `programmatic_tool_calling`,
    newer than the SDK's `ToolParam` union); a built-in whose calls the client answers is declared unsupported."""
    from conformance.engine.called_tools import CLIENT_BUILT_IN_TYPES

    answered = [
        t
        for t in loop.server_tools
        if t.get("type") in CLIENT_BUILT_IN_TYPES or (t.get("type") == "mcp" and t.get("require_approval") != "never")
    ]
    for t in answered:
        kind = str(t.get("type"))
        if kind.startswith("computer"):
            loop.skip(
                "Semantic Kernel's OpenAIResponsesAgent.configure_computer_use_tool raises NotImplementedError "
                "(semantic_kernel/agents/open_ai/openai_responses_agent.py:717-720), and the "
                f"{_RUNS_FUNCTIONS}: it cannot run the built-in tool {kind}"
            )
        if kind == "mcp":
            loop.skip(
                f"Semantic Kernel's {_RUNS_FUNCTIONS}: it has no answer to the MCP tool's approval requests "
                "(no mcp_approval_response)"
            )
        loop.skip(f"Semantic Kernel's {_RUNS_FUNCTIONS}: it cannot run the built-in tool {kind}")
    return [dict(t) for t in loop.server_tools]


def _plugin(loop: ToolLoop) -> Any:
    from semantic_kernel.functions import KernelFunctionFromMethod, KernelPlugin, kernel_function
    from semantic_kernel.functions.kernel_parameter_metadata import KernelParameterMetadata

    for t in loop.tools:
        if t.get("type", "function") != "function":
            loop.skip(
                f"Semantic Kernel cannot declare the {t.get('type')} tool {t['name']!r}: a kernel function's "
                "parameters are a JSON schema"
            )

    functions = []
    for t in loop.tools:
        name = t["name"]
        schema = dict(t.get("parameters") or {})
        required = set(schema.get("required") or ())

        def run(*, _name: str = name, **arguments: Any) -> str:
            return loop.call_tool(_name, {k: v for k, v in arguments.items() if k not in ("kernel", "arguments")})

        method = kernel_function(run, name=name, description=t.get("description", ""))
        parameters = [
            KernelParameterMetadata(
                name=key,
                description=value.get("description"),
                is_required=key in required,
                type=str(value.get("type", "object")) if isinstance(value.get("type"), str) else "object",
                schema_data=value,
            )
            for key, value in (schema.get("properties") or {}).items()
        ]
        functions.append(KernelFunctionFromMethod(method=method, plugin_name=PLUGIN, parameters=parameters))
    return KernelPlugin(name=PLUGIN, functions=functions)


def restored_history(loop: ToolLoop) -> Any:
    """A saved conversation as Semantic Kernel keeps one: a `ChatHistory` of `ChatMessageContent`s, the
    calls as `FunctionCallContent` items of an assistant message and each result as a `FunctionResultContent`
    in a tool message, under the call's id and the tool's name as saved (a name without a plugin). A call
    saved without an id gets the one Semantic Kernel's Google connector gives a call it reads: its name and
    the part's index (`get_weather_0`)."""
    import json

    from semantic_kernel.contents import (
        ChatHistory,
        ChatMessageContent,
        FunctionCallContent,
        FunctionResultContent,
        TextContent,
    )
    from semantic_kernel.contents.utils.author_role import AuthorRole

    history = ChatHistory()
    minted: list[str] = []
    for message in loop.history:
        parts = message["parts"]
        text = text_of(message)
        if message["role"] == "system":
            history.add_system_message(text)
        elif message["role"] == "user":
            history.add_user_message(text)
        elif message["role"] == "assistant":
            items: list[Any] = [TextContent(text=text)] if text else []
            calls = [(i, p) for i, p in enumerate(parts) if p["type"] == "tool_call" and not p.get("provider_executed")]
            # The Google connector's own id for a call read without one: its Gemini name and part index.
            minted = [p.get("call_id") or f"{p['name']}_{i}" for i, p in calls]
            items += [
                FunctionCallContent(
                    id=call_id,
                    name=p["name"],
                    arguments=json.dumps(p.get("arguments") or {}),
                )
                for call_id, (_, p) in zip(minted, calls, strict=True)
            ]
            history.add_message(ChatMessageContent(role=AuthorRole.ASSISTANT, items=items))
        elif message["role"] == "tool":
            for i, part in enumerate(parts):
                result = FunctionResultContent(
                    id=str(part.get("call_id") or minted[i]),
                    name=str(part.get("name") or ""),
                    result=part.get("output"),
                )
                history.add_message(ChatMessageContent(role=AuthorRole.TOOL, items=[result]))
    return history


async def _invoke(loop: ToolLoop, agent: Any, thread: Any) -> str:
    from conformance.replay.continued import RunInterrupted

    answer = ""
    for prompt in loop.runs:
        messages = [prompt] if prompt is not None else None
        try:
            if loop.stream:
                async for chunk in agent.invoke_stream(messages=messages, thread=thread):
                    answer, thread = str(chunk.content), chunk.thread
            else:
                async for item in agent.invoke(messages=messages, thread=thread):
                    answer, thread = str(item.content), item.thread
        except RunInterrupted:
            continue
    return answer


def _run(loop: ToolLoop, service: Any, settings: Any = None) -> str:
    """The documented agent: a ChatCompletionAgent with the plugin and automatic function calling, invoked
    on each run's prompt over one thread."""
    from semantic_kernel.agents import ChatCompletionAgent, ChatHistoryAgentThread
    from semantic_kernel.connectors.ai import FunctionChoiceBehavior, PromptExecutionSettings
    from semantic_kernel.functions import KernelArguments

    settings = settings or PromptExecutionSettings()
    settings.function_choice_behavior = FunctionChoiceBehavior.Auto()
    agent = ChatCompletionAgent(service=service, plugins=[_plugin(loop)], arguments=KernelArguments(settings=settings))
    thread = ChatHistoryAgentThread(chat_history=restored_history(loop))
    return asyncio.run(_invoke(loop, agent, thread))


def _openai_chat(loop: ToolLoop) -> str:
    from openai import AsyncOpenAI
    from semantic_kernel.connectors.ai.open_ai import OpenAIChatCompletion

    client = AsyncOpenAI(base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
    return _run(loop, OpenAIChatCompletion(ai_model_id=loop.model, async_client=client))


def _responses(loop: ToolLoop) -> str:
    from openai import AsyncOpenAI
    from semantic_kernel.agents import OpenAIResponsesAgent, ResponsesAgentThread

    client = AsyncOpenAI(base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
    if loop.history:
        loop.skip(
            "an OpenAIResponsesAgent's thread (ResponsesAgentThread) continues a stored response by its id; "
            "it takes no saved messages"
        )
    agent = OpenAIResponsesAgent(
        ai_model_id=loop.model,
        client=client,
        plugins=[_plugin(loop)],
        store_enabled=False,
        tools=_responses_tools(loop),
    )
    thread = ResponsesAgentThread(client=client)
    return asyncio.run(_invoke(loop, agent, thread))


def _anthropic(loop: ToolLoop) -> str:
    from anthropic import AsyncAnthropic
    from semantic_kernel.connectors.ai.anthropic import AnthropicChatCompletion, AnthropicChatPromptExecutionSettings

    client = AsyncAnthropic(base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
    _no_provider_tools(loop, "AnthropicChatCompletion")
    service = AnthropicChatCompletion(ai_model_id=loop.model, api_key=loop.api_key, async_client=client)
    return _run(loop, service, AnthropicChatPromptExecutionSettings(max_tokens=MAX_TOKENS))


def _gemini(loop: ToolLoop) -> str:
    from google.genai import Client, types
    from semantic_kernel.connectors.ai.google.google_ai import GoogleAIChatCompletion

    _no_provider_tools(loop, "GoogleAIChatCompletion")
    http = types.HttpOptions(base_url=loop.base_url, retry_options=types.HttpRetryOptions(attempts=1))
    client = Client(api_key=loop.api_key, http_options=http)
    return _run(loop, GoogleAIChatCompletion(gemini_model_id=loop.model, api_key=loop.api_key, client=client))


def _mistral(loop: ToolLoop) -> str:
    from mistralai import Mistral  # type: ignore[attr-defined]  # mistralai<2, which Semantic Kernel pins
    from mistralai.utils import BackoffStrategy, RetryConfig
    from semantic_kernel.connectors.ai.mistral_ai import MistralAIChatCompletion

    # The Mistral SDK takes the server URL without the API version; it appends /v1/chat/completions.
    server = re.sub(r"/v1/?$", "", loop.base_url)
    no_retries = RetryConfig("none", BackoffStrategy(1, 1, 1.0, 1), False)
    client = Mistral(api_key=loop.api_key, server_url=server, retry_config=no_retries)
    return _run(loop, MistralAIChatCompletion(ai_model_id=loop.model, api_key=loop.api_key, async_client=client))


def _ollama(loop: ToolLoop) -> str:
    from ollama import AsyncClient
    from semantic_kernel.connectors.ai.ollama import OllamaChatCompletion

    client = AsyncClient(host=loop.base_url)
    return _run(loop, OllamaChatCompletion(ai_model_id=loop.model, client=client))


def _bedrock(loop: ToolLoop) -> str:
    from semantic_kernel.connectors.ai.bedrock import BedrockChatCompletion, BedrockChatPromptExecutionSettings

    runtime = bedrock_client(loop)
    service = BedrockChatCompletion(model_id=loop.model, runtime_client=runtime, client=runtime)
    return _run(loop, service, BedrockChatPromptExecutionSettings(max_tokens=MAX_TOKENS))


ADAPTER = ClientAdapter(
    name="semantic-kernel",
    version=installed_version("semantic-kernel"),
    clients={
        "openai-chat": _openai_chat,
        "kimi-chat": _openai_chat,
        "openai-responses": _responses,
        "anthropic-messages": _anthropic,
        "ollama-messages": _anthropic,
        "gemini": _gemini,
        "mistral-chat": _mistral,
        "ollama-chat": _ollama,
        "bedrock-converse": _bedrock,
    },
    homepage="https://github.com/microsoft/semantic-kernel",
    continues=frozenset({"history", "sessions"}),
    unsupported={
        "cohere-v2": "Semantic Kernel has no Cohere chat completion service",
        "azure-foundry": "Semantic Kernel's AzureAIAgent runs Azure AI Agent Service threads, not the Foundry "
        "project's Responses endpoint",
        "gemini-interactions": "Semantic Kernel's Google connector calls generateContent, not the Interactions API",
        "openresponses": "Semantic Kernel has no Open Responses service; its OpenAIResponsesAgent is run on the "
        "openai-responses cases",
    },
)
