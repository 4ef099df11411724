"""The official `ollama` Python library: the tool-calling loop of Ollama's guide, with `Client.chat`.

Not streamed (`stream=False`, the library's default): the response message is appended as returned,
then one `role: tool` message per call with the output and the tool's `tool_name`. Streamed
(`stream=True`): the guide's accumulation of each chunk's thinking, content and tool calls into one
assistant message. With `ollama_show`, the application asks `show` for the model's capabilities
first, as clients do before they send tools.
"""

from __future__ import annotations

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


def ollama_chat(loop: ToolLoop, options: Options) -> str:
    import ollama

    client = ollama.Client(host=loop.base_url, verify=tls())  # keyword arguments go to its httpx client
    tools = chat_function_tools(loop, "Ollama chat")
    if options.ollama_show:
        client.show(loop.model)
    messages: list[Any] = restored(loop, "the ollama SDK")

    def run() -> str:
        for _ in range(MAX_TURNS):
            message: Any
            calls: list[Any] = []
            if options.streams(loop):
                thinking, content = "", ""
                for chunk in client.chat(model=loop.model, messages=messages, tools=tools, stream=True):
                    thinking += chunk.message.thinking or ""
                    content += chunk.message.content or ""
                    calls.extend(chunk.message.tool_calls or [])
                message = {"role": "assistant", "thinking": thinking, "content": content, "tool_calls": calls}
            else:
                message = client.chat(model=loop.model, messages=messages, tools=tools).message
                calls = list(message.tool_calls or [])
            messages.append(message)
            if not calls:
                return str(message["content"] if isinstance(message, dict) else message.content or "")
            for call in calls:
                output = loop.call_tool(call.function.name, arguments_of(call.function.arguments))
                messages.append({"role": "tool", "content": output, "tool_name": call.function.name})
        return ""

    return each_run(loop, messages, lambda prompt: {"role": "user", "content": prompt}, run)
