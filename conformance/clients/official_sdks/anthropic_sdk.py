"""The official `anthropic` SDK: the Messages tool loop of Anthropic's tool-use guide, or the beta tool runner.

The plain loop (`messages.create`, or `messages.stream` and its final message): the reply's content
is appended as an assistant message, then one user message with a `tool_result` block per
`tool_use` block, under the call's `id`, until the reply stops for another reason than `tool_use`
(a `pause_turn` reply is sent back as it is, as the server-tools guide says). Recordings that used
beta features (`anthropic-beta`: MCP connector, advisor, programmatic tool calling) go through
`client.beta.messages` with the same `betas`.

The tool runner (`client.beta.messages.tool_runner(...)`, iterated to the end) runs over a message
thread the server holds: the first request creates it, later ones send only the tool results with a
`thread` continuation. Function tools are `BetaFunctionTool`s whose function is the scenario's;
server tools go as recorded.

`max_tokens` and the other recorded request settings (`mcp_servers`, ...) are passed as the SDK's
keyword arguments. Retries are off (`max_retries=0`).
"""

from __future__ import annotations

from typing import Any

from conformance.clients.official_sdks.common import (
    MAX_TURNS,
    Options,
    each_run,
    function_tools_only,
    parameters_of,
    recorded_extras,
    restored,
    server_tools,
    split_settings,
    tls,
)
from conformance.connectors.client import ToolLoop

DEFAULT_MAX_TOKENS = 4096  # the SDK requires one; used when the recording names none


def _client(loop: ToolLoop) -> Any:
    import anthropic

    http = anthropic.DefaultHttpxClient(verify=tls())
    return anthropic.Anthropic(api_key=loop.api_key, base_url=loop.base_url, max_retries=0, http_client=http)


def _tools(loop: ToolLoop) -> list[Any]:
    function_tools_only(loop, "Anthropic Messages")
    declared = [
        {
            "name": t["name"],
            "description": t.get("description", ""),
            "input_schema": parameters_of(t),
            **recorded_extras(loop, t["name"]),
        }
        for t in loop.tools
    ]
    return declared + server_tools(loop)


def _betas(loop: ToolLoop) -> list[str]:
    header = loop.settings.headers.get("anthropic-beta", "")
    return [b.strip() for b in header.split(",") if b.strip()]


def _request(loop: ToolLoop, method: Any, tools: list[Any]) -> dict[str, Any]:
    settings = {"max_tokens": DEFAULT_MAX_TOKENS, **loop.settings.body}
    named, extra = split_settings(method, settings)
    request: dict[str, Any] = {"model": loop.model, "tools": tools, **named}
    if extra:
        request["extra_body"] = extra
    return request


def _messages_loop(loop: ToolLoop, options: Options) -> str:
    client = _client(loop)
    betas = _betas(loop)
    api = client.beta.messages if betas else client.messages
    stream = options.streams(loop)
    request = _request(loop, api.stream if stream else api.create, _tools(loop))
    if betas:
        request["betas"] = betas
    messages: list[Any] = restored(loop, "the anthropic SDK")

    def run() -> str:
        for _ in range(MAX_TURNS):
            if stream:
                with api.stream(messages=messages, **request) as events:
                    for _event in events:
                        pass
                    reply = events.get_final_message()
            else:
                reply = api.create(messages=messages, **request)
            messages.append({"role": "assistant", "content": reply.content})
            if reply.stop_reason == "pause_turn":
                continue
            calls = [block for block in reply.content if block.type == "tool_use"]
            if reply.stop_reason != "tool_use" or not calls:
                return "".join(block.text for block in reply.content if block.type == "text")
            results = [
                {"type": "tool_result", "tool_use_id": call.id, "content": loop.call_tool(call.name, call.input)}
                for call in calls
            ]
            messages.append({"role": "user", "content": results})
        return ""

    return each_run(loop, messages, lambda prompt: {"role": "user", "content": prompt}, run)


def _runnable(loop: ToolLoop, tools: list[Any]) -> list[Any]:
    """The function tools as the runner runs them; server tools as recorded."""
    from anthropic.lib.tools import BetaFunctionTool

    def implementation(name: str) -> Any:
        def run(**arguments: Any) -> str:
            return loop.call_tool(name, arguments)

        return run

    runnable: list[Any] = []
    for tool in tools:
        if "input_schema" not in tool:
            runnable.append(tool)
            continue
        options = {k: v for k, v in tool.items() if k in ("defer_loading", "allowed_callers", "strict")}
        runnable.append(
            BetaFunctionTool(
                implementation(tool["name"]),
                name=tool["name"],
                description=tool["description"],
                input_schema=tool["input_schema"],
                **options,
            )
        )
    return runnable


def _tool_runner(loop: ToolLoop, options: Options) -> str:
    client = _client(loop)
    stream = options.streams(loop)
    request = _request(loop, client.beta.messages.tool_runner, _runnable(loop, _tools(loop)))
    betas = _betas(loop)
    if betas:
        request["betas"] = betas
    messages = restored(loop, "the anthropic SDK's tool runner")
    if len(loop.runs) > 1:
        loop.skip("the anthropic SDK's tool runner runs one conversation to its end; it has no next run")
    if loop.runs[0] is not None:
        messages.append({"role": "user", "content": loop.runs[0]})
    runner = client.beta.messages.tool_runner(messages=messages, max_iterations=MAX_TURNS, stream=stream, **request)
    for item in runner:
        if stream:
            for _event in item:
                pass
    final = runner.until_done()
    return "".join(block.text for block in final.content if block.type == "text")


def anthropic_messages(loop: ToolLoop, options: Options) -> str:
    if options.anthropic == "tool-runner":
        return _tool_runner(loop, options)
    return _messages_loop(loop, options)
