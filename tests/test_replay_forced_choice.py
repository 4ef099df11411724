"""A request that forces a tool call is never answered with a final text turn: the conversation ends
there, as the case says, with every request judged."""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from conformance.clients.official_sdks.common import chat_tool
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.corpus.loading import Corpus
from conformance.engine.forced_choice import forced_past, forcing
from conformance.engine.wire import Served
from conformance.running.runner import RunOptions, run_scenario


def _post(url: str, body: Any) -> Any:
    headers = {"content-type": "application/json", "authorization": "Bearer x"}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def forcing_loop(*, placeholder: bool = False) -> Callable[[ToolLoop], None]:
    """A Chat Completions loop that sends tool_choice "required" on every step, as smolagents does."""

    def run(loop: ToolLoop) -> None:
        messages: list[Any] = [{"role": "user", "content": loop.prompt}]
        tools = [chat_tool(t) for t in loop.tools]
        for _ in range(4):
            body = {"model": loop.model, "messages": messages, "tools": tools, "tool_choice": "required"}
            message = _post(f"{loop.base_url}/chat/completions", body)["choices"][0]["message"]
            messages.append(message)
            for call in message.get("tool_calls") or []:
                output = loop.call_tool(call["function"]["name"], json.loads(call["function"]["arguments"]))
                content = "No result provided" if placeholder else output
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})

    return run


def _run(corpus: Corpus, fn: Callable[[ToolLoop], None], replay: str = "in-process") -> Any:
    adapter = ClientAdapter(name="forcing", version="0", clients={"openai-chat": fn})
    options = RunOptions(replay=replay)  # type: ignore[arg-type]
    return run_scenario(adapter, corpus.scenarios["openai-chat/one-call"], corpus, options=options)


@pytest.mark.parametrize("replay", ["in-process", "server"])
def test_a_forced_request_ends_the_conversation_where_the_recording_answers_in_text(
    corpus: Corpus, replay: str
) -> None:
    result = _run(corpus, forcing_loop(), replay)
    assert result.outcome == "pass", result.summary
    assert 'forces a tool call (tool_choice "required")' in result.summary
    assert "the conversation ends at that request" in result.summary


def test_the_requests_up_to_there_are_still_judged(corpus: Corpus) -> None:
    result = _run(corpus, forcing_loop(placeholder=True))
    assert result.outcome == "fail"
    assert "pairing/output-lost" in {v.code for v in result.errors}
    assert "forces a tool call" in result.summary


def test_what_forces_a_call_is_read_per_api() -> None:
    assert forcing("openai-chat", {"tool_choice": "required"}) is not None
    assert forcing("openai-chat", {"tool_choice": {"type": "function", "function": {"name": "f"}}}) is not None
    assert forcing("openai-chat", {"tool_choice": "auto"}) is None
    assert forcing("mistral-chat", {"tool_choice": "any"}) is not None
    assert forcing("cohere-v2", {"tool_choice": "REQUIRED"}) is not None
    assert forcing("anthropic-messages", {"tool_choice": {"type": "any"}}) is not None
    assert forcing("anthropic-messages", {"tool_choice": {"type": "tool", "name": "f"}}) is not None
    assert forcing("anthropic-messages", {"tool_choice": {"type": "auto"}}) is None
    assert forcing("gemini", {"toolConfig": {"functionCallingConfig": {"mode": "ANY"}}}) is not None
    assert forcing("gemini", {"tool_config": {"function_calling_config": {"mode": "AUTO"}}}) is None
    assert forcing("bedrock-converse", {"toolConfig": {"toolChoice": {"any": {}}}}) is not None
    assert forcing("bedrock-converse", {"toolConfig": {"toolChoice": {"auto": {}}}}) is None
    auto_allowed = {"tool_choice": {"type": "allowed_tools", "mode": "auto", "tools": []}}
    assert forcing("openai-responses", auto_allowed) is None


def test_a_recording_made_under_the_same_setting_is_served_as_it_is() -> None:
    text = Served(stream=False, calls=(), text="done", payload={})
    forced = {"tool_choice": "required"}
    assert forced_past("openai-chat", text, forced, {"tool_choice": "auto"}, "response[1]") is not None
    assert forced_past("openai-chat", text, forced, forced, "response[1]") is None
    assert forced_past("openai-chat", text, {}, {}, "response[1]") is None


def submitting_loop(*, forced: bool) -> Callable[[ToolLoop], None]:
    """A loop that, after the model's final answer, asks once more forcing a tool of its own that ends
    the loop, as dspy's ReAct forces `submit`; or, not forced, simply asks again."""

    def run(loop: ToolLoop) -> None:
        messages: list[Any] = [{"role": "user", "content": loop.prompt}]
        tools = [chat_tool(t) for t in loop.tools]
        while True:
            body = {"model": loop.model, "messages": messages, "tools": tools}
            message = _post(f"{loop.base_url}/chat/completions", body)["choices"][0]["message"]
            messages.append(message)
            if not message.get("tool_calls"):
                break
            for call in message["tool_calls"]:
                output = loop.call_tool(call["function"]["name"], json.loads(call["function"]["arguments"]))
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
        again: dict[str, Any] = {"model": loop.model, "messages": messages, "tools": tools}
        if forced:
            again["tool_choice"] = {"type": "function", "function": {"name": loop.tools[0]["name"]}}
        with contextlib.suppress(urllib.error.HTTPError):  # the replay has no answer to give; the loop ends
            _post(f"{loop.base_url}/chat/completions", again)

    return run


@pytest.mark.parametrize("replay", ["in-process", "server"])
def test_a_forced_request_after_the_final_answer_ends_the_conversation_judged(corpus: Corpus, replay: str) -> None:
    forced = _run(corpus, submitting_loop(forced=True), replay)
    assert forced.outcome == "pass", forced.summary
    assert "after the final answer (response[1]) the client asked again, forcing a tool call" in forced.summary
    asked = _run(corpus, submitting_loop(forced=False), replay)
    assert asked.outcome == "fail" and "asked again after the final answer" in asked.summary, asked.summary
