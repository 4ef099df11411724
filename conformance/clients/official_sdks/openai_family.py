"""The official `openai` SDK: Chat Completions (OpenAI and Kimi) and the Responses API (OpenAI, Azure
AI Foundry, Open Responses), each the way its guide runs a tool loop.

Chat Completions (OpenAI's function-calling guide): the assistant message is appended as returned,
then one `role: tool` message per call under the call's `id`; Moonshot's Kimi guide builds the same
loop with `openai.OpenAI(base_url="https://api.moonshot.ai/v1")` and adds the tool's `name` to each
tool message. Streams go through `client.chat.completions.stream(...)` and its final completion.

Responses (OpenAI's function-calling and tool guides): the output items are appended to the input
as returned, then one output item per client-side call; or, with `previous_response_id`, only the
new output items are sent, after the stored response. Streams go through
`client.responses.stream(...)` and its final response. Azure AI Foundry's project endpoint and Open
Responses servers are reached with `openai.OpenAI(base_url=...)`, as their documentation shows.

Request-level settings the recording sent are passed as the SDK's keyword arguments where it has
them (`store`, `max_tokens`, ...) and with `extra_body` otherwise (Foundry's `agent_reference`).
Retries are off (`max_retries=0`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from conformance.clients.official_sdks.common import (
    MAX_TURNS,
    Options,
    arguments_of,
    chat_tool,
    each_run,
    is_custom,
    json_or_text,
    parameters_of,
    recorded_extras,
    restored,
    server_tools,
    split_settings,
    tls,
)
from conformance.connectors.client import ToolLoop


def _client(loop: ToolLoop) -> Any:
    import openai

    http = openai.DefaultHttpxClient(verify=tls())
    return openai.OpenAI(base_url=loop.base_url, api_key=loop.api_key, max_retries=0, http_client=http)


# --- Chat Completions ------------------------------------------------------------------------------


def _chat_tools(loop: ToolLoop) -> list[Any]:
    return [chat_tool(t, **recorded_extras(loop, t["name"])) for t in loop.tools]


def _chat_result(loop: ToolLoop, call: Any, *, with_name: bool) -> dict[str, Any]:
    if call.type == "custom":
        name, output = call.custom.name, loop.call_tool(call.custom.name, {"input": call.custom.input})
    else:
        name = call.function.name
        output = loop.call_tool(name, arguments_of(call.function.arguments))
    message = {"role": "tool", "tool_call_id": call.id, "content": output}
    return {**message, "name": name} if with_name else message


def _chat_loop(loop: ToolLoop, options: Options, *, with_name: bool) -> str:
    client = _client(loop)
    tools = _chat_tools(loop)
    messages: list[Any] = restored(loop, "openai-python")
    named, extra = split_settings(client.chat.completions.create, loop.settings.body)

    def run() -> str:
        for _ in range(MAX_TURNS):
            request = {"model": loop.model, "messages": messages, "tools": tools, **named, "extra_body": extra or None}
            if options.streams(loop):
                with client.chat.completions.stream(**request) as stream:
                    for _event in stream:
                        pass
                    message = stream.get_final_completion().choices[0].message
            else:
                message = client.chat.completions.create(**request).choices[0].message
            messages.append(message)
            if not message.tool_calls:
                return str(message.content or "")
            messages.extend(_chat_result(loop, call, with_name=with_name) for call in message.tool_calls)
        return ""

    return each_run(loop, messages, lambda prompt: {"role": "user", "content": prompt}, run)


def openai_chat(loop: ToolLoop, options: Options) -> str:
    return _chat_loop(loop, options, with_name=False)


def kimi_chat(loop: ToolLoop, options: Options) -> str:
    return _chat_loop(loop, options, with_name=True)


# --- Responses ---------------------------------------------------------------------------------------


def _responses_tools(loop: ToolLoop) -> list[Any]:
    tools: list[Any] = []
    for t in loop.tools:
        if is_custom(t):
            tools.append({"type": "custom", "name": t["name"], "description": t.get("description", "")})
            continue
        definition = {"type": "function", "name": t["name"], "description": t.get("description", "")}
        tools.append({**definition, "parameters": parameters_of(t), **recorded_extras(loop, t["name"])})
    return tools + server_tools(loop)


def _field(item: Any, name: str, default: Any = None) -> Any:
    """A field of an output item, declared by the SDK's model or kept as an extra."""
    value = getattr(item, name, None)
    if value is None and isinstance(getattr(item, "model_extra", None), dict):
        value = item.model_extra.get(name)
    return default if value is None else value


def _plain(value: Any) -> Any:
    return value.model_dump(exclude_none=True) if hasattr(value, "model_dump") else value


