"""LangChain (Python) chat models, run the way LangChain documents tool calling.

Each API is served by the LangChain integration for it: `ChatOpenAI` for Chat Completions,
`ChatOpenAI(use_responses_api=True)` for the Responses API, `ChatAnthropic` and `ChatMistralAI`.
Servers that speak those wires under another host are reached through the same classes with their
`base_url`, as LangChain documents for compatible endpoints: Mistral's and Ollama's `/v1/responses`
through `ChatOpenAI(use_responses_api=True)`, Ollama's `/v1/messages` through `ChatAnthropic`.
The loop is the documented manual one: `bind_tools`, `invoke` (or `stream`, adding the
`AIMessageChunk`s together), then each of the message's `tool_calls` run with `tool.invoke(tool_call)`,
which answers with a `ToolMessage` under the call's `tool_call_id`, until the model answers in text.
Tools are LangChain tools built from the scenario's JSON schemas (OpenAI custom tools with
`langchain_openai.custom_tool`); their implementation returns the scenario's canned output.
The provider's own tools the scenario uses are bound beside them as the provider's tool dicts, which
is how LangChain documents built-in tools: `bind_tools` passes a dict whose `type` it knows as a
built-in tool on unchanged (langchain-anthropic by type prefix, langchain-openai's Responses by
type name). One it does not know it would read as a function schema and reject, so the scenario
is declared unsupported, naming the list it is missing from. Anthropic options on a function tool
(`allowed_callers`, `defer_loading`) ride on the tool's `extras`, and an Anthropic MCP server is
the model's `mcp_servers` with an `mcp_toolset` tool naming it.
Retries are off, so a provider error surfaces once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from conformance.clients.official_sdks.common import installed_version, named_mcp_servers, recorded_extras
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.engine.neutral import text_of

MAX_TURNS = 8
# The Responses wire, however the server is reached: OpenAI's own, or a server of the same wire.
RESPONSES_APIS = frozenset({"openai-responses", "mistral-responses", "ollama-responses"})
ANTHROPIC_APIS = frozenset({"anthropic-messages", "ollama-messages"})

# The server tools `bind_tools` passes on as given: langchain-anthropic's by type prefix
# (`_BUILTIN_TOOL_PREFIXES`, langchain_anthropic/chat_models.py:196), langchain-core's for the
# Responses API by type name (`_WellKnownOpenAITools`, langchain_core/utils/function_calling.py:499,
# plus any `web_search_preview*`).
ANTHROPIC_BUILTIN_PREFIXES = (
    "text_editor_",
    "computer_",
    "bash_",
    "web_search_",
    "web_fetch_",
    "code_execution_",
    "mcp_toolset",
    "memory_",
    "tool_search_",
    "advisor_",
)
RESPONSES_BUILTIN_TYPES = frozenset(
    {
        "file_search",
        "computer",
        "computer_use_preview",
        "code_interpreter",
        "mcp",
        "image_generation",
        "web_search_preview",
        "web_search",
        "tool_search",
        "apply_patch",
        "namespace",
    }
)
# Options langchain-anthropic copies from a tool's `extras` onto its definition (`_ANTHROPIC_EXTRA_FIELDS`).
ANTHROPIC_TOOL_EXTRAS = frozenset(
    {"allowed_callers", "cache_control", "defer_loading", "eager_input_streaming", "input_examples"}
)


def unbindable(loop: ToolLoop) -> list[str]:
    """The scenario's server tools `bind_tools` would not pass on: it would read them as function schemas and raise."""
    if loop.api in ANTHROPIC_APIS:
        return [
            str(t.get("type"))
            for t in loop.server_tools
            if not str(t.get("type", "")).startswith(ANTHROPIC_BUILTIN_PREFIXES)
        ]
    if loop.api in RESPONSES_APIS:
        return [
            str(t.get("type"))
            for t in loop.server_tools
            if t.get("type") not in RESPONSES_BUILTIN_TYPES
            and not str(t.get("type", "")).startswith("web_search_preview")
        ]
    return []


def server_tools(loop: ToolLoop) -> list[dict[str, Any]]:
    """The scenario's server tools LangChain can bind for this API, as the provider's tool dicts."""
    if loop.api in ANTHROPIC_APIS:
        # An `mcp_toolset` names a server of the model's `mcp_servers`; one naming none is left out.
        served = {s["name"] for s in mcp_servers(loop) or ()}
        return [
            dict(t)
            for t in loop.server_tools
            if str(t.get("type", "")).startswith(ANTHROPIC_BUILTIN_PREFIXES)
            and (t.get("type") != "mcp_toolset" or t.get("mcp_server_name") in served)
        ]
    if loop.api in RESPONSES_APIS:
        return [
            dict(t)
            for t in loop.server_tools
            if t.get("type") in RESPONSES_BUILTIN_TYPES or str(t.get("type", "")).startswith("web_search_preview")
        ]
    return []


def mcp_servers(loop: ToolLoop) -> list[dict[str, Any]] | None:
    """The model's `mcp_servers`: the Anthropic MCP servers the scenario's `mcp_toolset`s name, if any."""
    return named_mcp_servers(loop) or None


