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
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from conformance.connectors.client import ClientAdapter, ToolLoop

PACKAGE = "pydantic-ai-slim"

# Anthropic and Bedrock: without `max_tokens` the framework asks for the model's whole output budget and
# then streams a non-streamed request behind the scenes; the recorded non-streamed traffic used 4096.
MAX_TOKENS = 4096


def _tools(loop: ToolLoop) -> list[Any]:
    from pydantic_ai import Tool

    for t in loop.tools:
        if t.get("type", "function") != "function":
            # Declaring it as a function tool would send another request than the recorded one.
            loop.skip(
                f"Pydantic AI cannot declare the {t.get('type')} tool {t['name']!r}: it has function tools only "
                "(custom tools: https://github.com/pydantic/pydantic-ai/issues/2513)"
            )

    def implementation(name: str) -> Any:
        def run(**arguments: Any) -> str:
            return loop.call_tool(name, arguments)

        return run

    return [
        Tool.from_schema(
            implementation(t["name"]),
            name=t["name"],
            description=t.get("description", ""),
            json_schema=dict(t.get("parameters") or {"type": "object", "properties": {}}),
        )
        for t in loop.tools
    ]


def _run(loop: ToolLoop, model: Any, *, set_max_retries: bool = True, max_tokens: int | None = None) -> str:
    """The documented tool loop: an Agent holding the tools, run on the prompt until it answers."""
    from pydantic_ai import Agent, AgentRunResultEvent
    from pydantic_ai.settings import ModelSettings

    settings = ModelSettings()
    if set_max_retries:
        settings["max_retries"] = 0
    if max_tokens is not None:
        settings["max_tokens"] = max_tokens
    agent = Agent(model, tools=_tools(loop), model_settings=settings)
    if not loop.stream:
        return str(agent.run_sync(loop.prompt).output)

    async def streamed() -> str:
        output = ""
        async with agent.run_stream_events(loop.prompt) as events:
            async for event in events:
                if isinstance(event, AgentRunResultEvent):
                    output = str(event.result.output)
        return output

    return asyncio.run(streamed())


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
    import boto3
    from botocore.config import Config
    from pydantic_ai.models.bedrock import BedrockConverseModel
    from pydantic_ai.providers.bedrock import BedrockProvider

    region = re.search(r"bedrock-runtime[.-](?:fips\.)?([a-z0-9-]+)\.amazonaws", loop.base_url)
    # The framework ignores `max_retries` for Bedrock; its documented `bedrock_client` takes a boto3 client
    # configured for a single attempt.
    client = boto3.client(
        "bedrock-runtime",
        region_name=region.group(1) if region else "us-east-1",
        endpoint_url=loop.base_url,
        aws_access_key_id="conformance",
        aws_secret_access_key=loop.api_key,
        config=Config(retries={"total_max_attempts": 1, "mode": "standard"}),
    )
    provider = BedrockProvider(bedrock_client=client)
    return _run(loop, BedrockConverseModel(loop.model, provider=provider), set_max_retries=False, max_tokens=MAX_TOKENS)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(PACKAGE)
    except PackageNotFoundError:
        return "not installed"


ADAPTER = ClientAdapter(
    name="pydantic-ai",
    version=_version(),
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
    unsupported={
        "ollama-chat": "Pydantic AI talks to Ollama only through its OpenAI-compatible /v1/chat/completions, "
        "not the native /api/chat",
        "openresponses": "Pydantic AI has no Open Responses provider; its OpenAIResponsesModel is run on the "
        "openai-responses cases",
        "azure-foundry": "Pydantic AI's AzureProvider serves Azure OpenAI deployments; the Foundry project endpoint's "
        "tool items (AI Search, Functions, Bing, SharePoint, A2A, ...) have no Pydantic AI model",
    },
)
