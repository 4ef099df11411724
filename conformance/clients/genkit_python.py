"""Genkit for Python (`genkit`), run as its documentation shows: `ai.generate` with tools runs the loop.

Each API gets Genkit's first-party model plugin, pointed at `loop.base_url` with `loop.api_key`:
`genkit-openai` (Genkit's OpenAI-compatible plugin, for OpenAI Chat Completions, Moonshot and
Mistral), `genkit-google-genai` (Gemini), `genkit-anthropic`, `genkit-ollama` and
`genkit-amazon-bedrock`; Ollama's Anthropic-compatible `/v1/messages` through `genkit-anthropic`
with the server's `base_url`. Tools are registered with `ai.tool(name, description, input_schema=...)`
from the scenario's JSON schema and return the scenario's canned output. A non-streamed scenario
is run with `await ai.generate(...)`, a streamed one with `ai.generate_stream(...)`, whose chunks are
drained before the final response is awaited. Genkit's tool loop stops after `max_turns` model
calls (5 by default); the adapter allows 16 so that no recorded chain is cut short. SDK retries are
off where the plugin passes client options through (`max_retries=0`).

Provider tools: Gemini's are genkit-google-genai's config flags (`code_execution`,
`google_search_retrieval`, `url_context`), and an Anthropic MCP server is the recorded `mcp_servers`,
which genkit-anthropic's config passes through. Anthropic's server tools (web search, web fetch, code
execution, tool search, advisor) are the config's passthrough `tools` where the scenario has no
function tool; beside function tools they cannot be declared (genkit-anthropic replaces any configured
`tools` with the Genkit tools), and the scenario is declared unsupported, naming that.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from conformance.clients.official_sdks.common import bedrock_region, installed_version, server_tools
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.engine.neutral import text_of

PACKAGES = (
    "genkit",
    "genkit-openai",
    "genkit-google-genai",
    "genkit-anthropic",
    "genkit-ollama",
    "genkit-amazon-bedrock",
)
MAX_TURNS = 16

# A plugin's set-up (building an action, with its JSON schemas, for every model it knows) took 87% of
# the column's time when it was repeated for every case. Plugins are kept by what they were built with,
# for the life of the process, each building its actions once: a case whose settings differ (another
# server, key, region or model list) gets a plugin of its own. Each case still runs in its own Genkit
# instance and event loop, and the plugins make their HTTP clients per event loop. genkit-openai's
# set-up is skipped altogether: the recorded servers are many (a plugin per server), and the one model
# a case uses is built by the plugin's own `resolve`, as Genkit asks for a model it does not hold.
_PLUGINS: dict[tuple[Any, ...], Any] = {}


class GenerationFailed(Exception):
    """Genkit ended the generation with a failure boxed in the response (`finish_reason` failed or
    aborted, `response.error` set) instead of raising it, as it does for a model or tool error."""


def _text(response: Any) -> str:
    error = getattr(response, "error", None)
    if error is not None or str(getattr(response, "finish_reason", "")) in ("failed", "aborted"):
        status = getattr(error, "status", None) or "?"
        raise GenerationFailed(
            f"Genkit returned finish_reason {response.finish_reason!s} ({status}: {response.finish_message})"
        )
    return str(response.text)


def _tools(ai: Any, loop: ToolLoop) -> list[Any]:
    for t in loop.tools:
        if t.get("type", "function") != "function":
            loop.skip(
                f"Genkit tools take JSON input against a schema; it cannot declare the free-form {t.get('type')} "
                f"tool {t['name']!r}"
            )

    from genkit import Interrupt

    from conformance.replay.continued import RunInterrupted

    def implementation(name: str) -> Any:
        async def run(arguments: Any) -> str:
            try:
                return loop.call_tool(name, arguments)
            except RunInterrupted:
                # Genkit's own way for a tool to end the run before it answers: the generate returns
                # `interrupted`, its messages holding the pending request.
                raise Interrupt() from None

        return run

    return [
        ai.tool(
            name=t["name"],
            description=t.get("description", ""),
            input_schema=dict(t.get("parameters") or {"type": "object", "properties": {}}),
        )(implementation(t["name"]))
        for t in loop.tools
    ]


def _tool_choice(loop: ToolLoop) -> str | None:
    choice = loop.settings.body.get("tool_choice")
    if choice in ("auto", "none", "required"):
        return str(choice)
    if choice == "any" or (isinstance(choice, Mapping) and choice.get("type") == "any"):
        return "required"
    return None


def _plugin(key: tuple[Any, ...], make: Callable[[], Any], *, eager: bool = True) -> Any:
    """The plugin built with these settings, made once; its `init` and `resolve` answer from what they
    built the first time (Genkit asks them again in every event loop, so once per case). Not `eager`, its
    `init` builds nothing, and each model is built when first resolved."""
    if key in _PLUGINS:
        return _PLUGINS[key]
    plugin = make()
    init, resolve = plugin.init, plugin.resolve
    built: list[list[Any]] = []
    resolved: dict[tuple[Any, str], Any] = {}

    async def init_once() -> list[Any]:
        if not built:
            built.append(list(await init() or []) if eager else [])
        return built[0]

    async def resolve_once(action_type: Any, name: str) -> Any:
        if (action_type, name) not in resolved:
            resolved[action_type, name] = await resolve(action_type, name)
        return resolved[action_type, name]

    plugin.init, plugin.resolve = init_once, resolve_once
    _PLUGINS[key] = plugin
    return plugin


def _run(loop: ToolLoop, plugin: Any, model: str, config: Mapping[str, Any] | None = None) -> str:
    """The documented tool loop: `ai.generate` with the tools, on the prompt, until the model answers. A
    restored history is `generate`'s `messages` (Genkit Messages); each later run of a session is a
    `generate` on the messages the one before returned (`response.messages`) with the run's prompt. A run
    cut off in a tool is a tool interrupt (`Interrupt`), Genkit's way of ending a run before a tool answers."""
    from genkit import Genkit

    async def main() -> str:
        ai = Genkit(plugins=[plugin])
        options: dict[str, Any] = {"model": model, "tools": _tools(ai, loop), "max_turns": MAX_TURNS}
        if config:
            options["config"] = dict(config)
        if choice := _tool_choice(loop):
            options["tool_choice"] = choice
        messages: list[Any] = restored_messages(loop)
        answer = ""
        for prompt in loop.runs:
            run = {**options, **({"prompt": prompt} if prompt is not None else {})}
            if messages:
                run["messages"] = messages
            if not loop.stream:
                response = await ai.generate(**run)
            else:
                streamed = ai.generate_stream(**run)
                async for _chunk in streamed.stream:
                    pass  # Genkit reassembles the stream itself; the chunks are only drained
                response = await streamed.response
            answer = _text(response)
            messages = list(response.messages)
        return answer

    return asyncio.run(main())