# What an application sends back for each client-side output item, as OpenAI's tool guides build it;
# the call runs through `loop.call_tool` under the item's name (function, custom and MCP tools) or
# its type (computer, shell, apply-patch, tool search), with the item's arguments, action or operation.
def _answer(loop: ToolLoop, item: Any) -> dict[str, Any] | None:
    kind, call_id = _field(item, "type"), _field(item, "call_id")
    if kind == "function_call":
        output = loop.call_tool(item.name, arguments_of(item.arguments))
        return {"type": "function_call_output", "call_id": call_id, "output": output}
    if kind == "custom_tool_call":
        output = loop.call_tool(item.name, {"input": item.input})
        return {"type": "custom_tool_call_output", "call_id": call_id, "output": output}
    if kind == "computer_call":
        screenshot = json_or_text(loop.call_tool(kind, _plain(_field(item, "action", {}))))
        answer = {"type": "computer_call_output", "call_id": call_id, "output": screenshot}
        checks = [_plain(c) for c in _field(item, "pending_safety_checks", [])]
        return {**answer, "acknowledged_safety_checks": checks} if checks else answer
    if kind == "local_shell_call":
        # openai-python's LocalShellCallOutput names the call in `id`: "the unique ID of the local
        # shell tool call generated by the model", its call_id.
        output = loop.call_tool(kind, _plain(_field(item, "action", {})))
        return {"type": "local_shell_call_output", "id": call_id, "output": output}
    if kind == "shell_call":
        action = _plain(_field(item, "action", {}))
        answer = {"type": "shell_call_output", "call_id": call_id, "output": json_or_text(loop.call_tool(kind, action))}
        limit = action.get("max_output_length") if isinstance(action, dict) else None
        return {**answer, "max_output_length": limit} if limit is not None else answer
    if kind == "apply_patch_call":
        output = loop.call_tool(kind, _plain(_field(item, "operation", {})))
        return {"type": "apply_patch_call_output", "call_id": call_id, "status": "completed", "output": output}
    if kind == "tool_search_call" and _field(item, "execution") == "client":
        found = json_or_text(loop.call_tool(kind, _plain(_field(item, "arguments", {}))))
        return {"type": "tool_search_output", "call_id": call_id, "execution": "client", "tools": found}
    if kind == "mcp_approval_request":
        approve = loop.call_tool(item.name, arguments_of(item.arguments)) == "true"
        return {"type": "mcp_approval_response", "approval_request_id": item.id, "approve": approve}
    return None


def _asks_consent(items: list[Any]) -> bool:
    """Foundry's OAuth identity passthrough: the agent answers with a consent link; once the user has
    signed in there, the application sends the same request again."""
    return any(_field(item, "type") == "oauth_consent_request" for item in items)


def _respond(client: Any, request: Mapping[str, Any], stream: bool) -> Any:
    if not stream:
        return client.responses.create(**request)
    with client.responses.stream(**request) as events:
        for _event in events:
            pass
        return events.get_final_response()


def _responses_loop(loop: ToolLoop, options: Options, *, consent: bool = False) -> str:
    client = _client(loop)
    tools = _responses_tools(loop)
    chained = options.responses == "previous-response-id"
    # A response that is continued must be stored: the default, so a recorded `store: false` is not sent.
    settings = {k: v for k, v in loop.settings.body.items() if not (chained and k == "store")}
    named, extra = split_settings(client.responses.create, settings)
    history: list[Any] = restored(loop, "openai-python")
    # What the next request sends after `previous_response_id` (all of `history` when nothing is stored yet).
    new: list[Any] = list(history)
    previous: str | None = None

    def run() -> str:
        nonlocal new, previous
        consented = False
        for _ in range(MAX_TURNS):
            request: dict[str, Any] = {"model": loop.model, "tools": tools, **named, "extra_body": extra or None}
            if chained and previous is not None:
                request.update(input=new, previous_response_id=previous)
            else:
                request["input"] = history
            response = _respond(client, request, options.streams(loop))
            items = list(response.output)
            try:
                answers = [a for a in (_answer(loop, item) for item in items) if a is not None]
            finally:  # a run cut off in a tool keeps what the model said (a later run continues after it)
                history.extend(items)
                new, previous = [], response.id
            if not answers:
                if consent and not consented and _asks_consent(items):
                    consented = True
                    continue
                return str(getattr(response, "output_text", "") or "")
            history.extend(answers)
            new = list(answers)
        return ""

    def begin(prompt: str) -> Any:
        new.append({"role": "user", "content": prompt})
        return {"role": "user", "content": prompt}

    return each_run(loop, history, begin, run)


def openai_responses(loop: ToolLoop, options: Options) -> str:
    return _responses_loop(loop, options)


def azure_foundry(loop: ToolLoop, options: Options) -> str:
    return _responses_loop(loop, options, consent=True)


def openresponses(loop: ToolLoop, options: Options) -> str:
    return _responses_loop(loop, options)


def openai_compatible_responses(loop: ToolLoop, options: Options) -> str:
    """Servers of the Responses wire that publish no SDK of their own for it (Mistral's and Ollama's
    /v1/responses): openai-python pointed at their base URL."""
    return _responses_loop(loop, options)


CLIENTS: dict[str, Callable[[ToolLoop, Options], Any]] = {
    "openai-chat": openai_chat,
    "kimi-chat": kimi_chat,
    "openai-responses": openai_responses,
    "azure-foundry": azure_foundry,
    "openresponses": openresponses,
    "mistral-responses": openai_compatible_responses,
    "ollama-responses": openai_compatible_responses,
}