def tool_extras(loop: ToolLoop, spec: Mapping[str, Any]) -> dict[str, Any]:
    """The Anthropic options of a function tool, for its LangChain `extras`."""
    if loop.api not in ANTHROPIC_APIS:
        return {}
    found = {**recorded_extras(loop, spec["name"]), **{k: v for k, v in spec.items() if k == "allowed_callers"}}
    return {k: v for k, v in found.items() if k in ANTHROPIC_TOOL_EXTRAS}


def _tools(loop: ToolLoop) -> list[Any]:
    """LangChain tools from the scenario's tool specs; each returns the scenario's canned output."""
    from langchain_core.tools import StructuredTool

    tools: list[Any] = []
    for spec in loop.tools:
        name = spec["name"]
        description = spec.get("description", "")
        if spec.get("type") == "custom":
            from langchain_openai import custom_tool

            def run_custom(text: str, _name: str = name) -> str:
                return loop.call_tool(_name, {"input": text})

            run_custom.__doc__ = description
            run_custom.__name__ = name
            tools.append(custom_tool(run_custom))
            continue

        def run(_name: str = name, **arguments: Any) -> str:
            return loop.call_tool(_name, arguments)

        tools.append(
            StructuredTool.from_function(
                func=run,
                name=name,
                description=description,
                args_schema=spec.get("parameters", {"type": "object", "properties": {}}),
                extras=tool_extras(loop, spec) or None,
            )
        )
    return tools


def _answer(tool_call: Any, by_name: dict[str, Any]) -> Any:
    """Run a call's tool; a name no tool has is answered with an error, as LangChain's ToolNode does."""
    from langchain_core.messages import ToolMessage

    tool = by_name.get(tool_call["name"])
    if tool is None:
        error = f"Error: {tool_call['name']!r} is not a valid tool, try one of {sorted(by_name)}."
        return ToolMessage(content=error, name=tool_call["name"], tool_call_id=tool_call["id"], status="error")
    return tool.invoke(tool_call)


def _answer_responses_items(message: Any, loop: ToolLoop) -> list[Any]:
    """Answers to the Responses items the client runs that LangChain keeps as content blocks, not tool_calls.

    computer_call is answered with a ToolMessage marked `computer_call_output`, an MCP approval request
    with an `mcp_approval_response` block, a client-run tool_search_call with a `tool_search_output`
    block, as langchain-openai reads them back.
    """
    from langchain_core.messages import HumanMessage, ToolMessage

    answers: list[Any] = []
    blocks: list[dict[str, Any]] = []
    for block in message.content if isinstance(message.content, list) else []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "computer_call":
            screenshot = json.loads(loop.call_tool("computer_call", block.get("action", {})))
            answers.append(
                ToolMessage(
                    content=[{"type": "input_image", "image_url": screenshot.get("image_url", "")}],
                    tool_call_id=block["call_id"],
                    additional_kwargs={"type": "computer_call_output"},
                )
            )
        elif kind == "mcp_approval_request":
            approve = loop.call_tool(block["name"], block.get("arguments", "{}")).strip() == "true"
            blocks.append({"type": "mcp_approval_response", "approve": approve, "approval_request_id": block["id"]})
        elif kind == "tool_search_call" and block.get("execution") == "client":
            found = json.loads(loop.call_tool("tool_search_call", block.get("arguments", {})))
            blocks.append(
                {"type": "tool_search_output", "call_id": block["call_id"], "execution": "client", "tools": found}
            )
    if blocks:
        answers.append(HumanMessage(content=blocks))  # type: ignore[arg-type]
    return answers


def _run(model: Any, loop: ToolLoop) -> str:
    """The documented manual tool loop over a LangChain chat model; a restored history's messages first,
    then each run of the session on the same message list."""
    from langchain_core.messages import HumanMessage

    missing = unbindable(loop)
    if missing:
        where = (
            "langchain_anthropic.chat_models._BUILTIN_TOOL_PREFIXES"
            if loop.api in ANTHROPIC_APIS
            else "langchain_core.utils.function_calling._WellKnownOpenAITools"
        )
        loop.skip(
            f"LangChain cannot bind the {', '.join(missing)} tool: bind_tools passes a provider tool dict on only "
            f"when its type is one it knows ({where}), and reads any other as a function schema, raising "
            "'Unsupported function'"
        )
    tools = _tools(loop)
    by_name = {t.name: t for t in tools}
    bound = model.bind_tools([*tools, *server_tools(loop)])
    if loop.interrupted:
        loop.skip(
            "LangChain's chat models send the message list they are given: neither ChatAnthropic "
            "(langchain_anthropic.chat_models._format_messages) nor ChatOpenAI (_convert_message_to_dict) closes out "
            "a tool call left without its ToolMessage, and langchain-core's message utilities (trim_messages, "
            "filter_messages, merge_message_runs) have none that does: repairing a run cut off before its tool "
            "answered is the application's"
        )
    messages = restored_messages(loop)
    answer = ""
    for prompt in loop.runs:
        if prompt is not None:
            messages.append(HumanMessage(prompt))
        answer = _turns(bound, loop, messages, by_name)
    return answer


