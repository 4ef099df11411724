"""LiteLLM, run the way its documentation tells users to call tools.

Every chat-style API is driven through `litellm.completion` with a provider-prefixed model name
(`openai/`, `anthropic/`, `gemini/`, `mistral/`, `bedrock/converse/`, `cohere_chat/`,
`ollama_chat/`, `moonshot/`) and `api_base` pointed at the replay. The loop is LiteLLM's own:
`litellm.run_tool_loop` (its documented client-side tool loop) when the turns are whole
responses and no tool is a custom tool. `run_tool_loop` rejects `stream=True` and custom
tools, so there the loop is the documented manual one: `litellm.completion(..., stream=True)`, the
chunks rebuilt with `litellm.stream_chunk_builder`, the assistant message appended as returned,
and one `role: tool` message per call under the call's `id`. Tools are the scenario's function
(and custom) tools; for Anthropic, Gemini and the Responses API the provider's own tools the
recording declared (web search, code execution, shell, ...) are passed along as recorded. An
Anthropic MCP server is LiteLLM's `type: mcp` tool, which it sends as `mcp_servers`; a function tool
that code may call carries its `allowed_callers`; and a Gemini recording that let the model run its
tools beside the client's sets `completion`'s `include_server_side_tool_invocations`.

The Responses API is driven through `litellm.responses` with `store=False`: the output items of
each response are sent back as the next request's input, followed by one output item per
client-side call under its `call_id`. Streams are read to their `response.completed` event.
Servers of the same wires under another host are reached as LiteLLM documents for compatible
endpoints, the `openai/` or `anthropic/` model prefix with their `api_base`: Mistral's and Ollama's
`/v1/responses` through `litellm.responses`, Ollama's `/v1/messages` through `litellm.completion`.

A conversation continued (a restored history, a session of several runs) is LiteLLM's own input form,
OpenAI Chat messages, whatever provider it was begun on; one continued on the Responses API goes
through `completion`'s Responses bridge (the `responses/` model prefix), since `litellm.responses`
takes Responses input items only. A run cut off in its tool leaves its call unanswered, which
`litellm.modify_params` (LiteLLM's documented switch) closes out in the Anthropic translation.

Retries are off (`max_retries=0`, `num_retries=0`), so a provider error surfaces once. The cost
map and the Anthropic beta-header table are read from the installed package
(`LITELLM_LOCAL_MODEL_COST_MAP`, `LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS`), since a replay has no
network.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from conformance.clients.official_sdks.common import (
    arguments_of,
    chat_tool,
    installed_version,
    json_or_text,
    named_mcp_servers,
    server_tools,
)
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.engine.neutral import text_of

MAX_TURNS = 8
# The provider whose translation closes out a call left without its result, under `litellm.modify_params`.
_REPAIRING_PREFIXES = ("anthropic/",)


# Set when this module is imported, before anything imports litellm: litellm reads them as it is
# imported, and without them fetches its cost map from GitHub then (retrying in a thread of its own,
# which can reach a replay a later test has started), and its Anthropic client fetches a beta-header
# table on first use.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")


def _litellm() -> Any:
    import litellm

    return litellm


def _chat_tools(loop: ToolLoop) -> list[dict[str, Any]]:
    anthropic = loop.api == "anthropic-messages"
    tools: list[dict[str, Any]] = [
        # LiteLLM copies a tool's `allowed_callers` onto its Anthropic definition (programmatic tool calling).
        chat_tool(t, **({"allowed_callers": t["allowed_callers"]} if anthropic and "allowed_callers" in t else {}))
        for t in loop.tools
    ]
    # LiteLLM passes Anthropic server tools and Gemini's googleSearch/codeExecution through as given.
    if loop.api in ("anthropic-messages", "gemini"):
        tools.extend(server_tools(loop))
    if loop.api == "anthropic-messages":
        tools.extend(mcp_tools(loop))
    return tools


def mcp_tools(loop: ToolLoop) -> list[dict[str, Any]]:
    """The Anthropic MCP servers the scenario's `mcp_toolset`s name, as LiteLLM's MCP tool (`type: mcp`), which
    it sends to Anthropic as `mcp_servers` (`_map_openai_mcp_server_tool` in its Anthropic chat transformation)."""
    found: list[dict[str, Any]] = []
    for server in named_mcp_servers(loop):
        tool = {"type": "mcp", "server_label": server["name"], "server_url": server["url"], "require_approval": "never"}
        if server.get("authorization_token"):
            tool["headers"] = {"Authorization": f"Bearer {server['authorization_token']}"}
        found.append(tool)
    return found


def _run_call(loop: ToolLoop, call: Any) -> dict[str, Any]:
    """One tool message under the call's id, as LiteLLM's function-calling docs build it."""
    custom = getattr(call, "custom", None)
    if custom is not None:
        name, output = custom.name, loop.call_tool(custom.name, {"input": custom.input})
    else:
        name = call.function.name
        output = loop.call_tool(name, arguments_of(call.function.arguments))
    return {"tool_call_id": call.id, "role": "tool", "name": name, "content": output}


def _completion_loop(loop: ToolLoop, model: str, **kwargs: Any) -> str:
    litellm = _litellm()
    tools = _chat_tools(loop)
    kwargs = {"max_retries": 0, "num_retries": 0, "api_key": loop.api_key, **kwargs}
    if loop.history or len(loop.runs) > 1:
        return _continued(litellm, loop, model, tools, kwargs)
    messages: list[Any] = [{"role": "user", "content": loop.prompt}]
    if not loop.stream and all(t.get("type") != "custom" for t in tools):
        answer = litellm.run_tool_loop(
            model=model,
            messages=messages,
            tools=tools,
            execute_tool=lambda call: _run_call(loop, call),
            max_rounds=MAX_TURNS,
            **kwargs,
        )
        return str(answer or "")
    return _manual_loop(litellm, loop, model, tools, messages, kwargs)


def _continued(litellm: Any, loop: ToolLoop, model: str, tools: list[dict[str, Any]], kwargs: dict[str, Any]) -> str:
    """A conversation continued: the saved messages in LiteLLM's own input form (OpenAI Chat messages,
    whatever provider they were exchanged with: LiteLLM translates them for the model's), then each run
    of the session on the same list, with the loop of LiteLLM's function-calling docs."""
    from conformance.replay.continued import RunInterrupted

    repairs = model.startswith(_REPAIRING_PREFIXES)
    if loop.interrupted and not repairs:
        loop.skip(
            "LiteLLM closes out a call left without its result only in its Anthropic translation "
            "(litellm.modify_params: sanitize_messages_for_tool_calling, called from anthropic_messages_pt "
            "alone); for this provider it sends the application's message list as given, so repairing a run cut "
            "off before its tool answered is the application's"
        )
    messages = chat_messages(loop.history)
    answer = ""
    saved = litellm.modify_params
    # LiteLLM's documented switch for letting it fix a conversation the provider would refuse: here, a call
    # of a cut-off run that never got its result.
    litellm.modify_params = saved or (repairs and bool(loop.interrupted))
    try:
        for prompt in loop.runs:
            if prompt is not None:
                messages.append({"role": "user", "content": prompt})
            try:
                answer = _manual_loop(litellm, loop, model, tools, messages, kwargs)
            except RunInterrupted:
                continue  # the run ends on its unanswered call; the next request is LiteLLM's to repair
    finally:
        litellm.modify_params = saved
    return answer


