"""smolagents, run as its documentation shows: a `ToolCallingAgent` with tools, `agent.run(prompt)`.

Each API gets the smolagents model class that speaks it: `OpenAIModel` (an OpenAI-compatible server: Chat
Completions, and Moonshot's endpoint the same way), `AmazonBedrockModel` (Bedrock's Converse API through a
boto3 client), and `LiteLLMModel` for the providers smolagents reaches through LiteLLM (`anthropic/`,
`gemini/`, `mistral/`, `cohere_chat/`, `ollama_chat/` model ids with `api_base` pointed at the replay).
Tools are `Tool` subclasses whose `inputs` are the scenario's JSON schema properties (smolagents' own
form: each input a type and a description, optional ones `nullable`), returning the scenario's canned
output. The agent's own `final_answer` tool ends a run, and its model classes ask for a tool call on
every step (`tool_choice: "required"`, `smolagents/models.py:510`), as the library does by default.

Streaming follows `loop.stream` (`stream_outputs`, which calls the model's `generate_stream`). SDK retries
are off (`max_retries=0` for openai-python and LiteLLM, a single attempt for boto3), so a provider error
surfaces once. A session's runs are calls of `agent.run(prompt, reset=False)` on the same agent, which
keeps its memory; a restored history is not (module `_skip_history`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from conformance.clients.official_sdks.common import bedrock_client, installed_version
from conformance.connectors.client import ClientAdapter, ToolLoop

# Enough for the longest recorded chain and its final answer; smolagents' default is 20.
MAX_STEPS = 8

# LiteLLM reads these as it is imported; without them it fetches its cost map and Anthropic beta table.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")


def _inputs(loop: ToolLoop, spec: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The tool's JSON schema as smolagents' `inputs`: every property needs a `type` and a `description`
    (`Tool.validate_arguments`, `smolagents/tools.py:172-176`); one the schema leaves optional is `nullable`,
    which is how smolagents leaves it out of `required` (`get_tool_json_schema`, `models.py:294`)."""
    parameters = spec.get("parameters") or {}
    required = set(parameters.get("required") or ())
    inputs: dict[str, dict[str, Any]] = {}
    for name, schema in (parameters.get("properties") or {}).items():
        entry = dict(schema)
        if "type" not in entry and "anyOf" not in entry:
            entry["type"] = "any"
        entry.setdefault("description", "")
        if name not in required:
            entry["nullable"] = True
        inputs[name] = entry
    return inputs


def _tools(loop: ToolLoop) -> list[Any]:
    from smolagents import Tool

    for t in loop.tools:
        if t.get("type", "function") != "function":
            loop.skip(f"smolagents cannot declare the {t.get('type')} tool {t['name']!r}: a Tool has JSON inputs")
        if not t["name"].isidentifier():
            loop.skip(f"smolagents refuses the tool name {t['name']!r}: a Tool's name must be a Python identifier")
        if t["name"] == "final_answer":
            # `process_tool_calls` ends the run on a call of that name (smolagents/agents.py:1406), whichever
            # tool the application declared under it: its result is never sent.
            loop.skip(
                "smolagents reserves the tool name 'final_answer' for the agent's own terminal tool "
                "(`FinalAnswerTool`, smolagents/agents.py:402): a call to it ends the run, never answered"
            )
    if loop.server_tools:
        kinds = loop.server_tool_kinds
        loop.skip(
            "smolagents' model classes declare only its Tools (`get_tool_json_schema`, smolagents/models.py:540); "
            f"no provider tool: {kinds}"
        )

    class ScenarioTool(Tool):  # type: ignore[misc]  # smolagents is untyped
        # The inputs are declared from the schema, not from `forward`'s signature.
        skip_forward_signature_validation = True

        def __init__(self, spec: Mapping[str, Any]) -> None:
            self.name = spec["name"]
            self.description = spec.get("description", "") or spec["name"]
            self.inputs = _inputs(loop, spec)
            self.output_type = "string"
            super().__init__()

        def forward(self, *args: Any, **kwargs: Any) -> str:
            return loop.call_tool(self.name, kwargs if kwargs or not args else args[0])

    return [ScenarioTool(t) for t in loop.tools]


