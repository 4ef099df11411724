"""The official `openai` Python SDK, run as an application would run it: a Chat Completions tool loop.

The simplest client adapter, and the template for others: build the library's client against
`loop.base_url`, send the prompt with the tools, run each requested tool through
`loop.call_tool`, send the results back, until the model answers in text. A restored history is the
saved message list (`loop.history_wire`) the loop starts from; a session's later runs each append
their user message to the same list (`loop.runs`).
"""

from __future__ import annotations

import json
from typing import Any

from conformance.clients.official_sdks.common import chat_tool, restored
from conformance.connectors.client import ClientAdapter, ToolLoop

MAX_TURNS = 8


def chat_tool_loop(loop: ToolLoop) -> str:
    import openai

    client = openai.OpenAI(base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
    tools: list[Any] = [chat_tool(t) for t in loop.tools]
    messages: list[Any] = restored(loop, "openai-python")
    answer = ""
    for prompt in loop.runs:  # each run of the session, on the same message list
        if prompt is not None:
            messages.append({"role": "user", "content": prompt})
        answer = _run(client, loop, messages, tools)
    return answer


def _run(client: Any, loop: ToolLoop, messages: list[Any], tools: list[Any]) -> str:
    for _ in range(MAX_TURNS):
        message: Any
        if loop.stream:
            with client.chat.completions.stream(model=loop.model, messages=messages, tools=tools) as stream:
                for _event in stream:
                    pass
                message = stream.get_final_completion().choices[0].message
        else:
            completion = client.chat.completions.create(model=loop.model, messages=messages, tools=tools)
            message = completion.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content or ""
        for call in message.tool_calls:
            if call.type == "function":
                output = loop.call_tool(call.function.name, json.loads(call.function.arguments or "{}"))
            else:
                output = loop.call_tool(call.custom.name, {"input": call.custom.input})
            messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
    return ""


def _version() -> str:
    try:
        import openai

        return str(openai.__version__)
    except ImportError:
        return "not installed"


ADAPTER = ClientAdapter(
    name="openai-python",
    version=_version(),
    clients={"openai-chat": chat_tool_loop},
    continues=frozenset({"history", "sessions"}),
    homepage="https://github.com/openai/openai-python",
)
