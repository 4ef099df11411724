"""Nothing is served that the provider could not have sent: a call to a tool the request does not declare.

The provider calls only the tools a request declares (a function or custom tool by name, a client
built-in by its tool type). A client that leaves one out is not served the recorded call; a client
that was handed the tool and left it out is a finding (`format/tools-dropped`); a tool declared under
a prefix of the client's own (`tools-get_weather`) is served under that name, as the provider would
answer that request; a built-in the client does not offer makes the case a `skip` that says why.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from conformance.clients.official_sdks.common import chat_tool
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.corpus.loading import Corpus
from conformance.engine.called_tools import declared_tools, needed
from conformance.engine.wire import Served, WireCall
from conformance.running.runner import RunOptions, run_scenario

Declare = Callable[[ToolLoop], list[dict[str, Any]]]


def _post(url: str, body: Any) -> Any:
    headers = {"content-type": "application/json", "authorization": "Bearer x"}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def chat_loop(declare: Declare) -> Callable[[ToolLoop], None]:
    def run(loop: ToolLoop) -> None:
        messages: list[Any] = [{"role": "user", "content": loop.prompt}]
        for _ in range(8):
            body: dict[str, Any] = {"model": loop.model, "messages": messages}
            tools = declare(loop)
            if tools:
                body["tools"] = tools
            message = _post(f"{loop.base_url}/chat/completions", body)["choices"][0]["message"]
            messages.append(message)
            calls = message.get("tool_calls") or []
            if not calls:
                return
            for call in calls:
                name = call["function"]["name"].rsplit("-", 1)[-1]
                output = loop.call_tool(name, json.loads(call["function"]["arguments"] or "{}"))
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})

    return run


def _adapter(fn: Callable[[ToolLoop], None], api: str = "openai-chat") -> ClientAdapter:
    return ClientAdapter(name="declarations", version="0", clients={api: fn})


def _run(corpus: Corpus, fn: Callable[[ToolLoop], None], scenario: str, replay: str = "in-process") -> Any:
    api = scenario.split("/", 1)[0]
    return run_scenario(_adapter(fn, api), corpus.scenarios[scenario], corpus, options=RunOptions(replay=replay))  # type: ignore[arg-type]


@pytest.mark.parametrize("replay", ["in-process", "server"])
def test_a_chat_loop_that_sends_no_tools_fails_with_its_own_code(corpus: Corpus, replay: str) -> None:
    result = _run(corpus, chat_loop(lambda loop: []), "openai-chat/one-call", replay)
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"format/tools-dropped"}
    assert result.errors[0].location == "request[0].tools"
    assert "declared no tool get_weather" in result.summary


def test_a_chat_loop_that_sends_no_tools_passes_nothing_that_needs_them(corpus: Corpus) -> None:
    """Every openai-chat scenario whose responses call a tool: before, such a loop passed 26 of them."""
    no_tools = chat_loop(lambda loop: [])
    judged = 0
    calling = (s for s in corpus.scenarios.values() if s.api == "openai-chat" and any(t.client_calls for t in s.turns))
    for scenario in sorted(s.id for s in calling):
        result = _run(corpus, no_tools, scenario)
        if result.outcome == "skip":
            continue  # only a codec can be handed it
        judged += 1
        assert result.outcome != "pass", (scenario, result.summary)
        assert "format/tools-dropped" in {v.code for v in result.errors}, (scenario, result.summary)
    assert judged >= 25


def test_a_loop_that_declares_its_tools_still_passes(corpus: Corpus) -> None:
    result = _run(corpus, chat_loop(lambda loop: [chat_tool(t) for t in loop.tools]), "openai-chat/one-call")
    assert result.outcome == "pass", result.summary


def prefixed_loop(*, keep_name: bool = True) -> Callable[[ToolLoop], None]:
    """Semantic Kernel's way: every tool declared as `tools-<name>`; the calls sent back as served, or,
    broken, under the recorded name the client was never served."""

    def run(loop: ToolLoop) -> None:
        tools = [chat_tool({**t, "name": f"tools-{t['name']}"}) for t in loop.tools]
        messages: list[Any] = [{"role": "user", "content": loop.prompt}]
        for _ in range(4):
            body = {"model": loop.model, "messages": messages, "tools": tools}
            message = _post(f"{loop.base_url}/chat/completions", body)["choices"][0]["message"]
            calls = message.get("tool_calls") or []
            if not keep_name:
                for call in calls:
                    call["function"]["name"] = call["function"]["name"].removeprefix("tools-")
            messages.append(message)
            if not calls:
                return
            for call in calls:
                output = loop.call_tool(call["function"]["name"], json.loads(call["function"]["arguments"]))
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})

    return run


@pytest.mark.parametrize("scenario_id", ["openai-chat/one-call", "openai-chat/streamed-parallel-calls"])
def test_a_tool_declared_under_a_prefix_is_served_under_it_and_judged(corpus: Corpus, scenario_id: str) -> None:
    result = _run(corpus, prefixed_loop(), scenario_id)
    assert result.outcome == "pass", result.summary
    assert "served calls under the names the client declared: response[0]: get_weather as tools-get_weather" in (
        result.summary
    )
    broken = _run(corpus, prefixed_loop(keep_name=False), scenario_id)
    assert broken.outcome == "fail" and "roundtrip/name-altered" in {v.code for v in broken.errors}, broken.summary


def test_renamed_turns_keep_the_recorded_framing(corpus: Corpus) -> None:
    """A streamed turn is served as a stream again, its calls under the declared names."""
    from conformance.engine.dialects import dialect_for
    from conformance.recordings.cassette import load_cassette
    from conformance.replay.renaming import renamed_interaction
    from conformance.replay.transports import transport_for

    scenario = corpus.scenarios["openai-chat/streamed-parallel-calls"]
    interaction = load_cassette(corpus.cassette_path(scenario)).interactions[0]
    dialect = dialect_for("openai-chat")
    renamed = renamed_interaction(
        interaction, {"get_weather": "tools-get_weather"}, dialect, transport_for("openai-chat"), "response[0]"
    )
    assert renamed is not None
    served, before = dialect.served(renamed.response, "response[0]"), dialect.served(interaction.response, "r")
    assert served.stream and [c.call_id for c in served.calls] == [c.call_id for c in before.calls]
    assert {c.name for c in served.calls} == {"tools-get_weather", "get_time"} != {c.name for c in before.calls}


def test_a_built_in_the_request_leaves_out_is_not_served(corpus: Corpus) -> None:
    def responses_loop(loop: ToolLoop) -> None:
        tools = [{"type": "function", "name": t["name"], "parameters": t.get("parameters", {})} for t in loop.tools]
        _post(f"{loop.base_url}/responses", {"model": loop.model, "input": loop.prompt, "tools": tools})

    result = _run(corpus, responses_loop, "openai-responses/computer-use")
    assert result.outcome == "skip", result.summary
    assert "no computer_use_preview tool" in result.summary


def _served(*calls: WireCall) -> Served:
    return Served(stream=False, calls=calls, text="", payload={})


def test_what_a_request_declares_is_read_in_every_layout() -> None:
    assert declared_tools("openai-chat", {"tools": [{"type": "function", "function": {"name": "a"}}]}).names == {"a"}
    assert declared_tools("openai-chat", {"tools": [{"type": "custom", "custom": {"name": "c"}}]}).names == {"c"}
    assert declared_tools("anthropic-messages", {"tools": [{"type": "bash_20250124", "name": "bash"}]}).names == {
        "bash"
    }
    gemini = {"tools": [{"functionDeclarations": [{"name": "a"}, {"name": "b"}]}, {"function_declarations": []}]}
    assert declared_tools("gemini", gemini).names == {"a", "b"}
    bedrock = {"toolConfig": {"tools": [{"toolSpec": {"name": "a"}}]}}
    assert declared_tools("bedrock-converse", bedrock).names == {"a"}
    responses = {"tools": [{"type": "namespace", "name": "ns", "tools": [{"type": "function", "name": "f"}]}]}
    assert "f" in declared_tools("openai-responses", responses).names
    assert declared_tools("openai-responses", {"tools": [{"type": "shell"}]}).kinds == {"shell"}


def test_only_what_the_recorded_request_declared_is_needed() -> None:
    call = WireCall("c1", "get_weather", "{}", "openai-chat/ChatCompletionMessageToolCall", "response[0].x")
    recorded = {"tools": [{"type": "function", "function": {"name": "get_weather"}}]}
    assert [n.name for n in needed("openai-chat", _served(call), {}, recorded)] == ["get_weather"]
    # A name the recorded request never declared (a model's invention) binds no client to it.
    assert needed("openai-chat", _served(call), {}, {"tools": []}) == []
    # Unknown recorded request, or an API whose tools live outside the request: nothing is needed.
    assert needed("openai-chat", _served(call), {}, None) == []
    assert needed("azure-foundry", _served(call), {}, recorded) == []
    renamed = {"tools": [{"type": "function", "function": {"name": "tools__get_weather"}}]}
    assert needed("openai-chat", _served(call), renamed, recorded)[0].renamed == "tools__get_weather"
    shell = WireCall("c2", "shell_call", {}, "openai-responses/FunctionShellCall", "response[0].output[0]")
    found = needed("openai-responses", _served(shell), {"tools": []}, {"tools": [{"type": "shell"}]})
    assert found and found[0].missing() == "no shell tool"


def _anthropic_loop(thinking: bool, keep: bool, prefix: str = "") -> Callable[[ToolLoop], None]:
    """A Messages loop over raw HTTP: thinking turned on as recorded or not, the response's blocks sent
    back whole or without its thinking, its tools declared under `prefix` or as they are."""

    def run(loop: ToolLoop) -> None:
        url = f"{loop.base_url.rstrip('/')}/v1/messages"
        tools = [
            {"name": prefix + t["name"], "description": t.get("description", ""), "input_schema": t["parameters"]}
            for t in loop.tools
        ]
        body: dict[str, Any] = {"model": loop.model, "max_tokens": 16000, "tools": tools}
        if thinking:
            body["thinking"] = {"type": "enabled", "budget_tokens": 6400}
        messages: list[Any] = [{"role": "user", "content": loop.prompt}]
        for _ in range(4):
            try:
                reply = _post(url, {**body, "messages": messages})
            except urllib.error.HTTPError as refused:
                refused.close()
                return
            content = [b for b in reply["content"] if keep or b["type"] != "thinking"]
            messages.append({"role": "assistant", "content": content})
            uses = [b for b in reply["content"] if b["type"] == "tool_use"]
            if not uses:
                return
            results = [
                {
                    "type": "tool_result",
                    "tool_use_id": b["id"],
                    "content": loop.call_tool(b["name"].removeprefix(prefix), b["input"], b["id"]),
                }
                for b in uses
            ]
            messages.append({"role": "user", "content": results})

    return run


@pytest.mark.parametrize(
    ("thinking", "keep", "prefix", "outcome", "codes"),
    [
        (True, True, "", "pass", set()),
        (True, False, "", "fail", {"roundtrip/opaque-dropped"}),
        # Anthropic sends thinking only to a request that turns it on: a client that did not ask is served the
        # turn without it, as Anthropic would answer, whether its tools are declared as recorded or under a
        # prefix of its own, and is not judged on sending back what it would never have got.
        (False, False, "", "pass", set()),
        (False, True, "tools-", "pass", set()),
    ],
)
def test_thinking_is_served_only_to_a_request_that_turned_it_on(
    corpus: Corpus, thinking: bool, keep: bool, prefix: str, outcome: str, codes: set[str]
) -> None:
    adapter = ClientAdapter(
        name="raw", version="0", clients={"anthropic-messages": _anthropic_loop(thinking, keep, prefix)}
    )
    scenario = corpus.scenarios["anthropic-messages/recorded/mirascope-resume-on-gemini"]
    result = run_scenario(adapter, scenario, corpus, options=RunOptions(replay="server"))
    assert result.outcome == outcome, result.summary
    assert {v.code for v in result.errors} == codes
    if not thinking:
        assert "served response[0] without the thinking the request did not ask for" in result.summary
