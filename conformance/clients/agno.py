"""Agno, run as its documentation shows: an `Agent` with tools, `agent.run(prompt)`, runs the loop.

Each API gets Agno's own model class: `OpenAIChat`, `OpenAIResponses`, `OpenResponses` (any Open
Responses server, Mistral's included), `OllamaResponses`, `Claude` (Anthropic, and Ollama's
Anthropic-compatible Messages API), `Gemini`, `AwsBedrock`, `Ollama`, `MistralChat`, `Cohere`, `MoonShot`,
pointed at `loop.base_url` with `loop.api_key`. Tools are Agno `Function`s built from the
scenario's name, description and JSON schema (`skip_entrypoint_processing=True` keeps the schema as
given), and return the scenario's canned output. `agent.run(prompt, stream=loop.stream)` runs the
loop; a streamed run is read to its end. Retries are off (the SDKs' `max_retries=0`, Agno's own
`retries=0`, a single-attempt boto3 client), telemetry is off, and nothing is stored between cases.
The provider tools the recording declared (web search, code execution, ...) are given to the Agent
as dicts, which Agno passes on as built-in tools, and the recorded Anthropic MCP servers are Claude's
`mcp_servers`; a scenario that needs a tool Agno cannot declare or run is declared unsupported
(`loop.skip`), naming the Agno class or function that lacks it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from conformance.clients.official_sdks.common import (
    bedrock_client,
    installed_version,
    recorded_extras,
    server_tools,
)
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.engine.neutral import text_of

# Claude and Bedrock need `max_tokens`; the recorded traffic used 4096 (Agno's Claude default is 8192).
MAX_TOKENS = 4096

# Responses built-in tools whose items the client must run: `agno/models/openai/responses.py` parses
# function calls only, so their items have no handler and the loop cannot answer them.
_RESPONSES_CLIENT_RUN = frozenset(
    {"computer_use_preview", "local_shell", "shell", "apply_patch", "tool_search", "programmatic_tool_calling"}
)


def _tools(loop: ToolLoop) -> list[Any]:
    from agno.tools.function import Function

    from conformance.replay.continued import RunInterrupted

    for t in loop.tools:
        if t.get("type", "function") != "function":
            # Declaring it as a function tool would send another request than the recorded one.
            loop.skip(f"Agno cannot declare the {t.get('type')} tool {t['name']!r}: its tools are function tools only")
        extras = recorded_extras(loop, t["name"], drop=frozenset({"strict", "cache_control"}))
        if extras:
            # A Function is a name, a description and a schema: no per-tool provider options.
            loop.skip(
                f"Agno cannot declare {', '.join(sorted(extras))} on the tool {t['name']!r}: a Function has no such "
                "option, and the Claude model writes a function tool as name, description, input_schema and strict "
                "only (agno.utils.models.claude.format_tools_for_model)"
            )

    def implementation(name: str) -> Callable[..., str]:
        def run(**arguments: Any) -> str:
            try:
                return loop.call_tool(name, arguments)
            except RunInterrupted:
                # The user's Ctrl-C in the tool: what an Agno run takes as its cancellation (agno/agent/_run.py).
                raise KeyboardInterrupt from None

        return run

    return [
        Function(
            name=t["name"],
            description=t.get("description", ""),
            parameters=dict(t.get("parameters") or {"type": "object", "properties": {}}),
            entrypoint=implementation(t["name"]),
            skip_entrypoint_processing=True,
        )
        for t in loop.tools
    ]


def _run(loop: ToolLoop, model: Any, builtin: list[Any] | None = None) -> str:
    """The documented loop: an Agent holding the tools, run on the prompt until it answers. A provider's
    built-in tool is given to the Agent as a dict, which Agno passes to the provider as it is.

    A restored history is the first run's input as Agno Messages (`agent.run(input=[Message, ...])`). A
    session of several runs is Agno's own: the Agent keeps its runs in a session store (`InMemoryDb`) and
    adds them to each later run's context (`add_history_to_context`). A run cut off in a tool is cancelled
    as Agno cancels a run the user interrupts (a KeyboardInterrupt in the tool); its store leaves it out."""
    from agno.agent import Agent
    from agno.models.message import Message

    session: dict[str, Any] = {}
    if len(loop.runs) > 1:
        from agno.db.in_memory import InMemoryDb

        session = {"db": InMemoryDb(), "add_history_to_context": True, "num_history_runs": len(loop.runs)}
    agent = Agent(model=model, tools=[*_tools(loop), *(builtin or [])], telemetry=False, retries=0, **session)
    restored: list[Any] = restored_messages(loop)
    answer = ""
    for prompt in loop.runs:
        given: Any = prompt
        if restored:
            given = [*restored, *([Message(role="user", content=prompt)] if prompt is not None else [])]
            restored = []
        answer = _one_run(agent, loop, given)
    return answer


def _one_run(agent: Any, loop: ToolLoop, given: Any) -> str:
    """One run on `given` (the prompt, or the conversation's messages), in the session; its answer."""
    if not loop.stream:
        return str(agent.run(given, session_id="conformance").content or "")
    text: list[str] = []
    for event in agent.run(given, stream=True, session_id="conformance"):
        content = getattr(event, "content", None)
        if getattr(event, "event", None) == "RunContent" and isinstance(content, str):
            text.append(content)
    return "".join(text)


def restored_messages(loop: ToolLoop) -> list[Any]:
    """A saved conversation as Agno keeps one (its Messages, provider-neutral: an assistant Message with
    `tool_calls` under the calls' ids, a `tool` Message per result under its call's). A call saved without
    an id gets the id Agno's Gemini model gives one it reads without (a uuid4), and its result the same."""
    import json
    import uuid

    from agno.models.message import Message

    messages: list[Any] = []
    minted: list[str] = []
    for message in loop.history:
        parts = message["parts"]
        text = text_of(message)
        calls = [p for p in parts if p["type"] == "tool_call" and not p.get("provider_executed")]
        if message["role"] == "tool":
            messages += [
                Message(
                    role="tool",
                    tool_call_id=p.get("call_id") or minted[i],
                    tool_name=p.get("name"),
                    content=str(p.get("output", "")),
                )
                for i, p in enumerate(parts)
            ]
        elif calls:
            minted = [p.get("call_id") or str(uuid.uuid4()) for p in calls]
            tool_calls = [
                {
                    "id": i,
                    "type": "function",
                    "function": {"name": p["name"], "arguments": json.dumps(p.get("arguments") or {})},
                }
                for i, p in zip(minted, calls, strict=True)
            ]
            messages.append(Message(role="assistant", content=text or None, tool_calls=tool_calls))
        else:
            messages.append(Message(role=message["role"], content=text))
    return messages


def openai_chat(loop: ToolLoop) -> str:
    from agno.models.openai import OpenAIChat

    return _run(loop, OpenAIChat(id=loop.model, base_url=loop.base_url, api_key=loop.api_key, max_retries=0))


def _responses_builtin(loop: ToolLoop) -> list[Any]:
    builtin = server_tools(loop)
    for tool in builtin:
        kind = str(tool.get("type"))
        if kind in _RESPONSES_CLIENT_RUN:
            loop.skip(
                f"Agno cannot run the client-side items of the Responses built-in tool {kind}: OpenAIResponses reads "
                "message, function_call and reasoning output items only "
                "(agno.models.openai.responses.OpenAIResponses._parse_provider_response)"
            )
        if kind == "mcp" and tool.get("require_approval", "never") != "never":
            loop.skip(
                "Agno has no handler for Responses MCP approval requests: OpenAIResponses reads message, "
                "function_call and reasoning output items only, so an mcp_approval_request is never answered "
                "(agno.models.openai.responses.OpenAIResponses._parse_provider_response)"
            )
    return builtin


def openai_responses(loop: ToolLoop) -> str:
    from agno.models.openai import OpenAIResponses

    builtin = _responses_builtin(loop)
    model = OpenAIResponses(id=loop.model, base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
    return _run(loop, model, builtin)


def openresponses(loop: ToolLoop) -> str:
    from agno.models.openai.open_responses import OpenResponses

    builtin = _responses_builtin(loop)
    model = OpenResponses(id=loop.model, base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
    return _run(loop, model, builtin)


def ollama_responses(loop: ToolLoop) -> str:
    from agno.models.ollama.responses import OllamaResponses

    # OllamaResponses takes the server's address and adds `/v1` itself.
    host = re.sub(r"/v1/?$", "", loop.base_url)
    builtin = _responses_builtin(loop)
    return _run(loop, OllamaResponses(id=loop.model, host=host, api_key=loop.api_key, max_retries=0), builtin)


def kimi_chat(loop: ToolLoop) -> str:
    from agno.models.moonshot import MoonShot

    return _run(loop, MoonShot(id=loop.model, base_url=loop.base_url, api_key=loop.api_key, max_retries=0))


def anthropic_messages(loop: ToolLoop) -> str:
    from agno.models.anthropic import Claude
    from agno.utils.models.claude import MCPServerConfiguration

    params = {"base_url": loop.base_url, "max_retries": 0}
    # The recorded MCP servers are Claude's `mcp_servers`, which it sends beside the tools.
    recorded = loop.settings.body.get("mcp_servers")
    servers = (
        [MCPServerConfiguration(**s) for s in recorded if isinstance(s, dict)] if isinstance(recorded, list) else []
    )
    model = Claude(
        id=loop.model,
        api_key=loop.api_key,
        max_tokens=MAX_TOKENS,
        client_params=params,
        mcp_servers=servers or None,
    )
    return _run(loop, model, server_tools(loop))


def gemini(loop: ToolLoop) -> str:
    from agno.models.google import Gemini
    from google.genai import types

    builtin = server_tools(loop)
    if any("codeExecution" in t or "code_execution" in t for t in builtin):
        loop.skip(
            "Agno's Gemini has no code execution tool: its built-in tools are the flags search, grounding, "
            "url_context, vertexai_search, file search and parallel_search "
            "(agno.models.google.Gemini.get_request_params)"
        )
    if builtin:
        loop.skip(
            "Agno's Gemini cannot declare a Gemini built-in tool beside function tools: with any built-in flag on it "
            "sends the built-in tools alone and leaves the function tools out (agno.models.google.Gemini."
            "get_request_params, 'Built-in tools enabled. External tools will be disabled.')"
        )
    http = types.HttpOptions(base_url=loop.base_url, retry_options=types.HttpRetryOptions(attempts=1))
    return _run(loop, Gemini(id=loop.model, api_key=loop.api_key, client_params={"http_options": http}))


def ollama_chat(loop: ToolLoop) -> str:
    from agno.models.ollama import Ollama

    return _run(loop, Ollama(id=loop.model, host=loop.base_url))


def mistral_chat(loop: ToolLoop) -> str:
    from agno.models.mistral import MistralChat
    from mistralai.client.utils import BackoffStrategy, RetryConfig

    # The Mistral SDK takes the server URL without the API version; it appends /v1/chat/completions.
    server = re.sub(r"/v1/?$", "", loop.base_url)
    no_retries = RetryConfig("none", BackoffStrategy(1, 1, 1.0, 1), False)
    params = {"retry_config": no_retries}
    return _run(loop, MistralChat(id=loop.model, api_key=loop.api_key, endpoint=server, client_params=params))


def cohere_v2(loop: ToolLoop) -> str:
    import cohere
    from agno.models.cohere import Cohere

    # Agno's Cohere builds its client from the API key alone; a client of one's own is its `client` field.
    client = cohere.ClientV2(api_key=loop.api_key, base_url=loop.base_url, max_retries=0)
    return _run(loop, Cohere(id=loop.model, api_key=loop.api_key, client=client))


def bedrock_converse(loop: ToolLoop) -> str:
    from agno.models.aws import AwsBedrock

    return _run(loop, AwsBedrock(id=loop.model, client=bedrock_client(loop), max_tokens=MAX_TOKENS))


ADAPTER = ClientAdapter(
    name="agno",
    version=installed_version("agno"),
    clients={
        "openai-chat": openai_chat,
        "openai-responses": openai_responses,
        "openresponses": openresponses,
        "mistral-responses": openresponses,
        "ollama-responses": ollama_responses,
        "anthropic-messages": anthropic_messages,
        "ollama-messages": anthropic_messages,
        "gemini": gemini,
        "mistral-chat": mistral_chat,
        "bedrock-converse": bedrock_converse,
        "cohere-v2": cohere_v2,
        "ollama-chat": ollama_chat,
        "kimi-chat": kimi_chat,
    },
    homepage="https://github.com/agno-agi/agno",
    continues=frozenset({"history", "sessions"}),
    unsupported={
        "azure-foundry": "Agno's Azure models serve Azure OpenAI deployments and AI Foundry chat models; the Foundry "
        "project endpoint's agent tool items have no Agno model",
    },
)
