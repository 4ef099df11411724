"""CAMEL (`camel-ai`), run as its documentation shows: a `ChatAgent` with tools, stepped on the prompt.

`ChatAgent.step` runs the tool loop itself: it calls the model, runs each tool the response calls,
records the calls and their results in the agent's memory, and calls the model again until it
answers without a call. Each API gets the model backend CAMEL has for it, created with
`ModelFactory.create(model_platform, model_type, url=loop.base_url, api_key=loop.api_key)`:
`OpenAIModel` (Chat Completions, and with `api_mode="responses"` the Responses API of OpenAI and of the
servers that speak it at their own `url`),
`MoonshotModel` (Moonshot's OpenAI-compatible endpoint), `AnthropicModel` (the `anthropic` SDK, and
Ollama's copy of the Messages API), `MistralModel` (`mistralai`), `CohereModel` (`cohere`'s v2 chat)
and `AWSBedrockConverseModel` (boto3's Converse). Tools are `FunctionTool`s given the scenario's name,
description and JSON schema as their `openai_tool_schema`, whose function returns the scenario's
canned output. Streaming follows `loop.stream` (the backend's `stream` setting), but for the Mistral and
Cohere backends, which do not stream: they are answered unstreamed. Retries are off in
the agent (`retry_attempts=1`) and the SDK clients (`max_retries=0`), so a provider error surfaces once.
A scenario that uses a provider tool or built-in is declared unsupported: the Anthropic and Responses
backends send function tools only, as `_FUNCTIONS_ONLY` names.
"""

from __future__ import annotations

import re
from typing import Any

from conformance.clients.official_sdks.common import bedrock_region, installed_version
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.engine.neutral import text_of

# Anthropic and Bedrock: the recorded traffic used 4096.
MAX_TOKENS = 4096

# Why a backend sends no provider tool (camel-ai 0.2.90): a ChatAgent's tools are its FunctionTools' OpenAI
# function schemas (`ChatAgent._get_full_tool_schemas`, camel/agents/chat_agent.py:931-938).
_FUNCTIONS_ONLY = {
    "anthropic": "`AnthropicModel._convert_openai_tools_to_anthropic` keeps only the tools that have an OpenAI "
    "`function` (camel/models/anthropic_model.py:639-666)",
    "responses": "`OpenAIModel` sends the ChatAgent's tool schemas (`ChatAgent._get_full_tool_schemas`, "
    "camel/agents/chat_agent.py:931-938), and its config's `tools` take functions only (ChatGPTConfig: "
    "'Currently, only functions are supported as a tool', camel/configs/openai_config.py:83-85)",
}


def _token_counter() -> Any:
    """A `BaseTokenCounter` that counts bytes: the backends' default counters load tiktoken's encodings
    from the network at first use (or ask the provider's token-count endpoint), which a replay does not
    have. CAMEL uses the count only to fit its memory into the model's window, far larger than a scenario."""
    import json

    from camel.utils import BaseTokenCounter

    class ByteCounter(BaseTokenCounter):  # type: ignore[misc]
        def count_tokens_from_messages(self, messages: list[Any]) -> int:
            return len(json.dumps(messages, default=str).encode())

        def encode(self, text: str) -> list[int]:
            return list(text.encode())

        def decode(self, token_ids: list[int]) -> str:
            return bytes(token_ids).decode(errors="replace")

    return ByteCounter()


def _tools(loop: ToolLoop) -> list[Any]:
    from camel.toolkits import FunctionTool

    for t in loop.tools:
        if t.get("type", "function") != "function":
            loop.skip(
                f"CAMEL cannot declare the {t.get('type')} tool {t['name']!r}: a FunctionTool has an OpenAI "
                "function schema"
            )
    if loop.server_tools:
        kinds = loop.server_tool_kinds
        backend = "anthropic" if loop.api.endswith("-messages") else "responses"
        loop.skip(f"CAMEL's {_FUNCTIONS_ONLY[backend]}: it cannot declare the provider tool {kinds}")

    def implementation(name: str) -> Any:
        def run(**arguments: Any) -> str:
            return loop.call_tool(name, arguments)

        run.__name__ = name
        return run

    return [
        FunctionTool(
            implementation(t["name"]),
            openai_tool_schema={
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t.get("description", ""),
                    # CAMEL's schema validation reads `properties` (function_tool.py:781); the schema it
                    # generates for a function without parameters has an empty one.
                    "parameters": {"type": "object", "properties": {}, **(t.get("parameters") or {})},
                },
            },
        )
        for t in loop.tools
    ]


