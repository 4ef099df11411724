"""Haystack (`haystack-ai` and its provider integrations), run as its documentation shows.

The loop is `haystack.components.agents.Agent`: a chat generator and the scenario's tools, run on
the prompt until the model answers in text (the Agent's default exit condition). Each API gets
the chat generator Haystack has for it: `OpenAIChatGenerator` (OpenAI Chat Completions, and the
OpenAI-compatible Moonshot API through its `api_base_url`), `OpenAIResponsesChatGenerator`,
`AnthropicChatGenerator`, `GoogleGenAIChatGenerator`, `CohereChatGenerator`, `OllamaChatGenerator`,
`MistralChatGenerator` and `AmazonBedrockChatGenerator` (Converse). A streamed scenario passes a
`streaming_callback` to `Agent.run`, which is how Haystack streams a generator's reply.

Tools are `haystack.tools.Tool`s built from the scenario's name, description and JSON schema,
whose function returns `loop.call_tool`; a free-form (custom) tool has no Haystack form and the
scenario is declared unsupported. Retries are off (`max_retries=0`; for Bedrock one attempt in the
boto3 config). The generators that take no base URL are pointed at the replay the way their SDKs
document: `ANTHROPIC_BASE_URL` (anthropic), `GOOGLE_GEMINI_BASE_URL` (google-genai) and
`AWS_ENDPOINT_URL_BEDROCK_RUNTIME` (boto3), set for the run only.

Server tools: Anthropic's are the generator's `anthropic_server_tools`. OpenAI Responses and Gemini
take the provider's tool definitions only where no Haystack tool is given (the Responses generator's
`tools` as a list of OpenAI tool dicts, the Gemini generator's `generation_kwargs["tools"]`); beside
function tools they cannot be declared, and such a scenario is declared unsupported, naming the
generator's limit, as are an Anthropic MCP server and a tool's `allowed_callers`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any

from conformance.clients.official_sdks.common import (
    bedrock_region,
    installed_version,
    named_mcp_servers,
    one_attempt,
    server_tools,
)
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.engine.neutral import text_of

MAX_AGENT_STEPS = 16
# Anthropic needs max_tokens; the recorded non-streamed traffic used 4096.
MAX_TOKENS = 4096


def _tools(loop: ToolLoop) -> list[Any]:
    from haystack.tools.tool import Tool

    for t in loop.tools:
        if t.get("type", "function") != "function":
            loop.skip(
                f"Haystack cannot declare the {t.get('type')} tool {t['name']!r}: a haystack.tools.Tool is a function "
                "tool with a JSON schema"
            )

    def implementation(name: str) -> Callable[..., str]:
        def run(**arguments: Any) -> str:
            return loop.call_tool(name, arguments)

        return run

    return [
        Tool(
            name=t["name"],
            description=t.get("description", ""),
            parameters=dict(t.get("parameters") or {"type": "object", "properties": {}}),
            function=implementation(t["name"]),
        )
        for t in loop.tools
    ]


def _run(loop: ToolLoop, generator: Any) -> str:
    """The documented loop: an Agent with the generator and the tools, run until it answers in text. A
    restored history is the run's `messages` (Haystack ChatMessages); each later run of a session is run
    on the messages the one before returned (`result["messages"]`) with the run's user message."""
    from haystack.components.agents import Agent
    from haystack.dataclasses import ChatMessage, StreamingChunk

    def on_chunk(chunk: StreamingChunk) -> None:  # streaming is on when a callback is given
        pass

    agent = Agent(chat_generator=generator, tools=_tools(loop), max_agent_steps=MAX_AGENT_STEPS)
    agent.warm_up()
    if loop.interrupted:
        loop.skip(
            "a Haystack Agent run cut off in a tool raises out of Agent.run, which returns no messages, and the "
            "Agent has no way to end a run before a tool answers (a hook's stop_run is read only before an LLM "
            "call, Agent._run_step): what a later run continues from is the application's own copy of the "
            "conversation"
        )
    messages: list[Any] = restored_messages(loop)
    answer = ""
    for prompt in loop.runs:
        if prompt is not None:
            messages.append(ChatMessage.from_user(prompt))
        result = agent.run(messages=messages, streaming_callback=on_chunk if loop.stream else None)
        messages = list(result.get("messages") or messages)
        last = result.get("last_message")
        answer = str(last.text or "") if last is not None else ""
    return answer


