"""What a correct client does to a session's history before it encodes it.

A run of the session may stop before a tool answers (the user cancels, the process dies). The
history it leaves has a call without a result, and the next run's user message comes after it:
every API rejects that request (OpenAI Chat: "An assistant message with 'tool_calls' must be
followed by tool messages responding to each 'tool_call_id'"; Anthropic: "tool_use ids were found
without tool_result blocks immediately after"). The repair gives each such call a result that says
so, right after the turn's other results, before the next message; the call and what the model
said stay. The text is fixed, so that the repaired history encodes the same every time.
"""

from __future__ import annotations

from typing import Any

from conformance.engine.neutral import Conversation, Message, Part, ToolCallPart

INTERRUPTED = "The tool did not return a result: the run was interrupted before it finished."


def _client_calls(message: Message) -> list[ToolCallPart]:
    return [p for p in message["parts"] if p["type"] == "tool_call" and not p.get("provider_executed")]


def _unanswered(calls: list[ToolCallPart], results: list[Any]) -> list[ToolCallPart]:
    """The calls no result answers: by id, else (id-less calls) by name, one result each."""
    ids = [r.get("call_id") for r in results if r.get("call_id")]
    names = [r.get("name") for r in results if not r.get("call_id")]
    out: list[ToolCallPart] = []
    for call in calls:
        if call.get("call_id"):
            if call["call_id"] in ids:
                ids.remove(call["call_id"])
                continue
        elif call.get("name") in names:
            names.remove(call.get("name"))
            continue
        out.append(call)
    return out


def repaired(conversation: Conversation) -> Conversation:
    """The conversation with a result for every call that a later message left unanswered."""
    messages = conversation["messages"]
    out: list[Message] = []
    changed = False
    i = 0
    while i < len(messages):
        message = messages[i]
        out.append(message)
        i += 1
        calls = _client_calls(message) if message["role"] == "assistant" else []
        if not calls:
            continue
        results: list[Any] = []
        while i < len(messages) and messages[i]["role"] == "tool":
            results += [p for p in messages[i]["parts"] if p["type"] == "tool_result"]
            out.append(messages[i])
            i += 1
        if i == len(messages):
            continue  # the turn is still being answered
        missing = _unanswered(calls, results)
        if missing:
            changed = True
            parts: list[Part] = [
                {"type": "tool_result", "call_id": c.get("call_id"), "name": c.get("name"), "output": INTERRUPTED}
                for c in missing
            ]
            out.append({"role": "tool", "parts": parts})
    return {**conversation, "messages": out} if changed else conversation
