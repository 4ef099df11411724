"""Mirascope (`mirascope`, its `llm` API), run as its documentation shows: a model call with tools, then
`execute_tools` and `resume` until the response asks for no tool.

Mirascope has no agent that loops by itself: its tools guide writes the loop as
`while response.tool_calls: response = response.resume(response.execute_tools())`, the same for a
stream once it is consumed (`finish()`), and this adapter runs exactly that. Each API gets the provider
Mirascope has for it, registered for the model's scope with `llm.register_provider(provider, scope)`
and pointed at `loop.base_url` with `loop.api_key`: `OpenAICompletionsProvider` (Chat Completions, and
Moonshot's OpenAI-compatible endpoint), `OpenAIResponsesProvider` (OpenAI's Responses API and the
servers that speak it), `AnthropicProvider` (Anthropic's Messages API and Ollama's copy of it) and
`GoogleProvider` (Gemini). Tools are `llm.Tool`s built from the scenario's name, description and JSON
schema (the `ToolSchema` constructor the `@llm.tool` decorator calls), whose function returns the
scenario's canned output. Streaming follows `loop.stream` (`Model.stream` or `Model.call`).

Mirascope's one provider tool class, `WebSearchTool`, is declared where the recording used a web search
(Anthropic's, the Responses API's and Gemini's `google_search`). Every other provider tool or built-in
its encoders refuse (each provider's tool converter raises `FeatureNotSupportedError` for a
`ProviderTool` it has no parameter for): a scenario that uses only such tools is declared unsupported,
naming the converter; one that also uses a web search runs, and is judged up to the turn that uses
what Mirascope could not declare, where the replay stops.
"""

from __future__ import annotations

import re
from typing import Any

from conformance.clients.official_sdks.common import installed_version
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.engine.neutral import text_of

# Anthropic requires `max_tokens`; the recorded traffic used 4096.
MAX_TOKENS = 4096
# The provider tool families Mirascope declares with its `WebSearchTool`.
_WEB_SEARCH = re.compile(r"^(web_search|web_search_preview|google_search)(_\d.*)?$")
# Each API's tool converter: `WebSearchTool` is the only `ProviderTool` it encodes (none on Chat Completions);
# any other raises FeatureNotSupportedError (mirascope 2.8.2).
_PROVIDERS = "mirascope/llm/providers"
_CONVERTERS = {
    "openai-chat": f"`_convert_tool_to_tool_param` ({_PROVIDERS}/openai/completions/_utils/encode.py:286-301)",
    "openai-responses": f"`_convert_tool_to_tool_param` ({_PROVIDERS}/openai/responses/_utils/encode.py:264-273)",
    "anthropic-messages": f"`convert_tool_to_tool_param` ({_PROVIDERS}/anthropic/_utils/encode.py:454-466)",
    "gemini": f"`_convert_tool_to_function_declaration` ({_PROVIDERS}/google/_utils/encode.py:322-329)",
}
_CONVERTERS.update(
    {"kimi-chat": _CONVERTERS["openai-chat"], "ollama-messages": _CONVERTERS["anthropic-messages"]}
    | {api: _CONVERTERS["openai-responses"] for api in ("openresponses", "mistral-responses", "ollama-responses")}
)


def _tools(loop: ToolLoop) -> list[Any]:
    from mirascope import llm
    from mirascope.llm.tools import FORMAT_TOOL_NAME
    from mirascope.llm.tools.tool_schema import ToolParameterSchema

    for t in loop.tools:
        if t.get("type", "function") != "function":
            loop.skip(f"Mirascope cannot declare the {t.get('type')} tool {t['name']!r}: an llm.Tool has a JSON schema")
        if t["name"].startswith(FORMAT_TOOL_NAME):
            # `BaseResponse.__init__` turns a call of that name into the formatted output's text
            # (mirascope/llm/responses/base_response.py:76): the tool would never run.
            loop.skip(
                f"Mirascope reserves the tool name {FORMAT_TOOL_NAME!r} for its structured output: a call to it "
                "is read as the formatted output, never run as a tool"
            )

    def implementation(name: str) -> Any:
        def run(**arguments: Any) -> str:
            return loop.call_tool(name, arguments)

        return run

    tools: list[Any] = []
    for t in loop.tools:
        schema = dict(t.get("parameters") or {})
        parameters = ToolParameterSchema(
            properties=dict(schema.get("properties") or {}),
            required=list(schema.get("required") or []),
            additionalProperties=bool(schema.get("additionalProperties", False)),
            **({"$defs": schema["$defs"]} if "$defs" in schema else {}),
        )
        tools.append(llm.Tool(implementation(t["name"]), t["name"], t.get("description", ""), parameters))
    return tools + _provider_tools(loop)


def _provider_tools(loop: ToolLoop) -> list[Any]:
    """`WebSearchTool` for a recorded web search; a scenario whose provider tools are all ones Mirascope has
    no class for is declared unsupported, naming the API's tool converter that refuses them."""
    from mirascope import llm

    searches = [t for t in loop.server_tools if _WEB_SEARCH.match(str(t.get("type", "")))]
    refused = sorted({str(t.get("type")) for t in loop.server_tools if t not in searches})
    if refused and not searches:
        loop.skip(
            f"Mirascope's one provider tool class is WebSearchTool (mirascope/llm/tools/web_search_tool.py:9); "
            f"its tool converter {_CONVERTERS.get(loop.api, '')} raises FeatureNotSupportedError for any other "
            f"ProviderTool: it cannot declare the provider tool {', '.join(refused)}"
        )
    return [llm.WebSearchTool()] if searches else []