def restored_messages(loop: ToolLoop) -> list[Any]:
    """A saved conversation as Haystack keeps one (ChatMessages, provider-neutral: an assistant message
    of ToolCalls under the calls' ids, a tool message per result whose origin is its call). A call saved
    without an id keeps none, as Haystack's ToolCall allows (`id: str | None`)."""
    from haystack.dataclasses import ChatMessage, ToolCall

    messages: list[Any] = []
    calls: list[Any] = []
    for message in loop.history:
        parts = message["parts"]
        text = text_of(message)
        if message["role"] == "system":
            messages.append(ChatMessage.from_system(text))
        elif message["role"] == "user":
            messages.append(ChatMessage.from_user(text))
        elif message["role"] == "assistant":
            calls = [
                ToolCall(tool_name=p["name"], arguments=dict(p.get("arguments") or {}), id=p.get("call_id") or None)
                for p in parts
                if p["type"] == "tool_call" and not p.get("provider_executed")
            ]
            messages.append(ChatMessage.from_assistant(text or None, tool_calls=calls or None))
        elif message["role"] == "tool":
            for i, p in enumerate(parts):
                call_id = p.get("call_id")
                origin = next((c for c in calls if call_id and c.id == call_id), None)
                if origin is None:
                    origin = calls[i] if i < len(calls) else ToolCall(str(p.get("name") or ""), {}, call_id)
                messages.append(ChatMessage.from_tool(str(p.get("output", "")), origin=origin))
    return messages