def _run(loop: ToolLoop, model: Any) -> str:
    """The documented loop: a ToolCallingAgent run on the prompt until its final answer; each further run
    of a session on the same agent with `reset=False`, as smolagents documents continuing a conversation.
    A run cut off in a tool ends there; the agent's memory keeps the step."""
    from smolagents import ToolCallingAgent
    from smolagents.monitoring import LogLevel

    from conformance.replay.continued import RunInterrupted

    if loop.history:
        loop.skip(
            "smolagents begins every run with a new task (`MultiStepAgent.run` appends a `TaskStep`, "
            "smolagents/agents.py:488): a restored conversation that ends on its tools' results cannot be continued "
            "without one"
        )
    agent = ToolCallingAgent(
        tools=_tools(loop),
        model=model,
        stream_outputs=loop.stream,
        verbosity_level=LogLevel.OFF,
        max_steps=MAX_STEPS,
    )
    answer: Any = ""
    for i, prompt in enumerate(loop.runs):
        try:
            answer = agent.run(prompt or "", reset=i == 0)
        except RunInterrupted:
            continue
    return str(answer)


def _litellm(loop: ToolLoop, model_id: str, api_base: str, **kwargs: Any) -> str:
    from smolagents import LiteLLMModel

    model = LiteLLMModel(
        model_id=model_id, api_base=api_base, api_key=loop.api_key, max_retries=0, num_retries=0, **kwargs
    )
    return _run(loop, model)


def openai_chat(loop: ToolLoop) -> str:
    from smolagents import OpenAIModel

    model = OpenAIModel(
        model_id=loop.model, api_base=loop.base_url, api_key=loop.api_key, client_kwargs={"max_retries": 0}
    )
    return _run(loop, model)


def anthropic_messages(loop: ToolLoop) -> str:
    return _litellm(loop, f"anthropic/{loop.model}", loop.base_url)


def gemini(loop: ToolLoop) -> str:
    # LiteLLM's Gemini api_base carries the API version: {api_base}/models/{model}:generateContent.
    return _litellm(loop, f"gemini/{loop.model}", f"{loop.base_url}/v1beta")


def mistral_chat(loop: ToolLoop) -> str:
    return _litellm(loop, f"mistral/{loop.model}", loop.base_url)


def cohere_v2(loop: ToolLoop) -> str:
    # LiteLLM's Cohere api_base is the whole endpoint.
    return _litellm(loop, f"cohere_chat/{loop.model}", f"{loop.base_url}/v2/chat")


def ollama_chat(loop: ToolLoop) -> str:
    return _litellm(loop, f"ollama_chat/{loop.model}", loop.base_url)


def bedrock_converse(loop: ToolLoop) -> str:
    from smolagents import AmazonBedrockModel

    if loop.stream:
        loop.skip(
            "smolagents' AmazonBedrockModel has no `generate_stream` (it calls `converse` only), so a "
            "ToolCallingAgent refuses `stream_outputs` with it (smolagents/agents.py:1253-1256)"
        )
    return _run(loop, AmazonBedrockModel(model_id=loop.model, client=bedrock_client(loop)))


ADAPTER = ClientAdapter(
    name="smolagents",
    version=installed_version("smolagents"),
    clients={
        "openai-chat": openai_chat,
        "kimi-chat": openai_chat,
        "anthropic-messages": anthropic_messages,
        "ollama-messages": anthropic_messages,
        "gemini": gemini,
        "mistral-chat": mistral_chat,
        "cohere-v2": cohere_v2,
        "ollama-chat": ollama_chat,
        "bedrock-converse": bedrock_converse,
    },
    homepage="https://github.com/huggingface/smolagents",
    continues=frozenset({"history", "sessions"}),
    unsupported={
        "openai-responses": "smolagents' model classes speak Chat Completions only (`OpenAIModel` calls "
        "`client.chat.completions.create`); no Responses API",
        "openresponses": "smolagents has no Open Responses model class; `OpenAIModel` speaks Chat Completions",
        "mistral-responses": "smolagents has no Responses model class; Mistral is reached through LiteLLM's chat",
        "ollama-responses": "smolagents has no Responses model class; Ollama is reached through LiteLLM's chat",
        "gemini-interactions": "smolagents reaches Gemini through LiteLLM's generateContent; no Interactions API",
        "azure-foundry": "smolagents' AzureOpenAIModel serves Azure OpenAI chat deployments; the Foundry project "
        "endpoint's Responses agent items have no smolagents model",
    },
)
