"""Pydantic AI (`pydantic-ai-slim`), run as its documentation shows: an `Agent` with tools runs the loop.

Each API gets the framework's own model class and provider, pointed at `loop.base_url` with
`loop.api_key`. Tools are built with `Tool.from_schema` from the scenario's name, description and
JSON schema, and return the scenario's canned output. A non-streamed scenario is run with
`Agent.run_sync`; a streamed one with `Agent.run_stream_events`, which the framework documents for
streaming a run that executes every tool call to completion (`run_stream` stops at the first text).
Servers of the OpenAI and Anthropic wires under another host get the same model classes with the
provider the framework documents for them: Mistral's `/v1/responses` through `OpenAIResponsesModel`
with an `OpenAIProvider(base_url=...)`, Ollama's through `OpenAIResponsesModel` with its
`OllamaProvider`, Ollama's `/v1/messages` through `AnthropicModel` with an `AnthropicProvider(base_url=...)`.
SDK retries are off (`max_retries=0`; for Bedrock, a boto3 client that makes one attempt), so a
provider error surfaces once.

The provider's own tools the scenario uses are declared as the framework documents it, through the
agent's capabilities: a `NativeTool` for each native tool class (`WebSearchTool`, `WebFetchTool`,
`CodeExecutionTool`, `FileSearchTool`, `ImageGenerationTool`, `AdvisorTool`, `MCPServerTool`), and
Anthropic's tool search as the `ToolSearch` capability over the tools the recording deferred. A
provider tool with no Pydantic AI class (Responses `shell`, `local_shell`, `computer_use_preview`,
`programmatic_tool_calling`, Anthropic's browser toolset), a tool option no `Tool` carries
(`allowed_callers`), and recorded options the class cannot send in a way that changes what the
server answers (a Responses MCP server that asks for approval) are declared unsupported
(`loop.skip`), naming what the framework lacks.

A session's runs continue one another's `all_messages()`; a run cut off in its tool raises out of the
agent, and the next run continues what `capture_run_messages` kept of it, as the framework documents
for a run that raised.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from typing import Any

from conformance.clients.official_sdks.common import (
    bedrock_client,
    installed_version,
    named_mcp_servers,
    recorded_extras,
)
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.engine.neutral import text_of

PACKAGE = "pydantic-ai-slim"

# Anthropic and Bedrock: without `max_tokens` the framework asks for the model's whole output budget and
# then streams a non-streamed request behind the scenes; the recorded non-streamed traffic used 4096.
MAX_TOKENS = 4096


# A native tool as the adapter declares it: the class's name (in `pydantic_ai.native_tools`, or the
# `ToolSearch` capability) and its keyword arguments.
NativeSpec = tuple[str, dict[str, Any]]

_ANTHROPIC_APIS = frozenset({"anthropic-messages", "ollama-messages"})
_RESPONSES_APIS = frozenset({"openai-responses", "mistral-responses", "ollama-responses"})
# The class for each provider tool family, by API; a family missing here has no Pydantic AI class.
_ANTHROPIC_CLASSES = {
    "web_search": "WebSearchTool",
    "web_fetch": "WebFetchTool",
    "code_execution": "CodeExecutionTool",
    "advisor": "AdvisorTool",
}
_RESPONSES_CLASSES = {
    "web_search": "WebSearchTool",
    "web_search_preview": "WebSearchTool",
    "file_search": "FileSearchTool",
    "code_interpreter": "CodeExecutionTool",
    "image_generation": "ImageGenerationTool",
}
# Responses built-ins with no Pydantic AI class, whose items the client would have to run or answer.
_RESPONSES_CLIENT_RUN = frozenset(
    {"computer_use_preview", "local_shell", "shell", "apply_patch", "programmatic_tool_calling"}
)
_GEMINI_CLASSES = {
    "google_search": "WebSearchTool",
    "url_context": "WebFetchTool",
    "code_execution": "CodeExecutionTool",
}


def _given(tool: Mapping[str, Any], *names: str) -> dict[str, Any]:
    return {name: tool[name] for name in names if tool.get(name) is not None}


def _anthropic_spec(loop: ToolLoop, tool: Mapping[str, Any]) -> NativeSpec | None:
    kind = re.sub(r"_\d{8}$", "", str(tool.get("type", "")))
    if kind in ("tool_search_tool_regex", "tool_search_tool_bm25"):
        return "ToolSearch", {"strategy": kind.rsplit("_", 1)[-1]}
    if kind == "mcp_toolset":
        named = [s for s in named_mcp_servers(loop) if s.get("name") == tool.get("mcp_server_name")]
        if not named:
            return None  # a toolset naming no server the recording declared
        token = _given(named[0], "authorization_token")
        return "MCPServerTool", {"id": named[0]["name"], "url": named[0]["url"], **token}
    if kind.startswith("browser_toolset"):
        loop.skip(
            f"Pydantic AI has no native tool for Anthropic's {tool.get('type')}: pydantic_ai.native_tools has no "
            "browser toolset class, and AnthropicModel sends only the native tools it maps"
        )
    found = _ANTHROPIC_CLASSES.get(kind)
    if found == "AdvisorTool":
        return found, _given(tool, "model", "max_uses")
    if found in ("WebSearchTool", "WebFetchTool"):
        return found, _given(tool, "max_uses", "allowed_domains", "blocked_domains")
    return (found, {}) if found else None


def _responses_spec(loop: ToolLoop, tool: Mapping[str, Any]) -> NativeSpec | None:
    kind = re.sub(r"(_\d{4}_\d{2}_\d{2})$", "", str(tool.get("type", "")))
    if kind == "mcp":
        if tool.get("require_approval", "never") != "never":
            loop.skip(
                "Pydantic AI's MCPServerTool always sends require_approval 'never' "
                "(pydantic_ai/models/openai/_native_tools.py:191); the scenario's MCP server asks for approval"
            )
        return "MCPServerTool", {"id": tool["server_label"], "url": tool["server_url"]}
    if kind == "tool_search":
        from pydantic_ai.native_tools._tool_search import ToolSearchTool
        from pydantic_ai.profiles.openai import openai_model_profile

        if ToolSearchTool not in openai_model_profile(loop.model).get("supported_native_tools", ()):
            loop.skip(
                f"Pydantic AI's OpenAI profile gives {loop.model} no native tool search (openai_model_profile: "
                "gpt-5.4, 5.5, 5.6 and gpt-6 only), so ToolSearch falls back to a local search_tools function "
                "tool and never declares the recording's tool_search"
            )
        return "ToolSearch", {}
    if kind in _RESPONSES_CLIENT_RUN:
        loop.skip(
            f"Pydantic AI has no native tool for the Responses built-in {kind}: OpenAIResponsesModel's "
            "_get_native_tools maps WebSearchTool, FileSearchTool, CodeExecutionTool, MCPServerTool, "
            "ImageGenerationTool and ToolSearchTool only (pydantic_ai/models/openai/_responses_model.py)"
        )
    found = _RESPONSES_CLASSES.get(kind)
    if found == "FileSearchTool":
        return found, {"file_store_ids": list(tool.get("vector_store_ids") or ()), **_given(tool, "max_num_results")}
    if found == "WebSearchTool":
        return found, _given(tool, "search_context_size")
    return (found, {}) if found else None


def native_tool_specs(loop: ToolLoop) -> list[NativeSpec]:
    """The scenario's server tools as the Pydantic AI classes that declare them, where it has one."""
    if loop.api in _ANTHROPIC_APIS:
        specs = [_anthropic_spec(loop, t) for t in loop.server_tools]
    elif loop.api in _RESPONSES_APIS:
        specs = [_responses_spec(loop, t) for t in loop.server_tools]
    elif loop.api == "gemini":
        specs = [(c, {}) if (c := _GEMINI_CLASSES.get(str(t.get("type")))) else None for t in loop.server_tools]
    else:
        specs = []
    return [s for s in specs if s is not None]


