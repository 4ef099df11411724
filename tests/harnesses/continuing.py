"""A harness that continues conversations, for tests/test_harness_continuing.py: an OpenAI Chat tool
loop with the standard library, a first leg on Anthropic Messages where the case hands one over.

    python tests/harnesses/continuing.py [--no-handoffs | --ignore-legs | --first-run-only]

--no-handoffs says it continues histories and sessions only; --ignore-legs says it continues hand-offs
but restores the case's history instead of running the first leg; --first-run-only plays only the
first run of a session.
"""

from __future__ import annotations

import json
import sys
import urllib.request
from typing import Any

MODE = sys.argv[1] if len(sys.argv) > 1 else ""


def post(url: str, body: Any, headers: dict[str, str] | None = None) -> Any:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    request.add_header("content-type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read().decode())


def call_tool(url: str, name: str, arguments: Any) -> str:
    return str(post(url, {"name": name, "arguments": arguments})["output"])


def chat_messages(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A neutral history as Chat Completions messages, ids as they are."""
    out: list[dict[str, Any]] = []
    for message in history:
        texts = "".join(p.get("text", "") for p in message["parts"] if p["type"] == "text")
        calls = [p for p in message["parts"] if p["type"] == "tool_call"]
        if message["role"] == "tool":
            out += [{"role": "tool", "tool_call_id": p["call_id"], "content": p["output"]} for p in message["parts"]]
        elif calls:
            functions = [{"name": p["name"], "arguments": json.dumps(p["arguments"])} for p in calls]
            out.append(
                {
                    "role": "assistant",
                    "content": texts or None,
                    "tool_calls": [
                        {"id": p["call_id"], "type": "function", "function": f}
                        for p, f in zip(calls, functions, strict=True)
                    ],
                }
            )
        else:
            out.append({"role": message["role"], "content": texts})
    return out


def anthropic_leg(case: dict[str, Any], leg: dict[str, Any]) -> list[dict[str, Any]]:
    """The first leg on Anthropic Messages: `steps` responses, each one's calls run; the conversation as
    Chat Completions messages, under the ids Anthropic gave."""
    tools = [{"name": t["name"], "input_schema": t["parameters"]} for t in case["tools"]]
    messages: list[Any] = [{"role": "user", "content": case["prompt"]}]
    chat: list[dict[str, Any]] = [{"role": "user", "content": case["prompt"]}]
    for _ in range(leg["steps"]):
        body = {"model": leg["model"], "max_tokens": 1024, "tools": tools, "messages": messages}
        reply = post(leg["base_url"].rstrip("/") + "/v1/messages", body, {"anthropic-version": "2023-06-01"})
        uses = [b for b in reply["content"] if b["type"] == "tool_use"]
        messages.append({"role": "assistant", "content": reply["content"]})
        outputs = [call_tool(leg["tools_url"], u["name"], u["input"]) for u in uses]
        messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": u["id"], "content": o}
                    for u, o in zip(uses, outputs, strict=True)
                ],
            }
        )
        functions = [{"name": u["name"], "arguments": json.dumps(u["input"])} for u in uses]
        chat.append(
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": u["id"], "type": "function", "function": f} for u, f in zip(uses, functions, strict=True)
                ],
            }
        )
        chat += [{"role": "tool", "tool_call_id": u["id"], "content": o} for u, o in zip(uses, outputs, strict=True)]
    return chat


def chat_loop(case: dict[str, Any], messages: list[dict[str, Any]]) -> str:
    tools = [
        {"type": "function", "function": {"name": t["name"], "parameters": t["parameters"]}} for t in case["tools"]
    ]
    for _ in range(8):
        body = {"model": case["model"], "messages": messages, "tools": tools}
        message = post(case["base_url"].rstrip("/") + "/chat/completions", body)["choices"][0]["message"]
        messages.append(message)
        if not message.get("tool_calls"):
            return str(message.get("content") or "")
        for call in message["tool_calls"]:
            arguments = json.loads(call["function"]["arguments"] or "{}")
            output = call_tool(case["tools_url"], call["function"]["name"], arguments)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
    return ""


def run(case: dict[str, Any]) -> str:
    legs = case.get("legs") or []
    messages = anthropic_leg(case, legs[0]) if legs and MODE != "--ignore-legs" else chat_messages(case["history"])
    runs = case["runs"][:1] if MODE == "--first-run-only" else case["runs"]
    output = ""
    for prompt in runs:
        if prompt is not None:
            messages.append({"role": "user", "content": prompt})
        output = chat_loop(case, messages)
    return output


def main() -> None:
    continues = ["history", "sessions"] if MODE == "--no-handoffs" else ["history", "sessions", "handoffs"]
    for line in sys.stdin:
        command = json.loads(line)
        if command["cmd"] == "start":
            implementation = {"name": "continuing", "language": "python", "version": "1", "apis": ["openai-chat"]}
            answer: dict[str, Any] = {"version": 1, "implementation": {**implementation, "continues": continues}}
        elif command["cmd"] == "run":
            try:
                answer = {"seq": command["seq"], "ok": True, "output": run(command["case"])}
            except Exception as error:  # the test harness's failure, reported as the library's
                answer = {"seq": command["seq"], "errored": {"message": repr(error)}}
        else:
            return
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