def restored_messages(loop: ToolLoop) -> list[Any]:
    """A saved conversation as Genkit keeps one (its Messages, provider-neutral: a model message of
    `toolRequest` parts whose `ref` is the call's id, a tool message of `toolResponse` parts under the same
    `ref`). A call saved without an id keeps no `ref`, as genkit-google-genai reads one."""
    from genkit import Message

    messages: list[Any] = []
    names: list[str] = []  # the last turn's calls, for a result saved without its tool's name
    for message in loop.history:
        parts = message["parts"]
        text = text_of(message)
        if message["role"] == "tool":
            responses = [
                {
                    "toolResponse": {
                        "ref": p.get("call_id"),
                        "name": str(p.get("name") or (names[i] if i < len(names) else "")),
                        "output": p.get("output"),
                    }
                }
                for i, p in enumerate(parts)
            ]
            messages.append(Message(role="tool", content=responses))
            continue
        calls = [p for p in parts if p["type"] == "tool_call" and not p.get("provider_executed")]
        requests = [
            {"toolRequest": {"ref": p.get("call_id"), "name": p["name"], "input": p.get("arguments") or {}}}
            for p in calls
        ]
        names = [str(p["name"]) for p in calls] if calls else names
        role = "model" if message["role"] == "assistant" else message["role"]
        messages.append(Message(role=role, content=[*([{"text": text}] if text or not requests else []), *requests]))
    return messages


def _chat_completions_config(loop: ToolLoop) -> dict[str, Any]:
    """The recorded body settings: OpenAIConfig's own fields as they are, the rest as `extra_body`."""
    from genkit_openai import OpenAIConfig

    known = set(OpenAIConfig.model_fields)
    body = {k: v for k, v in loop.settings.body.items() if k != "tool_choice"}
    config = {k: v for k, v in body.items() if k in known}
    extra = {k: v for k, v in body.items() if k not in known}
    if extra:
        config["extra_body"] = extra
    return config


def _openai_compatible(loop: ToolLoop) -> str:
    from genkit_openai import OpenAI

    # genkit-openai is Genkit's OpenAI-compatible plugin: OpenAI itself and any server that speaks
    # Chat Completions (Moonshot, Mistral, Gemini's and Ollama's compatible endpoints) alike.
    plugin = _plugin(
        ("openai", loop.api_key, loop.base_url),
        lambda: OpenAI(api_key=loop.api_key, base_url=loop.base_url, max_retries=0),
        eager=False,
    )
    return _run(loop, plugin, f"openai/{loop.model}", _chat_completions_config(loop))


def gemini(loop: ToolLoop) -> str:
    from genkit_google_genai import GoogleAI

    body = loop.settings.body
    config: dict[str, Any] = {}
    generation = dict(body.get("generationConfig") or {})
    if "thinkingConfig" in generation:
        config["thinking_config"] = generation.pop("thinkingConfig")
    config.update(generation)
    if body.get("toolConfig"):
        # Not a field of Genkit's GeminiConfigSchema, whose extra keys reach google-genai's
        # GenerateContentConfig as they are.
        config["tool_config"] = dict(body["toolConfig"])
    for tool in loop.recorded_tools:
        if not isinstance(tool, Mapping):
            continue
        if "codeExecution" in tool or "code_execution" in tool:
            config["code_execution"] = True
        elif "googleSearch" in tool or "google_search" in tool:
            config["google_search_retrieval"] = True
        elif "urlContext" in tool or "url_context" in tool:
            config["url_context"] = True
    version = loop.settings.api_version
    api_version = version if version and re.fullmatch(r"v1[a-z0-9]*", version) else None
    plugin = _plugin(
        ("googleai", loop.api_key, loop.base_url, api_version),
        lambda: GoogleAI(api_key=loop.api_key, base_url=loop.base_url, api_version=api_version),
    )
    model = re.sub(r"^.*models/", "", loop.model)
    return _run(loop, plugin, f"googleai/{model}", config)


