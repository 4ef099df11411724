"""AutoGen (`autogen-agentchat` with `autogen-ext`'s model clients), run as its documentation shows.

Each API gets the model client autogen-ext has for it, pointed at `loop.base_url` with
`loop.api_key`: `OpenAIChatCompletionClient` (OpenAI Chat Completions, and the OpenAI-compatible
Chat Completions of Moonshot and Mistral, with a `model_info` as AutoGen's guide to
OpenAI-compatible APIs shows), `AnthropicChatCompletionClient` and `OllamaChatCompletionClient`
(Ollama's native `/api/chat`). The loop is `AssistantAgent`'s own: the agent holds the tools and
runs `max_tool_iterations` rounds of calls until the model answers in text, with
`reflect_on_tool_use=True` so a last round of results still gets its answer (the guide's
multi-step example). `model_client_stream=True` streams when `loop.stream`. The agent's default
system message is left out (`system_message=None`): the recorded requests carry none.

Tools are `BaseTool`s (AutoGen's documented way to write a tool of one's own) that declare the
scenario's JSON schema as given and return `loop.call_tool`; a free-form (custom) tool has no
AutoGen form and the scenario is declared unsupported. Retries are off where the client has them
(`max_retries=0`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from conformance.clients.official_sdks.common import server_tools
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.engine.neutral import text_of

MAX_TOOL_ITERATIONS = 8

# What a model the client's own table does not know is declared as: it calls functions.
_UNKNOWN_MODEL = {
    "vision": False,
    "function_calling": True,
    "json_output": False,
    "family": "unknown",
    "structured_output": False,
}


def _tools(loop: ToolLoop) -> list[Any]:
    from autogen_core import CancellationToken
    from autogen_core.tools import BaseTool, ToolSchema
    from pydantic import BaseModel, ConfigDict

    builtin = server_tools(loop)
    if builtin:
        # The model clients convert autogen Tools only; a provider's own tools have no place in the request.
        kinds = ", ".join(str(t.get("type")) for t in builtin)
        if loop.api == "anthropic-messages":
            loop.skip(
                "AutoGen's AnthropicChatCompletionClient.create builds the request from its own fields: tools only "
                "as convert_tools writes autogen Tools (name, description, input_schema), and of its create args "
                "only max_tokens, temperature, top_p, top_k, stop_sequences, metadata and thinking: the recording's "
                f"{kinds} cannot be declared"
            )
        loop.skip(f"AutoGen's model clients declare function tools only: the recording's {kinds} cannot be declared")
    for t in loop.tools:
        if t.get("type", "function") != "function":
            loop.skip(
                f"AutoGen cannot declare the {t.get('type')} tool {t['name']!r}: its tools are function tools "
                "(autogen_core.tools.ToolSchema has name, description, parameters and strict only)"
            )

    class Arguments(BaseModel):
        model_config = ConfigDict(extra="allow")

    class ScenarioTool(BaseTool[Arguments, Any]):  # type: ignore[misc]  # ReturnT is bound to BaseModel; a str is returned as is
        """A tool declared with the scenario's schema, run through the scenario's canned outputs."""

        def __init__(self, spec: Mapping[str, Any]) -> None:
            super().__init__(Arguments, str, spec["name"], spec.get("description", ""))
            self._parameters = dict(spec.get("parameters") or {"type": "object", "properties": {}})

        @property
        def schema(self) -> ToolSchema:
            return {"name": self.name, "description": self.description, "parameters": self._parameters}  # type: ignore[typeddict-item]

        async def run(self, args: Arguments, cancellation_token: CancellationToken) -> Any:
            return loop.call_tool(self.name, args.model_dump())

    return [ScenarioTool(t) for t in loop.tools]


def _model_options(lookup: Callable[[str], Any], model: str) -> dict[str, Any]:
    """The client's `model_info` argument: none when its own table knows the model (it then uses its
    entry), else a generic entry."""
    try:
        lookup(model)
    except (KeyError, ValueError):
        return {"model_info": dict(_UNKNOWN_MODEL)}
    return {}


def _run(loop: ToolLoop, model_client: Any) -> str:
    """The documented loop: an AssistantAgent with the tools, run on the prompt until it answers in text.

    A restored history is the agent's model context, preloaded (`UnboundedChatCompletionContext` with
    `initial_messages`, as the AssistantAgent's docs show); each run of a session is a run of the same
    agent, `task=None` continuing the context without a message."""
    from autogen_agentchat.agents import AssistantAgent
    from autogen_agentchat.base import TaskResult
    from autogen_core.model_context import UnboundedChatCompletionContext

    agent = AssistantAgent(
        "assistant",
        model_client=model_client,
        tools=_tools(loop),
        system_message=None,
        model_client_stream=loop.stream,
        reflect_on_tool_use=True,
        max_tool_iterations=MAX_TOOL_ITERATIONS,
        model_context=UnboundedChatCompletionContext(initial_messages=restored_messages(loop) or None),
    )

    async def one_run(prompt: str | None) -> str:
        answer = ""
        async for event in agent.run_stream(task=prompt):
            if isinstance(event, TaskResult) and event.messages:
                answer = str(getattr(event.messages[-1], "content", ""))
        return answer

    async def run() -> str:
        try:
            answer = ""
            for prompt in loop.runs:
                answer = await one_run(prompt)
            return answer
        finally:
            await model_client.close()

    return asyncio.run(run())


def restored_messages(loop: ToolLoop) -> list[Any]:
    """A saved conversation as AutoGen's model context holds one (LLMMessages, provider-neutral: an
    AssistantMessage of FunctionCalls under the calls' ids, a FunctionExecutionResultMessage of their
    results under the same). A call saved without an id gets a uuid4, and its result the same."""
    import json
    import uuid

    from autogen_core import FunctionCall
    from autogen_core.models import (
        AssistantMessage,
        FunctionExecutionResult,
        FunctionExecutionResultMessage,
        SystemMessage,
        UserMessage,
    )

    messages: list[Any] = []
    minted: list[str] = []
    for message in loop.history:
        parts = message["parts"]
        text = text_of(message)
        calls = [p for p in parts if p["type"] == "tool_call" and not p.get("provider_executed")]
        if message["role"] == "system":
            messages.append(SystemMessage(content=text))
        elif message["role"] == "user":
            messages.append(UserMessage(content=text, source="user"))
        elif message["role"] == "tool":
            results = [
                FunctionExecutionResult(
                    content=str(p.get("output", "")),
                    name=str(p.get("name") or ""),
                    call_id=p.get("call_id") or minted[i],
                )
                for i, p in enumerate(parts)
            ]
            messages.append(FunctionExecutionResultMessage(content=results))
        elif calls:
            minted = [p.get("call_id") or str(uuid.uuid4()) for p in calls]
            function_calls = [
                FunctionCall(id=i, arguments=json.dumps(p.get("arguments") or {}), name=p["name"])
                for i, p in zip(minted, calls, strict=True)
            ]
            messages.append(AssistantMessage(content=function_calls, thought=text or None, source="assistant"))
        else:
            messages.append(AssistantMessage(content=text, source="assistant"))
    return messages


def _openai_compatible(loop: ToolLoop) -> str:
    from autogen_ext.models.openai import OpenAIChatCompletionClient
    from autogen_ext.models.openai._model_info import get_info

    client = OpenAIChatCompletionClient(
        model=loop.model,
        base_url=loop.base_url,
        api_key=loop.api_key,
        max_retries=0,
        **_model_options(get_info, loop.model),
    )
    return _run(loop, client)


def openai_chat(loop: ToolLoop) -> str:
    return _openai_compatible(loop)


def kimi_chat(loop: ToolLoop) -> str:
    return _openai_compatible(loop)


def mistral_chat(loop: ToolLoop) -> str:
    return _openai_compatible(loop)


def anthropic_messages(loop: ToolLoop) -> str:
    from autogen_ext.models.anthropic import AnthropicChatCompletionClient
    from autogen_ext.models.anthropic._model_info import get_info

    client = AnthropicChatCompletionClient(
        model=loop.model,
        base_url=loop.base_url,
        api_key=loop.api_key,
        max_retries=0,
        **_model_options(get_info, loop.model),
    )
    return _run(loop, client)


def ollama_chat(loop: ToolLoop) -> str:
    from autogen_ext.models.ollama import OllamaChatCompletionClient
    from autogen_ext.models.ollama._model_info import get_info

    client = OllamaChatCompletionClient(model=loop.model, host=loop.base_url, **_model_options(get_info, loop.model))
    return _run(loop, client)


def _version() -> str:
    try:
        return f"autogen-agentchat {version('autogen-agentchat')}, autogen-ext {version('autogen-ext')}"
    except PackageNotFoundError:
        return "not installed"


ADAPTER = ClientAdapter(
    name="autogen",
    version=_version(),
    clients={
        "openai-chat": openai_chat,
        "kimi-chat": kimi_chat,
        "mistral-chat": mistral_chat,
        "anthropic-messages": anthropic_messages,
        "ollama-chat": ollama_chat,
    },
    homepage="https://github.com/microsoft/autogen",
    continues=frozenset({"history", "sessions"}),
    unsupported={
        "openai-responses": "AutoGen's AssistantAgent model clients speak Chat Completions; the Responses API is "
        "only behind the separate OpenAIAgent, which runs no client tools of its own",
        "openresponses": "AutoGen has no Open Responses client",
        "azure-foundry": "AutoGen's AzureAIChatCompletionClient speaks the Azure AI Inference chat API, not the "
        "Foundry project's Responses endpoint",
        "gemini": "AutoGen reaches Gemini only through its OpenAI-compatible endpoint, not the native API",
        "bedrock-converse": "AutoGen's AnthropicBedrockChatCompletionClient uses Bedrock InvokeModel, not Converse",
        "cohere-v2": "AutoGen has no Cohere model client",
    },
)