def chat_messages(history: list[Any]) -> list[dict[str, Any]]:
    """A neutral history as OpenAI Chat messages, the form LiteLLM takes and returns for every provider:
    each call under its id, each result under its call's (an id-less call gets the id LiteLLM gives one
    it reads without, `call_` and 28 hex digits of a uuid4, and its result the same)."""
    import uuid

    messages: list[dict[str, Any]] = []
    minted: list[str] = []
    for message in history:
        parts = message["parts"]
        text = text_of(message)
        calls = [p for p in parts if p["type"] == "tool_call" and not p.get("provider_executed")]
        if message["role"] == "tool":
            messages += [
                {"role": "tool", "tool_call_id": p.get("call_id") or minted[i], "content": str(p.get("output", ""))}
                for i, p in enumerate(parts)
            ]
        elif calls:
            minted = [p.get("call_id") or f"call_{uuid.uuid4().hex[:28]}" for p in calls]
            functions = [{"name": p["name"], "arguments": json.dumps(p.get("arguments") or {})} for p in calls]
            entries = [{"id": i, "type": "function", "function": f} for i, f in zip(minted, functions, strict=True)]
            messages.append({"role": "assistant", "content": text or None, "tool_calls": entries})
        else:
            messages.append({"role": message["role"], "content": text})
    return messages