def anthropic_messages(loop: ToolLoop) -> str:
    from genkit_anthropic import Anthropic

    body = dict(loop.settings.body)
    config: dict[str, Any] = {}
    if isinstance(body.get("max_tokens"), int):
        config["max_output_tokens"] = body.pop("max_tokens")
    if isinstance(body.get("tool_choice"), Mapping):
        config["tool_choice"] = body.pop("tool_choice")
    betas = loop.settings.headers.get("anthropic-beta")
    if betas:
        config["api_version"] = "beta"
        config["betas"] = [b.strip() for b in betas.split(",") if b.strip()]
    config.update({k: v for k, v in body.items() if k not in ("system", "tool_choice")})
    builtin = server_tools(loop)
    if builtin and loop.tools:
        loop.skip(
            "genkit-anthropic sets the request's tools to the Genkit tools alone (name, description, input_schema), "
            "replacing any tools in the config (genkit_anthropic.models.AnthropicModel._build_params): the "
            f"recording's {', '.join(str(t.get('type')) for t in builtin)} cannot be declared beside function tools"
        )
    if builtin:
        # No Genkit tool: the config's passthrough `tools` reach the request as they are.
        config["tools"] = builtin
    plugin = _plugin(
        ("anthropic", loop.api_key, loop.base_url),
        lambda: Anthropic(api_key=loop.api_key, base_url=loop.base_url, max_retries=0),
    )
    return _run(loop, plugin, f"anthropic/{loop.model}", config)


def ollama_chat(loop: ToolLoop) -> str:
    from genkit_ollama import Ollama
    from genkit_ollama.models import ModelDefinition

    plugin = _plugin(
        ("ollama", loop.model, loop.base_url),
        lambda: Ollama(models=[ModelDefinition(name=loop.model)], server_address=loop.base_url),
    )
    return _run(loop, plugin, f"ollama/{loop.model}")


@contextlib.contextmanager
def _bedrock_endpoint(base_url: str) -> Iterator[None]:
    """The plugin builds its boto3 client from a session and region only; a replay server on another
    host is reached through AWS's documented per-service endpoint variable."""
    if re.search(r"\.amazonaws\.com", base_url):
        yield
        return
    name = "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"
    before = os.environ.get(name)
    os.environ[name] = base_url
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


def bedrock_converse(loop: ToolLoop) -> str:
    import boto3
    from genkit_amazon_bedrock import Bedrock

    session = boto3.session.Session(
        aws_access_key_id="conformance",
        aws_secret_access_key=loop.api_key,
        region_name=bedrock_region(loop.base_url),
    )
    config: dict[str, Any] = {}
    max_tokens = (loop.settings.body.get("inferenceConfig") or {}).get("maxTokens")
    if isinstance(max_tokens, int):
        config["max_output_tokens"] = max_tokens
    with _bedrock_endpoint(loop.base_url):
        plugin = Bedrock(session=session, region=session.region_name, max_retries=0)
        return _run(loop, plugin, f"bedrock/{loop.model}", config)


ADAPTER = ClientAdapter(
    name="genkit-python",
    version=installed_version("genkit"),
    clients={
        "openai-chat": _openai_compatible,
        "kimi-chat": _openai_compatible,
        "mistral-chat": _openai_compatible,
        "gemini": gemini,
        "anthropic-messages": anthropic_messages,
        "ollama-chat": ollama_chat,
        "bedrock-converse": bedrock_converse,
        "ollama-messages": anthropic_messages,
    },
    homepage="https://genkit.dev/docs/get-started/?lang=python",
    continues=frozenset({"history", "sessions"}),
    notes="; ".join(f"{p} {installed_version(p)}" for p in PACKAGES),
    unsupported={
        "openai-responses": "genkit-openai speaks Chat Completions only; Genkit for Python has no Responses API model",
        "azure-foundry": "Genkit for Python has no Azure AI Foundry plugin, and genkit-openai has no Responses "
        "API model",
        "openresponses": "genkit-openai speaks Chat Completions only; it has no Open Responses model",
        "mistral-responses": "genkit-openai speaks Chat Completions only; Genkit for Python has no Responses API model",
        "ollama-responses": "genkit-openai speaks Chat Completions only, and genkit-ollama the native /api/chat; "
        "neither reaches Ollama's /v1/responses",
        "cohere-v2": "Genkit for Python has no first-party Cohere plugin",
    },
)