def _capabilities(specs: list[NativeSpec]) -> list[Any]:
    from pydantic_ai import native_tools
    from pydantic_ai.capabilities import NativeTool, ToolSearch

    return [
        ToolSearch(**kwargs) if name == "ToolSearch" else NativeTool(getattr(native_tools, name)(**kwargs))
        for name, kwargs in specs
    ]


def _tools(loop: ToolLoop, *, deferrable: bool = False) -> list[Any]:
    """The scenario's function tools; with a tool search declared, those the recording deferred are deferred."""
    from pydantic_ai import Tool

    for t in loop.tools:
        if t.get("type", "function") != "function":
            # Declaring it as a function tool would send another request than the recorded one.
            loop.skip(
                f"Pydantic AI cannot declare the {t.get('type')} tool {t['name']!r}: it has function tools only "
                "(custom tools: https://github.com/pydantic/pydantic-ai/issues/2513)"
            )
        if loop.api in _ANTHROPIC_APIS and t.get("allowed_callers"):
            loop.skip(
                f"Pydantic AI cannot declare allowed_callers on the tool {t['name']!r}: a Tool has no such option, "
                "and AnthropicModel._map_tool_definition sends name, description, input_schema, strict, "
                "eager_input_streaming and defer_loading only (pydantic_ai/models/anthropic/__init__.py)"
            )

    def implementation(name: str) -> Any:
        def run(**arguments: Any) -> str:
            return loop.call_tool(name, arguments)

        return run

    tools = [
        Tool.from_schema(
            implementation(t["name"]),
            name=t["name"],
            description=t.get("description", ""),
            json_schema=dict(t.get("parameters") or {"type": "object", "properties": {}}),
        )
        for t in loop.tools
    ]
    for tool in tools:
        # `Tool.from_schema` takes no `defer_loading`; it is the Tool's documented attribute.
        tool.defer_loading = deferrable and recorded_extras(loop, tool.name).get("defer_loading") is True
    return tools