def restored_messages(loop: ToolLoop) -> list[Any]:
    """A saved conversation as Mirascope keeps one (`response.messages`): a system message, user
    messages, assistant messages of `Text` and `ToolCall` parts, and the tool outputs as `ToolOutput`
    parts of a user message. A call saved without an id (Gemini before ids) gets the id Mirascope's
    Google provider gives every call read without one (`UNKNOWN_TOOL_ID`, which it sends back as none)."""
    import json

    from mirascope import llm
    from mirascope.llm.providers.google._utils.encode import UNKNOWN_TOOL_ID

    messages: list[Any] = []
    minted: list[str] = []
    for message in loop.history:
        parts = message["parts"]
        text = text_of(message)
        if message["role"] == "system":
            messages.append(llm.messages.system(text))
        elif message["role"] == "user":
            messages.append(llm.messages.user(text))
        elif message["role"] == "assistant":
            calls = [p for p in parts if p["type"] == "tool_call" and not p.get("provider_executed")]
            minted = [p.get("call_id") or UNKNOWN_TOOL_ID for p in calls]
            content: list[Any] = [llm.Text(text=text)] if text else []
            content += [
                llm.ToolCall(id=i, name=p["name"], args=json.dumps(p.get("arguments") or {}))
                for i, p in zip(minted, calls, strict=True)
            ]
            messages.append(llm.messages.assistant(content, model_id=None, provider_id=None))
        elif message["role"] == "tool":
            outputs = [
                llm.ToolOutput(id=p.get("call_id") or minted[i], name=str(p.get("name") or ""), result=p.get("output"))
                for i, p in enumerate(parts)
            ]
            messages.append(llm.messages.user(outputs))
    return messages


def _run(loop: ToolLoop, provider: Any, model_id: str, **params: Any) -> str:
    """The documented loop: call, then execute the tools and resume until no tool is asked for. Each run
    of a session resumes the last response with its prompt; a run cut off in a tool ends there, and the
    next run resumes the response whose calls were never answered."""
    from mirascope import llm

    from conformance.replay.continued import RunInterrupted

    llm.register_provider(provider, scope=model_id.split("/", 1)[0] + "/")
    model = llm.Model(model_id, **params)
    tools = _tools(loop)
    messages = restored_messages(loop)
    response: Any = None
    for prompt in loop.runs:
        if response is not None and prompt is not None:
            response = response.resume(prompt)  # a later run of the session
        else:
            if prompt is not None:
                messages.append(llm.messages.user(prompt))
            response = model.stream(messages, tools=tools) if loop.stream else model.call(messages, tools=tools)
        try:
            while True:
                if loop.stream:
                    response.finish()
                if not response.tool_calls:
                    break
                response = response.resume(response.execute_tools())
        except RunInterrupted:
            pass
    text = response.text() if response is not None else ""
    return text


def _openai_chat(loop: ToolLoop) -> str:
    from mirascope.llm.providers.openai.completions.provider import OpenAICompletionsProvider

    provider = OpenAICompletionsProvider(api_key=loop.api_key, base_url=loop.base_url)
    return _run(loop, provider, f"openai/{loop.model}:completions")


def _responses(loop: ToolLoop) -> str:
    from mirascope.llm.providers.openai.responses.provider import OpenAIResponsesProvider

    provider = OpenAIResponsesProvider(api_key=loop.api_key, base_url=loop.base_url)
    return _run(loop, provider, f"openai/{loop.model}:responses")


def _anthropic(loop: ToolLoop) -> str:
    from mirascope.llm.providers.anthropic.provider import AnthropicProvider

    provider = AnthropicProvider(api_key=loop.api_key, base_url=loop.base_url)
    return _run(loop, provider, f"anthropic/{loop.model}", max_tokens=MAX_TOKENS)


def _gemini(loop: ToolLoop) -> str:
    from mirascope.llm.providers.google.provider import GoogleProvider

    provider = GoogleProvider(api_key=loop.api_key, base_url=loop.base_url)
    return _run(loop, provider, f"google/{loop.model}")


ADAPTER = ClientAdapter(
    name="mirascope",
    version=installed_version("mirascope"),
    clients={
        "openai-chat": _openai_chat,
        "kimi-chat": _openai_chat,
        "openai-responses": _responses,
        "openresponses": _responses,
        "mistral-responses": _responses,
        "ollama-responses": _responses,
        "anthropic-messages": _anthropic,
        "ollama-messages": _anthropic,
        "gemini": _gemini,
    },
    homepage="https://github.com/Mirascope/mirascope",
    continues=frozenset({"history", "sessions"}),
    unsupported={
        "mistral-chat": "Mirascope has no Mistral provider (its providers: OpenAI, Anthropic, Google, Ollama, "
        "xAI, Together, OpenRouter, MLX and other OpenAI-compatible routers)",
        "ollama-chat": "Mirascope's OllamaProvider speaks Ollama's OpenAI-compatible /v1/chat/completions, "
        "not the native /api/chat",
        "bedrock-converse": "Mirascope has no Amazon Bedrock provider",
        "cohere-v2": "Mirascope has no Cohere provider",
        "azure-foundry": "Mirascope has no Azure AI Foundry provider",
        "gemini-interactions": "Mirascope's GoogleProvider calls generateContent, not the Interactions API",
    },
)