def restored_messages(loop: ToolLoop) -> list[Any]:
    """A saved conversation as LangChain keeps one: its messages (an AIMessage with `tool_calls`, a
    ToolMessage per result under the call's id), provider-neutral, so a history begun on another
    provider goes on with this chat model. A call saved without an id gets a UUID, as LangChain's
    Google integration mints one for a call it reads without, and its result the same."""
    import uuid

    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    messages: list[Any] = []
    minted: list[str] = []
    for message in loop.history:
        parts = message["parts"]
        text = text_of(message)
        if message["role"] in ("user", "system"):
            messages.append(HumanMessage(text) if message["role"] == "user" else SystemMessage(text))
        elif message["role"] == "assistant":
            calls = [p for p in parts if p["type"] == "tool_call" and not p.get("provider_executed")]
            minted = [p.get("call_id") or str(uuid.uuid4()) for p in calls]
            tool_calls = [
                {"id": i, "name": p["name"], "args": p.get("arguments") or {}, "type": "tool_call"}
                for i, p in zip(minted, calls, strict=True)
            ]
            messages.append(AIMessage(content=text, tool_calls=tool_calls))
        elif message["role"] == "tool":
            messages += [
                ToolMessage(str(p.get("output", "")), tool_call_id=p.get("call_id") or minted[i], name=p.get("name"))
                for i, p in enumerate(parts)
            ]
    return messages


def _turns(bound: Any, loop: ToolLoop, messages: list[Any], by_name: dict[str, Any]) -> str:
    for _ in range(MAX_TURNS):
        if loop.stream:
            message: Any = None
            for chunk in bound.stream(messages):
                message = chunk if message is None else message + chunk
        else:
            message = bound.invoke(messages)
        messages.append(message)
        answers = [_answer(tool_call, by_name) for tool_call in message.tool_calls]
        if loop.api in RESPONSES_APIS:
            answers += _answer_responses_items(message, loop)
        if not answers:
            return str(message.text)
        messages.extend(answers)
    return ""


def openai_chat(loop: ToolLoop) -> str:
    from langchain_openai import ChatOpenAI

    # Chat Completions pinned: left to itself, ChatOpenAI moves to /responses when a non-function tool is bound.
    model = ChatOpenAI(
        model=loop.model,
        base_url=loop.base_url,
        api_key=loop.api_key,  # type: ignore[arg-type]
        max_retries=0,
        use_responses_api=False,
    )
    return _run(model, loop)


def openai_responses(loop: ToolLoop) -> str:
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(
        model=loop.model,
        base_url=loop.base_url,
        api_key=loop.api_key,  # type: ignore[arg-type]
        max_retries=0,
        use_responses_api=True,
    )
    return _run(model, loop)


def anthropic_messages(loop: ToolLoop) -> str:
    from langchain_anthropic import ChatAnthropic

    model = ChatAnthropic(  # type: ignore[call-arg]
        model=loop.model,
        base_url=loop.base_url,
        api_key=loop.api_key,  # type: ignore[arg-type]
        max_retries=0,
        mcp_servers=mcp_servers(loop),
    )
    return _run(model, loop)


def mistral_chat(loop: ToolLoop) -> str:
    from langchain_mistralai import ChatMistralAI

    model = ChatMistralAI(  # type: ignore[call-arg]
        model=loop.model,
        base_url=loop.base_url,
        api_key=loop.api_key,  # type: ignore[arg-type]
        max_retries=0,
    )
    return _run(model, loop)


def _integrations() -> str:
    packages = ("langchain-openai", "langchain-anthropic", "langchain-mistralai")
    return "langchain-core with " + ", ".join(f"{p} {installed_version(p)}" for p in packages)


CLIENTS: dict[str, Callable[[ToolLoop], Any]] = {
    "openai-chat": openai_chat,
    "openai-responses": openai_responses,
    "anthropic-messages": anthropic_messages,
    "mistral-chat": mistral_chat,
    "mistral-responses": openai_responses,
    "ollama-responses": openai_responses,
    "ollama-messages": anthropic_messages,
}

ADAPTER = ClientAdapter(
    name="langchain",
    version=installed_version("langchain-core"),
    clients=CLIENTS,
    homepage="https://github.com/langchain-ai/langchain",
    continues=frozenset({"history", "sessions"}),
    notes=_integrations(),
    unsupported={
        "openresponses": "not covered: Open Responses servers would be reached through ChatOpenAI's Responses mode, "
        "which this adapter exercises on openai-responses only",
        "azure-foundry": "not covered: Azure AI Foundry's hosted tools are outside LangChain's chat models",
        "gemini": "not covered: Gemini is served by langchain-google-genai, which this adapter does not drive",
        "kimi-chat": "not covered: Kimi has no LangChain integration in langchain-openai, -anthropic or -mistralai",
        "ollama-chat": "not covered: Ollama is served by langchain-ollama, which this adapter does not drive",
        "cohere-v2": "not covered: Cohere is served by langchain-cohere, which this adapter does not drive",
        "bedrock-converse": "not covered: Bedrock is served by langchain-aws, which this adapter does not drive",
    },
)
