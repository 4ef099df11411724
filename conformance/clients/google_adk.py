"""Google's Agent Development Kit (`google-adk`), run as its documentation shows: an `Agent` holding tools,
run by a `Runner` over a session (`InMemoryRunner`, `run_async` with the user's message).

Each API gets the ADK model class that speaks it: `Gemini` (google-genai's `generateContent`, and its
Interactions API with `use_interactions_api=True`), `AnthropicLlm` (Anthropic's Messages API, and Ollama's
copy of it), `OpenAILlm` (Chat Completions, and Moonshot's compatible endpoint) and `OpenAIResponsesLlm`
(OpenAI's Responses API and the servers that speak it) from `google.adk.integrations.openai`, and
`LiteLlm` for the providers ADK reaches through LiteLLM (`mistral/`, `cohere_chat/`, `ollama_chat/`,
`bedrock/converse/` model ids with `api_base` at the replay). Each is given a client pointed at
`loop.base_url` with retries off (`max_retries=0`; Gemini one attempt), so a provider error surfaces once.

Tools are `BaseTool` subclasses, ADK's documented form for a tool with its own declaration: a
`FunctionDeclaration` carrying the scenario's JSON schema (`parameters_json_schema`) and a `run_async`
returning the scenario's canned output. Gemini's own tools are ADK's classes for them (`google_search`,
`url_context`, `BuiltInCodeExecutor`). Streaming follows `loop.stream` (`RunConfig(streaming_mode=SSE)`).

A restored history is the session's events (`session_service.append_event`, the prompt as the user's,
the calls as the agent's model turns, their results as its function-response events); a history that ends
on its calls' results is continued by sending those results as the run's `new_message`, as ADK's
long-running tools are answered. A session's runs are runs on the same ADK session.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Mapping
from typing import Any

from conformance.clients.official_sdks.common import bedrock_region, installed_version
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.engine.neutral import text_of

APP = "conformance"
USER = "user"
AGENT = "assistant"
# Anthropic: the recorded traffic used 4096 (AnthropicLlm's own default is 8192).
MAX_TOKENS = 4096

# LiteLLM reads these as it is imported; without them it fetches its cost map and Anthropic beta table.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")


def _function_tools(loop: ToolLoop) -> list[Any]:
    from google.adk.tools.base_tool import BaseTool
    from google.genai import types

    for t in loop.tools:
        if t.get("type", "function") != "function":
            loop.skip(
                f"ADK cannot declare the {t.get('type')} tool {t['name']!r}: a tool declares a FunctionDeclaration"
            )

    class ScenarioTool(BaseTool):  # type: ignore[misc]  # google-adk is untyped for mypy here
        def __init__(self, spec: Mapping[str, Any]) -> None:
            super().__init__(name=spec["name"], description=spec.get("description", ""))
            self.schema = dict(spec.get("parameters") or {"type": "object", "properties": {}})

        def _get_declaration(self) -> Any:
            return types.FunctionDeclaration(
                name=self.name, description=self.description, parameters_json_schema=self.schema
            )

        async def run_async(self, *, args: dict[str, Any], tool_context: Any) -> Any:
            # A call the scenario cuts off raises RunInterrupted (a BaseException), which ends the run.
            return loop.call_tool(self.name, args)

    return [ScenarioTool(t) for t in loop.tools]


def _gemini_builtins(loop: ToolLoop) -> tuple[list[Any], Any]:
    """Gemini's own tools as ADK's classes: `google_search`, `url_context`, code execution as the agent's
    `BuiltInCodeExecutor`; one ADK has no class for is declared unsupported."""
    from google.adk.code_executors import BuiltInCodeExecutor
    from google.adk.tools.google_search_tool import google_search
    from google.adk.tools.url_context_tool import url_context

    tools: list[Any] = []
    executor: Any = None
    for t in loop.server_tools:
        kind = str(t.get("type"))
        if kind == "google_search":
            tools.append(google_search)
        elif kind == "url_context":
            tools.append(url_context)
        elif kind == "code_execution":
            executor = BuiltInCodeExecutor()
        else:
            loop.skip(f"ADK has no tool class for Gemini's {kind} tool (google.adk.tools has none)")
    return tools, executor


# Where each model class turns the agent's tools into the request's: function declarations only.
_FUNCTIONS_ONLY = {
    "AnthropicLlm": "google/adk/models/anthropic_llm.py:1243-1254",
    "OpenAILlm": "google/adk/integrations/openai/_openai_llm.py:412-426",
    "OpenAIResponsesLlm": "google/adk/integrations/openai/_openai_responses_llm.py:1266-1279",
}


def _no_server_tools(loop: ToolLoop, model_class: str) -> None:
    if loop.server_tools:
        kinds = loop.server_tool_kinds
        where = _FUNCTIONS_ONLY.get(model_class)
        loop.skip(
            f"ADK's {model_class} sends function declarations only"
            + (f" ({where}, a tool without them is skipped)" if where else "")
            + f"; it cannot declare the provider tool {kinds}"
        )


def _history_events(loop: ToolLoop) -> tuple[list[Any], Any]:
    """The restored conversation as ADK session events, and the message that continues it: the results of
    the history's last calls (ADK's answer to a long-running tool), or its last user message."""
    from google.adk.events import Event
    from google.genai import types

    events: list[Any] = []
    names: dict[str | None, str] = {}
    minted: list[str] = []
    for message in loop.history:
        role, text = message["role"], text_of(message)
        if role in ("user", "system"):
            content = types.Content(role="user", parts=[types.Part(text=text)])
            events.append(Event(author=USER, invocation_id="restored", content=content))
        elif role == "assistant":
            parts = [types.Part(text=text)] if text else []
            minted = []
            for p in message["parts"]:
                if p["type"] == "tool_call" and not p.get("provider_executed"):
                    # A call read without an id is stored under the id ADK gives it, `adk-` and a uuid
                    # (`populate_client_function_call_id`, google/adk/flows/llm_flows/tools/_functions.py:68-73).
                    call_id = _text(p.get("call_id")) or f"adk-{uuid.uuid4()}"
                    minted.append(call_id)
                    names[call_id] = p["name"]
                    call = types.FunctionCall(id=call_id, name=p["name"], args=p.get("arguments") or {})
                    parts.append(types.Part(function_call=call))
            events.append(
                Event(author=AGENT, invocation_id="restored", content=types.Content(role="model", parts=parts))
            )
        elif role == "tool":
            parts = [
                types.Part(
                    function_response=types.FunctionResponse(
                        id=call_id,
                        name=_text(p.get("name")) or names.get(call_id, ""),
                        response={"result": str(p.get("output", ""))},
                    )
                )
                for i, p in enumerate(message["parts"])
                for call_id in [_text(p.get("call_id")) or (minted[i] if i < len(minted) else None)]
            ]
            events.append(
                Event(author=AGENT, invocation_id="restored", content=types.Content(role="user", parts=parts))
            )
    last = events.pop() if events and events[-1].content.role == "user" else None
    return events, last.content if last is not None else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


async def _play(loop: ToolLoop, model: Any, tools: list[Any], executor: Any = None) -> str:
    from google.adk.agents import Agent
    from google.adk.agents.run_config import RunConfig, StreamingMode  # type: ignore[attr-defined]
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    from conformance.replay.continued import RunInterrupted

    agent = Agent(name=AGENT, model=model, tools=tools, code_executor=executor)
    runner = InMemoryRunner(agent=agent, app_name=APP)
    session = await runner.session_service.create_session(app_name=APP, user_id=USER)
    restored, continuation = _history_events(loop)
    for event in restored:
        await runner.session_service.append_event(session, event)
    config = RunConfig(streaming_mode=StreamingMode.SSE if loop.stream else StreamingMode.NONE)
    answer = ""
    for prompt in loop.runs:
        message = continuation if prompt is None else types.Content(role="user", parts=[types.Part(text=prompt)])
        try:
            async for event in runner.run_async(
                user_id=USER, session_id=session.id, new_message=message, run_config=config
            ):
                if event.content and event.content.parts and not event.partial:
                    answer = "".join(p.text or "" for p in event.content.parts) or answer
        except RunInterrupted:
            continue
    await runner.close()
    return answer


def _run(loop: ToolLoop, model: Any, *, builtins: tuple[list[Any], Any] = ([], None)) -> str:
    tools = [*_function_tools(loop), *builtins[0]]
    if loop.history and loop.runs[0] is None and not _history_events(loop)[1]:
        loop.skip("the restored conversation ends on a model turn; ADK's Runner.run_async needs a new message")
    return asyncio.run(_play(loop, model, tools, builtins[1]))


def gemini(loop: ToolLoop) -> str:
    from google.adk.models import Gemini
    from google.genai import types

    model = Gemini(
        model=loop.model,
        base_url=loop.base_url,
        client_kwargs={"api_key": loop.api_key},
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    return _run(loop, model, builtins=_gemini_builtins(loop))


def gemini_interactions(loop: ToolLoop) -> str:
    from google.adk.models import Gemini
    from google.genai import types

    model = Gemini(
        model=loop.model,
        base_url=loop.base_url,
        client_kwargs={"api_key": loop.api_key},
        retry_options=types.HttpRetryOptions(attempts=1),
        use_interactions_api=True,
    )
    return _run(loop, model, builtins=_gemini_builtins(loop))


def anthropic_messages(loop: ToolLoop) -> str:
    from anthropic import AsyncAnthropic
    from google.adk.models.anthropic_llm import AnthropicLlm

    _no_server_tools(loop, "AnthropicLlm")
    client = AsyncAnthropic(base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
    return _run(loop, AnthropicLlm(model=loop.model, client=client, max_tokens=MAX_TOKENS))


def openai_chat(loop: ToolLoop) -> str:
    from google.adk.integrations.openai import OpenAILlm
    from openai import AsyncOpenAI

    _no_server_tools(loop, "OpenAILlm")
    client = AsyncOpenAI(base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
    return _run(loop, OpenAILlm(model=loop.model, client=client))


def openai_responses(loop: ToolLoop) -> str:
    from google.adk.integrations.openai import OpenAIResponsesLlm
    from openai import AsyncOpenAI

    _no_server_tools(loop, "OpenAIResponsesLlm")
    client = AsyncOpenAI(base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
    return _run(loop, OpenAIResponsesLlm(model=loop.model, client=client))


def _litellm(loop: ToolLoop, model_id: str, **kwargs: Any) -> str:
    from google.adk.models.lite_llm import LiteLlm

    model = LiteLlm(model=model_id, api_key=loop.api_key, max_retries=0, num_retries=0, **kwargs)
    return _run(loop, model)


def mistral_chat(loop: ToolLoop) -> str:
    return _litellm(loop, f"mistral/{loop.model}", api_base=loop.base_url)


def cohere_v2(loop: ToolLoop) -> str:
    # LiteLLM's Cohere api_base is the whole endpoint.
    return _litellm(loop, f"cohere_chat/{loop.model}", api_base=f"{loop.base_url}/v2/chat")


def ollama_chat(loop: ToolLoop) -> str:
    return _litellm(loop, f"ollama_chat/{loop.model}", api_base=loop.base_url)


def bedrock_converse(loop: ToolLoop) -> str:
    region = bedrock_region(loop.base_url)
    return _litellm(
        loop,
        f"bedrock/converse/{loop.model}",
        api_base=loop.base_url,
        aws_region_name=region,
        aws_access_key_id="conformance",
        aws_secret_access_key=loop.api_key,
    )


ADAPTER = ClientAdapter(
    name="google-adk",
    version=installed_version("google-adk"),
    clients={
        "gemini": gemini,
        "gemini-interactions": gemini_interactions,
        "anthropic-messages": anthropic_messages,
        "ollama-messages": anthropic_messages,
        "openai-chat": openai_chat,
        "kimi-chat": openai_chat,
        "openai-responses": openai_responses,
        "openresponses": openai_responses,
        "mistral-responses": openai_responses,
        "ollama-responses": openai_responses,
        "mistral-chat": mistral_chat,
        "cohere-v2": cohere_v2,
        "ollama-chat": ollama_chat,
        "bedrock-converse": bedrock_converse,
    },
    homepage="https://github.com/google/adk-python",
    continues=frozenset({"history", "sessions"}),
    unsupported={
        "azure-foundry": "ADK's AzureOpenAIResponsesLlm serves Azure OpenAI deployments; the Foundry project "
        "endpoint's agent tool items (AI Search, Functions, Bing, SharePoint, A2A, ...) have no ADK model",
    },
)