def _run(loop: ToolLoop, model: Any, *, set_max_retries: bool = True, max_tokens: int | None = None) -> str:
    """The documented tool loop: an Agent holding the tools, run on the prompt until it answers."""
    from pydantic_ai import Agent, capture_run_messages
    from pydantic_ai.settings import ModelSettings

    from conformance.replay.continued import RunInterrupted

    settings = ModelSettings()
    if set_max_retries:
        settings["max_retries"] = 0
    if max_tokens is not None:
        settings["max_tokens"] = max_tokens
    specs = native_tool_specs(loop)
    deferrable = any(name == "ToolSearch" for name, _ in specs)
    agent = Agent(
        model,
        tools=_tools(loop, deferrable=deferrable),
        model_settings=settings,
        capabilities=_capabilities(specs) or None,
    )
    messages: list[Any] = restored_history(loop)
    output = ""
    for prompt in loop.runs:  # each run of the session continues the messages of the ones before
        # A run cut off in its tool raises out of the agent; `capture_run_messages` keeps what it had
        # exchanged, its unanswered request marked `state='interrupted'`, which the next run takes as its
        # history and closes out itself (the framework's documented way to go on after a failed run).
        with capture_run_messages() as captured:
            try:
                output, messages = _one_run(agent, prompt, messages, stream=loop.stream)
            except RunInterrupted:
                messages = list(captured)
    return output


def _one_run(agent: Any, prompt: str | None, history: list[Any], *, stream: bool) -> tuple[str, list[Any]]:
    """One run of the agent on `history`: its output and all its messages."""
    from pydantic_ai import AgentRunResultEvent

    if not stream:
        result = agent.run_sync(prompt, message_history=history or None)
        return str(result.output), result.all_messages()

    async def streamed() -> tuple[str, list[Any]]:
        found: tuple[str, list[Any]] = ("", history)
        async with agent.run_stream_events(prompt, message_history=history or None) as events:
            async for event in events:
                if isinstance(event, AgentRunResultEvent):
                    found = (str(event.result.output), event.result.all_messages())
        return found

    return asyncio.run(streamed())


def restored_history(loop: ToolLoop) -> list[Any]:
    """A saved conversation as Pydantic AI keeps one (its ModelMessages, provider-neutral, what
    `ModelMessagesTypeAdapter` stores): the prompt and each turn's calls as a ModelResponse, their
    results as a ModelRequest. A call saved without an id (Gemini before ids) gets the id the
    framework mints for a ToolCallPart, and its result the same."""
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        SystemPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    messages: list[Any] = []
    minted: list[str] = []
    for message in loop.history:
        parts = message["parts"]
        text = text_of(message)
        if message["role"] in ("user", "system"):
            part = UserPromptPart(text) if message["role"] == "user" else SystemPromptPart(text)
            messages.append(ModelRequest(parts=[part]))
        elif message["role"] == "assistant":
            calls = []
            for p in parts:
                if p["type"] != "tool_call" or p.get("provider_executed"):
                    continue
                args = p.get("arguments")
                call = (
                    ToolCallPart(p["name"], args, p["call_id"]) if p.get("call_id") else ToolCallPart(p["name"], args)
                )
                calls.append(call)
            minted = [c.tool_call_id for c in calls]
            messages.append(ModelResponse(parts=[*([TextPart(text)] if text else []), *calls]))
        elif message["role"] == "tool":
            returns = [
                ToolReturnPart(str(p.get("name") or ""), p.get("output"), p.get("call_id") or minted[i])
                for i, p in enumerate(parts)
            ]
            messages.append(ModelRequest(parts=returns))
    return messages


