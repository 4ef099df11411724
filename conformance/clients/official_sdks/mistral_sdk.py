"""The official `mistralai` SDK: the function-calling loop of Mistral's guide.

`chat.complete`: the assistant message is appended as returned, then one `role: tool` message per
call with the function's `name`, the output and the call's `tool_call_id`. `chat.stream`: the
completion events' deltas are joined (text, and each call's id, name and argument fragments by
index) into the assistant message. The SDK takes the server URL without the API version (it adds
`/v1/chat/completions`). Retries are off (`RetryConfig("none", ...)`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from conformance.clients.official_sdks.common import (
    MAX_TURNS,
    Options,
    arguments_of,
    chat_function_tools,
    each_run,
    restored,
    tls,
)
from conformance.connectors.client import ToolLoop


def _client(loop: ToolLoop) -> Any:
    import httpx2
    from mistralai.client import Mistral
    from mistralai.client.utils import BackoffStrategy, RetryConfig

    server = re.sub(r"/v1/?$", "", loop.base_url)
    no_retries = RetryConfig("none", BackoffStrategy(1, 1, 1.0, 1), False)
    # The SDK's own default clients, with the run's certificate store.
    http = httpx2.Client(follow_redirects=True, verify=tls())
    background = httpx2.AsyncClient(follow_redirects=True, verify=tls())
    return Mistral(
        api_key=loop.api_key, server_url=server, retry_config=no_retries, client=http, async_client=background
    )


def _streamed_message(events: Any) -> dict[str, Any]:
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    for event in events:
        choices = event.data.choices or []
        if not choices:
            continue
        delta = choices[0].delta
        if isinstance(delta.content, str):
            text.append(delta.content)
        for position, call in enumerate(delta.tool_calls or []):
            # The SDK's ToolCall reads a missing `index` as 0 (mistralai/client/models/toolcall.py:25), and
            # Mistral's own stream sends each call whole without one: there, a call's place is its position.
            sent_index = "index" in call.model_fields_set and isinstance(call.index, int)
            index = call.index if sent_index else position
            entry = calls.setdefault(index, {"id": None, "type": "function", "function": {"name": "", "arguments": ""}})
            if call.id and call.id != "null":
                entry["id"] = call.id
            if call.function.name:
                entry["function"]["name"] += call.function.name
            fragment = call.function.arguments
            entry["function"]["arguments"] += fragment if isinstance(fragment, str) else json.dumps(fragment)
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text)}
    if calls:
        message["tool_calls"] = [calls[k] for k in sorted(calls)]
    return message


def _calls(message: Any) -> list[tuple[Any, str, Any]]:
    """(id, name, arguments) of each call in the assistant message, a model or the streamed dict."""
    if isinstance(message, dict):
        return [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls") or []]
    return [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []]


def mistral_chat(loop: ToolLoop, options: Options) -> str:
    client = _client(loop)
    tools = chat_function_tools(loop, "Mistral chat")
    messages: list[Any] = restored(loop, "mistralai")

    def run() -> str:
        for _ in range(MAX_TURNS):
            message: Any
            if options.streams(loop):
                with client.chat.stream(model=loop.model, messages=messages, tools=tools) as events:
                    message = _streamed_message(events)
            else:
                message = client.chat.complete(model=loop.model, messages=messages, tools=tools).choices[0].message
            messages.append(message)
            calls = _calls(message)
            if not calls:
                content = message.get("content") if isinstance(message, dict) else message.content
                return content if isinstance(content, str) else ""
            for call_id, name, arguments in calls:
                output = loop.call_tool(name, arguments_of(arguments))
                messages.append({"role": "tool", "name": name, "content": output, "tool_call_id": call_id})
        return ""

    return each_run(loop, messages, lambda prompt: {"role": "user", "content": prompt}, run)
