"""A minimal harness in Python: an OpenAI Chat Completions tool loop with the standard library only.

It shows the harness protocol end to end (docs/harness.md), as its JavaScript twin does:

    conformance run --harness 'python harnesses/minimal-python/harness.py'

Commands arrive as JSON lines on stdin; answers go to stdout, one JSON line each. Anything else
(logs) goes to stderr.
"""

from __future__ import annotations

import json
import sys
import traceback
import urllib.error
import urllib.request
from typing import Any

PROTOCOL = 1
MAX_TURNS = 8


def answer(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def post(url: str, body: Any, key: str = "") -> str:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    request.add_header("content-type", "application/json")
    request.add_header("authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return str(response.read().decode())
    except urllib.error.HTTPError as error:
        raise RuntimeError(f"HTTP {error.code}: {error.read().decode()[:300]}") from None


def join_stream(text: str) -> dict[str, Any]:
    """A streamed completion as one message: calls by index, a new call where an index comes back
    with another id (some servers put every call at index 0)."""
    message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": []}
    open_calls: dict[int, dict[str, Any]] = {}
    for line in text.splitlines():
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if not data or data == "[DONE]":
            continue
        for choice in json.loads(data).get("choices") or []:
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                message["content"] = (message["content"] or "") + delta["content"]
            for entry in delta.get("tool_calls") or []:
                index = entry.get("index", 0)
                call = open_calls.get(index)
                if call is None or (entry.get("id") and call["id"] and entry["id"] != call["id"]):
                    call = {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
                    open_calls[index] = call
                    message["tool_calls"].append(call)
                if entry.get("id") and not call["id"]:
                    call["id"] = entry["id"]
                function = entry.get("function") or {}
                if function.get("name") and not call["function"]["name"]:
                    call["function"]["name"] = function["name"]
                if isinstance(function.get("arguments"), str):
                    call["function"]["arguments"] += function["arguments"]
    if not message["tool_calls"]:
        del message["tool_calls"]
    return message


class RunInterrupted(Exception):
    """The case cuts the run off before this tool answers: the run ends there, the next one goes on."""


class Skipped(Exception):
    """The case asks what this harness cannot express."""


def call_tool(tools_url: str, name: str, arguments: Any, call_id: str) -> str:
    answered = json.loads(post(tools_url, {"name": name, "arguments": arguments, "call_id": call_id}))
    if "interrupted" in answered:
        raise RunInterrupted(answered["interrupted"])
    return str(answered["output"])


def run(case: dict[str, Any]) -> str:
    """A restored history is the saved Chat Completions messages (`history_wire`) the loop starts from;
    each run of the session appends its user message to the same list."""
    if case.get("history") and case.get("history_api") != "openai-chat":
        raise Skipped(f"this harness takes a history in openai-chat's wire form only, not {case['history_api']}'s")
    messages: list[Any] = list(case.get("history_wire") or [])
    output = ""
    for prompt in case.get("runs") or [case["prompt"]]:
        if prompt is not None:
            messages.append({"role": "user", "content": prompt})
        try:
            output = tool_loop(case, messages)
        except RunInterrupted:
            repair(messages)
    return output


def repair(messages: list[Any]) -> None:
    """A run cut off before its tools answered leaves calls without results, which the provider refuses
    in the next run's request: each gets a result saying so, as an application that saves the
    conversation at that point must write one."""
    calls = next((m.get("tool_calls") or [] for m in reversed(messages) if m.get("role") == "assistant"), [])
    answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
    for call in calls:
        if call["id"] not in answered:
            messages.append(
                {"role": "tool", "tool_call_id": call["id"], "content": "the run was cut off before this tool answered"}
            )


def tool_loop(case: dict[str, Any], messages: list[Any]) -> str:
    tools = [
        {"type": "custom", "custom": {"name": t["name"], "description": t.get("description", "")}}
        if t.get("type") == "custom"
        else {
            "type": "function",
            "function": {"name": t["name"], "description": t.get("description", ""), "parameters": t["parameters"]},
        }
        for t in case["tools"]
    ]
    for turn in range(MAX_TURNS):
        body: dict[str, Any] = {"model": case["model"], "messages": messages, "tools": tools}
        if case["stream"]:
            body["stream"] = True
        text = post(f"{case['base_url']}/chat/completions", body, case["api_key"])
        message = join_stream(text) if case["stream"] else json.loads(text)["choices"][0]["message"]
        messages.append(message)
        if not message.get("tool_calls"):
            return str(message.get("content") or "")
        # A call served without an id (Gemini's compatible endpoint sends "") gets one of ours, on the
        # call and on its result, so the two still pair.
        for k, call in enumerate(message["tool_calls"]):
            call["id"] = call.get("id") or f"call_{turn}_{k}"
        for call in message["tool_calls"]:
            if call.get("type") == "custom":
                arguments: Any = {"input": call["custom"]["input"]}
                output = call_tool(case["tools_url"], call["custom"]["name"], arguments, call["id"])
            else:
                arguments = json.loads(call["function"]["arguments"] or "{}")
                output = call_tool(case["tools_url"], call["function"]["name"], arguments, call["id"])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
    return ""


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        if command["cmd"] == "start":
            answer(
                {
                    "version": PROTOCOL,
                    "implementation": {
                        "name": "minimal-python",
                        "language": "python",
                        "version": "1.0.0",
                        "libraries": {"python": sys.version.split()[0]},
                        "apis": ["openai-chat"],
                        "continues": ["history", "sessions"],
                    },
                }
            )
        elif command["cmd"] == "run":
            try:
                answer({"seq": command["seq"], "ok": True, "output": run(command["case"])})
            except Skipped as reason:
                answer({"seq": command["seq"], "skipped": str(reason)})
            except Exception as error:
                answer({"seq": command["seq"], "errored": {"message": str(error), "detail": traceback.format_exc()}})
        elif command["cmd"] == "stop":
            return


if __name__ == "__main__":
    main()
