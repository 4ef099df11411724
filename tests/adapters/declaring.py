"""Client adapters whose verdict depends on what the replay made of their requests, for the isolated path:
the parent rebuilds that from the bodies the worker hands over, as the replay made it.

`PREFIXED` declares every tool as `tools-<name>` (Semantic Kernel's way) and is served under those names;
`SUBMITTING` asks once more after the final answer, forcing a tool of its own (dspy's ReAct), which
ends the conversation judged.
"""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from typing import Any

from conformance.connectors.client import ClientAdapter, ToolLoop


def _post(url: str, body: Any) -> Any:
    headers = {"content-type": "application/json", "authorization": "Bearer x"}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def _tool(spec: Any, name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": spec.get("parameters", {})}}


def _loop(loop: ToolLoop, *, prefix: str, submit: bool) -> None:
    tools = [_tool(t, prefix + t["name"]) for t in loop.tools]
    messages: list[Any] = [{"role": "user", "content": loop.prompt}]
    for _ in range(6):
        body = {"model": loop.model, "messages": messages, "tools": tools}
        message = _post(f"{loop.base_url}/chat/completions", body)["choices"][0]["message"]
        messages.append(message)
        if not message.get("tool_calls"):
            break
        for call in message["tool_calls"]:
            output = loop.call_tool(call["function"]["name"], json.loads(call["function"]["arguments"]))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
    if submit:
        forced = {"type": "function", "function": {"name": tools[0]["function"]["name"]}}
        with contextlib.suppress(urllib.error.HTTPError):  # the replay has no answer to give
            _post(
                f"{loop.base_url}/chat/completions",
                {"model": loop.model, "messages": messages, "tools": tools, "tool_choice": forced},
            )


PREFIXED = ClientAdapter(
    name="prefixed", version="0", clients={"openai-chat": lambda loop: _loop(loop, prefix="tools-", submit=False)}
)
SUBMITTING = ClientAdapter(
    name="submitting", version="0", clients={"openai-chat": lambda loop: _loop(loop, prefix="", submit=True)}
)