def openai_chat(loop: ToolLoop) -> str:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    provider = OpenAIProvider(base_url=loop.base_url, api_key=loop.api_key)
    return _run(loop, OpenAIChatModel(loop.model, provider=provider))


def openai_responses(loop: ToolLoop) -> str:
    from pydantic_ai.models.openai import OpenAIResponsesModel
    from pydantic_ai.providers.openai import OpenAIProvider

    provider = OpenAIProvider(base_url=loop.base_url, api_key=loop.api_key)
    return _run(loop, OpenAIResponsesModel(loop.model, provider=provider))


def ollama_responses(loop: ToolLoop) -> str:
    from pydantic_ai.models.openai import OpenAIResponsesModel
    from pydantic_ai.providers.ollama import OllamaProvider

    provider = OllamaProvider(base_url=loop.base_url, api_key=loop.api_key)
    return _run(loop, OpenAIResponsesModel(loop.model, provider=provider))


def kimi_chat(loop: ToolLoop) -> str:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.moonshotai import MoonshotAIProvider

    provider = MoonshotAIProvider(base_url=loop.base_url, api_key=loop.api_key)
    return _run(loop, OpenAIChatModel(loop.model, provider=provider))


def anthropic_messages(loop: ToolLoop) -> str:
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    provider = AnthropicProvider(base_url=loop.base_url, api_key=loop.api_key)
    return _run(loop, AnthropicModel(loop.model, provider=provider), max_tokens=MAX_TOKENS)


def gemini(loop: ToolLoop) -> str:
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.providers.google import GoogleProvider

    provider = GoogleProvider(base_url=loop.base_url, api_key=loop.api_key)
    return _run(loop, GoogleModel(loop.model, provider=provider))


def mistral_chat(loop: ToolLoop) -> str:
    from pydantic_ai.models.mistral import MistralModel
    from pydantic_ai.providers.mistral import MistralProvider

    # The Mistral SDK takes the server URL without the API version; it appends /v1/chat/completions.
    server = re.sub(r"/v1/?$", "", loop.base_url)
    provider = MistralProvider(base_url=server, api_key=loop.api_key)
    return _run(loop, MistralModel(loop.model, provider=provider))


def cohere_v2(loop: ToolLoop) -> str:
    from cohere import AsyncClientV2
    from pydantic_ai.models.cohere import CohereModel
    from pydantic_ai.providers.cohere import CohereProvider

    # CohereProvider reads its base URL only from CO_BASE_URL; a client of one's own is its documented option.
    provider = CohereProvider(cohere_client=AsyncClientV2(api_key=loop.api_key, base_url=loop.base_url))
    return _run(loop, CohereModel(loop.model, provider=provider))


def bedrock_converse(loop: ToolLoop) -> str:
    from pydantic_ai.models.bedrock import BedrockConverseModel
    from pydantic_ai.providers.bedrock import BedrockProvider

    # The framework ignores `max_retries` for Bedrock; its documented `bedrock_client` takes a boto3 client
    # configured for a single attempt.
    provider = BedrockProvider(bedrock_client=bedrock_client(loop))
    return _run(loop, BedrockConverseModel(loop.model, provider=provider), set_max_retries=False, max_tokens=MAX_TOKENS)


ADAPTER = ClientAdapter(
    name="pydantic-ai",
    version=installed_version(PACKAGE),
    clients={
        "openai-chat": openai_chat,
        "openai-responses": openai_responses,
        "anthropic-messages": anthropic_messages,
        "gemini": gemini,
        "mistral-chat": mistral_chat,
        "bedrock-converse": bedrock_converse,
        "cohere-v2": cohere_v2,
        "kimi-chat": kimi_chat,
        "mistral-responses": openai_responses,
        "ollama-responses": ollama_responses,
        "ollama-messages": anthropic_messages,
    },
    homepage="https://github.com/pydantic/pydantic-ai",
    continues=frozenset({"history", "sessions"}),
    unsupported={
        "ollama-chat": "Pydantic AI talks to Ollama only through its OpenAI-compatible /v1/chat/completions, "
        "not the native /api/chat",
        "openresponses": "Pydantic AI has no Open Responses provider; its OpenAIResponsesModel is run on the "
        "openai-responses cases",
        "azure-foundry": "Pydantic AI's AzureProvider serves Azure OpenAI deployments; the Foundry project endpoint's "
        "tool items (AI Search, Functions, Bing, SharePoint, A2A, ...) have no Pydantic AI model",
    },
)
