"""orca-agent (echoVic/orca-agent): the session runtime of issue #67, before PR #111."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from conformance.clients.official_sdks.common import chat_tool
from conformance.connectors.client import ClientAdapter, ToolLoop

MAX_TURNS = 8


class DuplicateTransition(Exception):
    """The surface reducer's refusal: "tool call identity already exists"."""


def _post(loop: ToolLoop, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{loop.base_url.rstrip('/')}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {loop.api_key}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        answer: dict[str, Any] = json.loads(response.read())
    return answer


def session_keyed_by_call_id(loop: ToolLoop) -> str:
    """#67: the runtime keys each tool call by its provider id for the whole session, and the surface
    reducer refuses a second `ToolPatch::Requested` under an id it holds ("tool call identity already
    exists"). The task fails there, with exit 1: the calls of that response are never run and no request
    follows. What the session sent up to then was correct."""
    tools = [chat_tool(t) for t in loop.tools]
    messages: list[dict[str, Any]] = [{"role": "user", "content": loop.prompt}]
    held: set[str] = set()
    try:
        for _ in range(MAX_TURNS):
            completion = _post(loop, {"model": loop.model, "messages": messages, "tools": tools})
            message = completion["choices"][0]["message"]
            calls = message.get("tool_calls") or []
            for call in calls:
                if call["id"] in held:
                    raise DuplicateTransition("tool call identity already exists")
                held.add(call["id"])
            messages.append({k: v for k, v in message.items() if v is not None})
            if not calls:
                return str(message.get("content") or "")
            for call in calls:
                arguments = json.loads(call["function"]["arguments"] or "{}")
                output = loop.call_tool(call["function"]["name"], arguments)
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
    except DuplicateTransition as refused:
        return f"task failed: {refused}"  # the session ends; the exec's exit code is 1
    return ""


ORCA_AGENT_67 = ClientAdapter(
    name="orca-agent-67",
    version="orca-agent 48fa0a458 (v0.4.31), as reported in #67",
    clients={"openai-chat": session_keyed_by_call_id},
    homepage="https://github.com/echoVic/orca-agent/issues/67",
)
