"""The official `cohere` SDK: the tool-use loop of Cohere's v2 guide, with `ClientV2`.

`chat`: the assistant turn goes back as the guide builds it (`tool_plan` and `tool_calls` as
returned), then one `role: tool` message per call under its `tool_call_id`, whose content is a
`document` block holding the output when it is a JSON object, else a `text` block. `chat_stream`:
the guide's accumulation of the events (`tool-plan-delta`, `tool-call-start` with the call's id and
name, `tool-call-delta` argument fragments, `content-delta` text) into the assistant turn.
Retries are off (`max_retries=0`, and no stream reconnection).
"""

from __future__ import annotations

import json
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

# A stream that breaks is not resumed: a retry by another name.
NO_RECONNECT: Any = {"stream_reconnection_enabled": False}


def _content(output: str) -> list[dict[str, Any]]:
    try:
        value = json.loads(output)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return [{"type": "document", "document": {"data": value}}]
    return [{"type": "text", "text": output}]


def _streamed(events: Any) -> dict[str, Any]:
    plan: list[str] = []
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    for event in events:
        kind = getattr(event, "type", None)
        message = getattr(getattr(event, "delta", None), "message", None)
        if kind == "tool-plan-delta" and message is not None and message.tool_plan:
            plan.append(message.tool_plan)
        elif kind == "tool-call-start" and message is not None and message.tool_calls is not None:
            call = message.tool_calls
            function = {"name": call.function.name, "arguments": call.function.arguments or ""}
            calls[event.index or 0] = {"id": call.id, "type": "function", "function": function}
        elif kind == "tool-call-delta" and message is not None and message.tool_calls is not None:
            fragment = message.tool_calls.function.arguments if message.tool_calls.function else None
            if fragment and (event.index or 0) in calls:
                calls[event.index or 0]["function"]["arguments"] += fragment
        elif kind == "content-delta" and message is not None and message.content is not None:
            text.append(message.content.text or "")
    turn: dict[str, Any] = {"role": "assistant"}
    if calls:
        turn["tool_calls"] = [calls[k] for k in sorted(calls)]
        turn["tool_plan"] = "".join(plan)
    else:
        turn["content"] = "".join(text)
    return turn


def cohere_v2(loop: ToolLoop, options: Options) -> str:
    import cohere
    import httpx

    # The SDK's default client settings (300 s, redirects followed), with the run's certificate store.
    http = httpx.Client(timeout=300, follow_redirects=True, verify=tls())
    client = cohere.ClientV2(api_key=loop.api_key, base_url=loop.base_url, max_retries=0, httpx_client=http)
    tools: Any = chat_function_tools(loop, "Cohere chat")
    messages: list[Any] = restored(loop, "the cohere SDK")

    def run() -> str:
        for _ in range(MAX_TURNS):
            calls: list[tuple[Any, str, Any]]
            if options.streams(loop):
                events = client.chat_stream(
                    model=loop.model, messages=messages, tools=tools, request_options=NO_RECONNECT
                )
                turn = _streamed(events)
                calls = [
                    (c["id"], c["function"]["name"], c["function"]["arguments"]) for c in turn.get("tool_calls", [])
                ]
                if not calls:
                    return str(turn.get("content", ""))
                messages.append(turn)
            else:
                reply: Any = client.chat(model=loop.model, messages=messages, tools=tools).message
                calls = [(c.id, c.function.name, c.function.arguments) for c in reply.tool_calls or []]
                if not calls:
                    return "".join(part.text for part in reply.content or [] if getattr(part, "text", None))
                messages.append({"role": "assistant", "tool_plan": reply.tool_plan, "tool_calls": reply.tool_calls})
            for call_id, name, arguments in calls:
                output = loop.call_tool(name, arguments_of(arguments))
                messages.append({"role": "tool", "tool_call_id": call_id, "content": _content(output)})
        return ""

    return each_run(loop, messages, lambda prompt: {"role": "user", "content": prompt}, run)