def restore_history(loop: ToolLoop, agent: Any) -> None:
    """A saved conversation written into the agent's memory as CAMEL records one (`update_memory`): the
    user's messages, the assistant's text, and each call as a `FunctionCallingMessage` from the
    assistant followed by its result as one in the function role, under the call's id. A call saved
    without an id gets one of the form CAMEL mints for a call read without one."""
    import uuid

    from camel.messages import BaseMessage, FunctionCallingMessage
    from camel.types import OpenAIBackendRole, RoleType

    minted: list[str] = []
    for message in loop.history:
        parts = message["parts"]
        text = text_of(message)
        if message["role"] == "system":
            agent.update_system_message(text)
        elif message["role"] == "user":
            agent.update_memory(BaseMessage.make_user_message("user", text), OpenAIBackendRole.USER)
        elif message["role"] == "assistant":
            calls = [p for p in parts if p["type"] == "tool_call" and not p.get("provider_executed")]
            minted = [p.get("call_id") or f"call_{uuid.uuid4().hex}" for p in calls]
            if text:
                agent.update_memory(BaseMessage.make_assistant_message("assistant", text), OpenAIBackendRole.ASSISTANT)
            for call_id, p in zip(minted, calls, strict=True):
                call = FunctionCallingMessage(
                    role_name="assistant",
                    role_type=RoleType.ASSISTANT,
                    meta_dict=None,
                    content="",
                    func_name=p["name"],
                    args=p.get("arguments") or {},
                    tool_call_id=call_id,
                )
                agent.update_memory(call, OpenAIBackendRole.ASSISTANT)
        elif message["role"] == "tool":
            for i, part in enumerate(parts):
                result = FunctionCallingMessage(
                    role_name="assistant",
                    role_type=RoleType.ASSISTANT,
                    meta_dict=None,
                    content="",
                    func_name=str(part.get("name") or ""),
                    result=part.get("output"),
                    tool_call_id=str(part.get("call_id") or minted[i]),
                )
                agent.update_memory(result, OpenAIBackendRole.FUNCTION)


def _run(loop: ToolLoop, platform: str, **options: Any) -> str:
    """The documented loop: a ChatAgent holding the tools, stepped on each run's prompt; the agent's
    memory carries the conversation from one run to the next."""
    from camel.agents import ChatAgent
    from camel.models import ModelFactory

    from conformance.replay.continued import RunInterrupted

    config: dict[str, Any] = dict(options.pop("config", {}))
    streams = options.pop("streams", True) and loop.stream
    if streams:
        config["stream"] = True
    url = options.pop("url", loop.base_url)
    if options.pop("factory", True):
        model = ModelFactory.create(
            model_platform=platform,
            model_type=loop.model,
            model_config_dict=config or None,
            api_key=loop.api_key,
            url=url,
            max_retries=0,
            token_counter=_token_counter(),
            **options,
        )
    else:
        from camel.models import CohereModel

        model = CohereModel(
            loop.model, config or None, api_key=loop.api_key, url=url, token_counter=_token_counter(), **options
        )
    agent = ChatAgent(model=model, tools=_tools(loop), retry_attempts=1)
    restore_history(loop, agent)
    answer = ""
    for prompt in loop.runs:
        if prompt is None:
            loop.skip("a CAMEL ChatAgent is stepped on a user message: `step` has no way to continue without one")
        try:
            response = agent.step(prompt)
            if streams:
                for _ in response:
                    pass
            answer = response.msg.content if response.msgs else ""
        except RunInterrupted:
            continue
    return answer


def _openai_chat(loop: ToolLoop) -> str:
    return _run(loop, "openai")


def _responses(loop: ToolLoop) -> str:
    return _run(loop, "openai", api_mode="responses")


def _kimi(loop: ToolLoop) -> str:
    return _run(loop, "moonshot")


def _anthropic(loop: ToolLoop) -> str:
    return _run(loop, "anthropic", config={"max_tokens": MAX_TOKENS})


def _mistral(loop: ToolLoop) -> str:
    # The Mistral SDK takes the server URL without the API version; it appends /v1/chat/completions.
    # `MistralModel` always calls `chat.complete` ("stream mode ... Current it's not supported",
    # camel/models/mistral_model.py:395-400), so it is run unstreamed and answered in that form.
    return _run(loop, "mistral", url=re.sub(r"/v1/?$", "", loop.base_url), streams=False)


def _cohere(loop: ToolLoop) -> str:
    # `ModelFactory.create` hands every backend `max_retries`, which `CohereModel` passes on to
    # `cohere.ClientV2` (camel/models/cohere_model.py:111-120), whose constructor has no such argument; and
    # the backend never gives the client its `url`. The model class itself, with the client's `base_url`
    # among the keyword arguments it forwards, is CAMEL's other documented way to make one.
    # `CohereModel.stream` is always False ("Current it's not supported", camel/models/cohere_model.py:433-441):
    # it is run unstreamed and answered in that form.
    return _run(loop, "cohere", factory=False, streams=False, base_url=loop.base_url)


def _bedrock(loop: ToolLoop) -> str:
    import os

    os.environ.setdefault("AWS_REGION", bedrock_region(loop.base_url))
    return _run(loop, "aws-bedrock-converse", config={"max_tokens": MAX_TOKENS})


ADAPTER = ClientAdapter(
    name="camel-ai",
    version=installed_version("camel-ai"),
    clients={
        "openai-chat": _openai_chat,
        "openai-responses": _responses,
        "openresponses": _responses,
        "mistral-responses": _responses,
        "ollama-responses": _responses,
        "kimi-chat": _kimi,
        "anthropic-messages": _anthropic,
        "ollama-messages": _anthropic,
        "mistral-chat": _mistral,
        "cohere-v2": _cohere,
        "bedrock-converse": _bedrock,
    },
    homepage="https://github.com/camel-ai/camel",
    continues=frozenset({"history", "sessions"}),
    unsupported={
        "gemini": "CAMEL's GeminiModel is an OpenAICompatibleModel: it speaks Gemini's OpenAI-compatible "
        "endpoint, not generateContent",
        "ollama-chat": "CAMEL's OllamaModel is an OpenAICompatibleModel: it speaks Ollama's /v1/chat/completions, "
        "not the native /api/chat",
        "azure-foundry": "CAMEL has no Azure AI Foundry backend",
        "gemini-interactions": "CAMEL has no backend for Gemini's Interactions API",
    },
)