def _manual_loop(
    litellm: Any, loop: ToolLoop, model: str, tools: list[dict[str, Any]], messages: list[Any], kwargs: dict[str, Any]
) -> str:
    """The loop of LiteLLM's function-calling docs; streams are rebuilt with `stream_chunk_builder`."""
    for _ in range(MAX_TURNS):
        if loop.stream:
            chunks = list(litellm.completion(model=model, messages=messages, tools=tools, stream=True, **kwargs))
            response = litellm.stream_chunk_builder(chunks, messages=messages)
        else:
            response = litellm.completion(model=model, messages=messages, tools=tools, **kwargs)
        message = response.choices[0].message
        messages.append(message)
        if not message.tool_calls:
            return str(message.content or "")
        messages.extend(_run_call(loop, call) for call in message.tool_calls)
    return ""


def openai_chat(loop: ToolLoop) -> str:
    return _completion_loop(loop, f"openai/{loop.model}", api_base=loop.base_url)


def mistral_chat(loop: ToolLoop) -> str:
    return _completion_loop(loop, f"mistral/{loop.model}", api_base=loop.base_url)


def kimi_chat(loop: ToolLoop) -> str:
    return _completion_loop(loop, f"moonshot/{loop.model}", api_base=loop.base_url)


def ollama_chat(loop: ToolLoop) -> str:
    return _completion_loop(loop, f"ollama_chat/{loop.model}", api_base=loop.base_url)


def anthropic_messages(loop: ToolLoop) -> str:
    return _completion_loop(loop, f"anthropic/{loop.model}", api_base=loop.base_url)


def gemini(loop: ToolLoop) -> str:
    # LiteLLM's Gemini api_base carries the API version: {api_base}/models/{model}:generateContent.
    return _completion_loop(loop, f"gemini/{loop.model}", api_base=f"{loop.base_url}/v1beta", **gemini_options(loop))


def gemini_options(loop: ToolLoop) -> dict[str, Any]:
    """`completion`'s own argument for a recording that let Gemini 3 run its tools beside the client's
    (`toolConfig.includeServerSideToolInvocations`): without it LiteLLM drops a search tool declared beside
    function tools."""
    config = loop.settings.body.get("toolConfig")
    if isinstance(config, Mapping) and config.get("includeServerSideToolInvocations") is True:
        return {"include_server_side_tool_invocations": True}
    return {}


def cohere_v2(loop: ToolLoop) -> str:
    # LiteLLM's Cohere api_base is the whole endpoint.
    return _completion_loop(loop, f"cohere_chat/{loop.model}", api_base=f"{loop.base_url}/v2/chat")


def bedrock_converse(loop: ToolLoop) -> str:
    region = re.search(r"bedrock-runtime\.([a-z0-9-]+)\.", loop.base_url)
    return _completion_loop(
        loop,
        f"bedrock/converse/{loop.model}",
        api_base=loop.base_url,
        aws_region_name=region.group(1) if region else "us-east-1",
    )


# Client-side Responses items and the item that answers each, as OpenAI's tool guides build them;
# the call is run through `loop.call_tool` under the item's name (or type) with its arguments.
def _responses_output(loop: ToolLoop, item: Mapping[str, Any]) -> dict[str, Any] | None:
    kind, call_id = item.get("type"), item.get("call_id")
    if kind == "function_call":
        output = loop.call_tool(item["name"], arguments_of(item.get("arguments")))
        return {"type": "function_call_output", "call_id": call_id, "output": output}
    if kind == "custom_tool_call":
        output = loop.call_tool(item["name"], {"input": item.get("input", "")})
        return {"type": "custom_tool_call_output", "call_id": call_id, "output": output}
    if kind == "computer_call":
        output = json_or_text(loop.call_tool(kind, item.get("action", {})))
        return {"type": "computer_call_output", "call_id": call_id, "output": output}
    if kind == "local_shell_call":
        output = loop.call_tool(kind, item.get("action", {}))
        return {"type": "local_shell_call_output", "call_id": call_id, "output": output}
    if kind == "shell_call":
        output = json_or_text(loop.call_tool(kind, item.get("action", {})))
        return {"type": "shell_call_output", "call_id": call_id, "output": output}
    if kind == "apply_patch_call":
        output = loop.call_tool(kind, item.get("operation", {}))
        return {"type": "apply_patch_call_output", "call_id": call_id, "status": "completed", "output": output}
    if kind == "tool_search_call" and item.get("execution") == "client":
        found = json_or_text(loop.call_tool(kind, item.get("arguments", {})))
        return {"type": "tool_search_output", "call_id": call_id, "execution": "client", "tools": found}
    if kind == "mcp_approval_request":
        approve = loop.call_tool(item["name"], arguments_of(item.get("arguments"))) == "true"
        return {"type": "mcp_approval_response", "approval_request_id": item["id"], "approve": approve}
    return None