@contextlib.contextmanager
def _environment(**values: str) -> Iterator[None]:
    """Set the SDK's documented base-URL variables for one run and put the old values back."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, old in saved.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old


def openai_chat(loop: ToolLoop) -> str:
    from haystack.components.generators.chat import OpenAIChatGenerator
    from haystack.utils import Secret

    generator = OpenAIChatGenerator(
        api_key=Secret.from_token(loop.api_key), model=loop.model, api_base_url=loop.base_url, max_retries=0
    )
    return _run(loop, generator)


def kimi_chat(loop: ToolLoop) -> str:
    return openai_chat(loop)


def openai_responses(loop: ToolLoop) -> str:
    from haystack.components.generators.chat import OpenAIResponsesChatGenerator
    from haystack.utils import Secret

    builtin = server_tools(loop)
    if builtin and loop.tools:
        loop.skip(
            "Haystack's OpenAIResponsesChatGenerator takes either Haystack tools or a list of OpenAI tool "
            "definitions, not both (its `tools` docstring: 'You cannot pass OpenAI/MCP tools and Haystack tools "
            "together'; _prepare_api_call sends the dicts only when the first tool is one): the recording's "
            f"{', '.join(sorted({str(t.get('type')) for t in builtin}))} cannot be declared beside function tools"
        )
    # With no function tool, the recorded server tools are the generator's own `tools`, a list of OpenAI tool
    # definitions; the Agent then passes it none, and the generator sends them.
    generator = OpenAIResponsesChatGenerator(
        api_key=Secret.from_token(loop.api_key),
        model=loop.model,
        api_base_url=loop.base_url,
        max_retries=0,
        tools=builtin or None,
    )
    return _run(loop, generator)


def mistral_chat(loop: ToolLoop) -> str:
    from haystack.utils import Secret
    from haystack_integrations.components.generators.mistral import MistralChatGenerator

    generator = MistralChatGenerator(
        api_key=Secret.from_token(loop.api_key), model=loop.model, api_base_url=loop.base_url, max_retries=0
    )
    return _run(loop, generator)


def anthropic_messages(loop: ToolLoop) -> str:
    from haystack.utils import Secret
    from haystack_integrations.components.generators.anthropic import AnthropicChatGenerator

    if named_mcp_servers(loop) or loop.settings.body.get("mcp_servers"):
        loop.skip(
            "Haystack's AnthropicChatGenerator drops every generation_kwargs key outside its ALLOWED_PARAMS, which "
            "has no mcp_servers (AnthropicChatGenerator._prepare_request_params): the recording's MCP server "
            "cannot be declared"
        )
    for t in loop.tools:
        if t.get("allowed_callers"):
            loop.skip(
                f"Haystack cannot declare allowed_callers on the tool {t['name']!r}: AnthropicChatGenerator sends "
                "a haystack.tools.Tool as ToolParam(name, description, input_schema) only "
                "(AnthropicChatGenerator._prepare_request_params)"
            )
    with _environment(ANTHROPIC_BASE_URL=loop.base_url):
        generator = AnthropicChatGenerator(
            api_key=Secret.from_token(loop.api_key),
            model=loop.model,
            generation_kwargs={"max_tokens": MAX_TOKENS},
            anthropic_server_tools=server_tools(loop) or None,
            max_retries=0,
        )
        return _run(loop, generator)


def gemini(loop: ToolLoop) -> str:
    from haystack.utils import Secret
    from haystack_integrations.components.generators.google_genai import GoogleGenAIChatGenerator

    builtin = server_tools(loop)
    if builtin and loop.tools:
        loop.skip(
            "Haystack's GoogleGenAIChatGenerator sets the request config's tools to the Haystack tools it is "
            "given, replacing any in generation_kwargs (GoogleGenAIChatGenerator.run: config_params['tools'] = "
            "_convert_tools_to_google_genai_format(tools)): the recording's Gemini tools cannot be declared beside "
            "function tools"
        )
    # With no function tool, generation_kwargs are the GenerateContentConfig as they are: its `tools` the
    # recorded Gemini tools.
    kwargs = {"tools": builtin} if builtin else None
    with _environment(GOOGLE_GEMINI_BASE_URL=loop.base_url):
        generator = GoogleGenAIChatGenerator(
            api_key=Secret.from_token(loop.api_key), model=loop.model, max_retries=0, generation_kwargs=kwargs
        )
        return _run(loop, generator)


def cohere_v2(loop: ToolLoop) -> str:
    from haystack.utils import Secret
    from haystack_integrations.components.generators.cohere import CohereChatGenerator

    generator = CohereChatGenerator(
        api_key=Secret.from_token(loop.api_key), model=loop.model, api_base_url=loop.base_url, max_retries=0
    )
    return _run(loop, generator)


def ollama_chat(loop: ToolLoop) -> str:
    from haystack_integrations.components.generators.ollama import OllamaChatGenerator

    return _run(loop, OllamaChatGenerator(model=loop.model, url=loop.base_url, max_retries=0))


def bedrock_converse(loop: ToolLoop) -> str:
    from haystack.utils import Secret
    from haystack_integrations.components.generators.amazon_bedrock import AmazonBedrockChatGenerator

    with _environment(AWS_ENDPOINT_URL_BEDROCK_RUNTIME=loop.base_url):
        generator = AmazonBedrockChatGenerator(
            model=loop.model,
            aws_access_key_id=Secret.from_token("conformance"),
            aws_secret_access_key=Secret.from_token(loop.api_key),
            aws_session_token=None,
            aws_profile_name=None,
            aws_region_name=bedrock_region(loop.base_url),
            generation_kwargs={"maxTokens": MAX_TOKENS},
            boto3_config={"retries": one_attempt()},
        )
        return _run(loop, generator)


ADAPTER = ClientAdapter(
    name="haystack",
    version=installed_version("haystack-ai"),
    clients={
        "openai-chat": openai_chat,
        "kimi-chat": kimi_chat,
        "openai-responses": openai_responses,
        "anthropic-messages": anthropic_messages,
        "gemini": gemini,
        "mistral-chat": mistral_chat,
        "cohere-v2": cohere_v2,
        "ollama-chat": ollama_chat,
        "bedrock-converse": bedrock_converse,
    },
    homepage="https://github.com/deepset-ai/haystack",
    continues=frozenset({"history", "sessions"}),
    unsupported={
        "openresponses": "Haystack has no Open Responses generator; its OpenAIResponsesChatGenerator is run on the "
        "openai-responses cases",
        "azure-foundry": "Haystack's AzureOpenAIResponsesChatGenerator serves Azure OpenAI deployments; the Foundry "
        "project's agent tools (AI Search, Bing, SharePoint, A2A, ...) have no Haystack tool",
    },
)