def _item_dict(item: Any) -> dict[str, Any]:
    return dict(item.model_dump(exclude_none=True)) if hasattr(item, "model_dump") else dict(item)


def openai_responses(loop: ToolLoop) -> str:
    litellm = _litellm()
    tools: list[Any] = [
        {"type": "custom", "name": t["name"], "description": t.get("description", "")}
        if t.get("type") == "custom"
        else {
            "type": "function",
            "name": t["name"],
            "description": t.get("description", ""),
            "parameters": t["parameters"],
        }
        for t in loop.tools
    ] + server_tools(loop)
    if loop.history and loop.history_api != loop.api:
        # litellm.responses takes Responses input items only; a conversation saved in LiteLLM's own form (OpenAI
        # Chat messages) goes on against the Responses API through completion's bridge, the `responses/` model
        # prefix, which translates the messages into input items.
        return _completion_loop(loop, f"openai/responses/{loop.model}", api_base=loop.base_url)
    if loop.interrupted:
        loop.skip("litellm.responses keeps no conversation of its own to repair after a run cut off in a tool")
    inputs: list[Any] = list(loop.history_wire)
    answer = ""
    for prompt in loop.runs:
        if prompt is not None:
            inputs.append({"role": "user", "content": prompt})
        answer = _responses_run(litellm, loop, tools, inputs)
    return answer


def _responses_run(litellm: Any, loop: ToolLoop, tools: list[Any], inputs: list[Any]) -> str:
    model = f"openai/{loop.model}"
    kwargs: dict[str, Any] = {"api_base": loop.base_url, "api_key": loop.api_key, "max_retries": 0, "num_retries": 0}
    for _ in range(MAX_TURNS):
        if loop.stream:
            response: Any = None
            for event in litellm.responses(model=model, input=inputs, tools=tools, store=False, stream=True, **kwargs):
                if getattr(event, "type", None) == "response.completed":
                    response = event.response
            if response is None:
                raise RuntimeError("the stream ended without response.completed")
        else:
            response = litellm.responses(model=model, input=inputs, tools=tools, store=False, **kwargs)
        items = [_item_dict(item) for item in response.output]
        inputs.extend(items)
        outputs = [out for out in (_responses_output(loop, item) for item in items) if out is not None]
        if not outputs:
            return str(getattr(response, "output_text", "") or "")
        inputs.extend(outputs)
    return ""


CLIENTS: dict[str, Callable[[ToolLoop], Any]] = {
    "openai-chat": openai_chat,
    "openai-responses": openai_responses,
    "anthropic-messages": anthropic_messages,
    "gemini": gemini,
    "mistral-chat": mistral_chat,
    "bedrock-converse": bedrock_converse,
    "cohere-v2": cohere_v2,
    "ollama-chat": ollama_chat,
    "kimi-chat": kimi_chat,
    "mistral-responses": openai_responses,
    "ollama-responses": openai_responses,
    "ollama-messages": anthropic_messages,
}

ADAPTER = ClientAdapter(
    name="litellm",
    version=installed_version("litellm"),
    clients=CLIENTS,
    homepage="https://github.com/BerriAI/litellm",
    continues=frozenset({"history", "sessions"}),
    unsupported={
        "openresponses": "not covered: LiteLLM has no Open Responses provider; litellm.responses against an "
        "OpenAI-style base URL is exercised under openai-responses",
        "azure-foundry": "not covered: the Foundry agent service's hosted tools (Bing grounding, SharePoint, A2A, "
        "workflows) are not something litellm.responses declares",
    },
)
