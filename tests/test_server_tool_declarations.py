"""What a response uses must be what the client's request declared (server tools, callers); a tool
loop ends after a response that asks nothing of the client.

A client that leaves a declaration out could not have been served the recorded turn: the case is a
`skip` naming what it did not declare, never a violation. A client that declares it is judged as
before. The clients here are plain HTTP tool loops, so that each one differs from the correct
loop by exactly the declaration under test.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.corpus.loading import Corpus
from conformance.engine.declarations import (
    declared_by_request,
    server_tool_definitions,
    undeclared,
    with_server_tools,
)
from conformance.engine.turn_end import asks_client
from conformance.engine.wire import Served, WireCall
from conformance.running.runner import RunOptions, run_scenario

Tools = Callable[[ToolLoop], list[dict[str, Any]]]


def _post(url: str, body: Any, headers: dict[str, str]) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json", **headers}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


# --- Anthropic Messages ---------------------------------------------------------------------------


def anthropic_tools(loop: ToolLoop, *, callers: bool = True, server: bool = True) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    for spec in loop.tools:
        tool: dict[str, Any] = {"name": spec["name"], "description": spec.get("description", "")}
        tool["input_schema"] = spec.get("parameters", {"type": "object"})
        if callers and spec.get("allowed_callers"):
            tool["allowed_callers"] = spec["allowed_callers"]
        tools.append(tool)
    return tools + (loop.server_tools if server else [])


def anthropic_loop(
    tools: Tools, *, keep_caller: bool = True, stop_early: bool = False, drop: str | None = None
) -> Callable[[ToolLoop], None]:
    dropped = {"caller"} if not keep_caller else set()
    dropped |= {drop} if drop else set()

    def run(loop: ToolLoop) -> None:
        messages: list[Any] = [{"role": "user", "content": loop.prompt}]
        headers = {"x-api-key": loop.api_key, "anthropic-version": "2023-06-01"}
        for _ in range(8):
            body = {"model": loop.model, "max_tokens": 4096, "messages": messages, "tools": tools(loop)}
            reply = _post(f"{loop.base_url}/v1/messages", body, headers)
            content = [{k: v for k, v in b.items() if k not in dropped} for b in reply["content"]]
            messages.append({"role": "assistant", "content": content})
            calls = [b for b in reply["content"] if b["type"] == "tool_use"]
            if stop_early or (not calls and reply.get("stop_reason") != "pause_turn"):
                return
            results = [
                {"type": "tool_result", "tool_use_id": c["id"], "content": loop.call_tool(c["name"], c["input"])}
                for c in calls
            ]
            messages.append({"role": "user", "content": results})

    return run


# --- OpenAI Responses -----------------------------------------------------------------------------


def responses_tools(loop: ToolLoop, *, server: bool = True) -> list[dict[str, Any]]:
    tools = [
        {"type": "function", "name": t["name"], "description": t.get("description", ""), "parameters": t["parameters"]}
        for t in loop.tools
    ]
    return tools + (loop.server_tools if server else [])


def responses_loop(tools: Tools) -> Callable[[ToolLoop], None]:
    def run(loop: ToolLoop) -> None:
        items: list[Any] = [{"role": "user", "content": loop.prompt}]
        headers = {"authorization": f"Bearer {loop.api_key}"}
        for _ in range(8):
            body = {"model": loop.model, "input": items, "tools": tools(loop), "store": False}
            reply = _post(f"{loop.base_url}/responses", body, headers)
            items.extend(reply["output"])
            calls = [i for i in reply["output"] if i["type"] == "function_call"]
            if not calls:
                return
            for call in calls:
                output = loop.call_tool(call["name"], json.loads(call["arguments"]))
                items.append({"type": "function_call_output", "call_id": call["call_id"], "output": output})

    return run


# --- Gemini ---------------------------------------------------------------------------------------


def gemini_tools(loop: ToolLoop, *, server: bool = True) -> list[dict[str, Any]]:
    declarations = [
        {"name": t["name"], "description": t.get("description", ""), "parameters": t["parameters"]} for t in loop.tools
    ]
    keys = {"code_execution": "codeExecution", "google_search": "googleSearch"}
    extra: list[dict[str, Any]] = [{keys[t["type"]]: {}} for t in loop.server_tools] if server else []
    return [{"functionDeclarations": declarations}, *extra]


def gemini_loop(tools: Tools) -> Callable[[ToolLoop], None]:
    def run(loop: ToolLoop) -> None:
        contents: list[Any] = [{"role": "user", "parts": [{"text": loop.prompt}]}]
        url = f"{loop.base_url}/v1beta/models/{loop.model}:generateContent"
        for _ in range(8):
            reply = _post(url, {"contents": contents, "tools": tools(loop)}, {"x-goog-api-key": loop.api_key})
            content = reply["candidates"][0]["content"]
            contents.append(content)
            calls = [p["functionCall"] for p in content["parts"] if "functionCall" in p]
            if not calls:
                return
            answers = [
                {
                    "functionResponse": {
                        "name": c["name"],
                        "response": {"output": loop.call_tool(c["name"], c["args"])},
                        **({"id": c["id"]} if c.get("id") else {}),
                    }
                }
                for c in calls
            ]
            contents.append({"role": "user", "parts": answers})

    return run


def _run(api: str, fn: Callable[[ToolLoop], None], scenario_id: str, corpus: Corpus, replay: str = "in-process") -> Any:
    adapter = ClientAdapter(name="plain-http", version="0", clients={api: fn})
    return run_scenario(adapter, corpus.scenarios[scenario_id], corpus, options=RunOptions(replay=replay))  # type: ignore[arg-type]


# --- the replay: what the request did not declare -------------------------------------------------


@pytest.mark.parametrize("replay", ["in-process", "server"])
def test_programmatic_calls_are_not_served_to_a_request_without_allowed_callers(corpus: Corpus, replay: str) -> None:
    declares_no_callers = anthropic_loop(lambda loop: anthropic_tools(loop, callers=False))
    result = _run(
        "anthropic-messages", declares_no_callers, "anthropic-messages/programmatic-tool-calling", corpus, replay
    )
    assert result.outcome == "skip", result.summary
    assert "declared no allowed_callers 'code_execution_20250825' on its tool query_sales" in result.summary
    assert result.violations == []


def test_code_execution_is_not_served_to_a_request_without_the_tool(corpus: Corpus) -> None:
    declares_no_server_tool = anthropic_loop(lambda loop: anthropic_tools(loop, server=False))
    result = _run("anthropic-messages", declares_no_server_tool, "anthropic-messages/programmatic-tool-calling", corpus)
    assert result.outcome == "skip" and result.violations == []
    assert result.summary.startswith("the client's request declared no code_execution tool")
    assert "the recorded response[0] uses it" in result.summary


def test_a_request_that_declares_them_is_judged_as_before(corpus: Corpus) -> None:
    scenario = "anthropic-messages/programmatic-tool-calling"
    result = _run("anthropic-messages", anthropic_loop(anthropic_tools), scenario, corpus)
    assert result.outcome == "pass", result.summary
    drops_the_caller = anthropic_loop(anthropic_tools, keep_caller=False)
    result = _run("anthropic-messages", drops_the_caller, scenario, corpus)
    assert result.outcome == "fail" and "roundtrip/opaque-dropped" in {v.code for v in result.errors}, result.summary


@pytest.mark.parametrize("replay", ["in-process", "server"])
def test_toolset_members_are_not_served_to_a_request_without_the_toolset(corpus: Corpus, replay: str) -> None:
    # Function tools named like the members get plain tool_use blocks from the provider, never ones
    # with a toolset_name: the recorded turn is not one such a request could have been served.
    scenario = "anthropic-messages/toolset-member-call"
    functions_only = anthropic_loop(lambda loop: anthropic_tools(loop, server=False))
    result = _run("anthropic-messages", functions_only, scenario, corpus, replay)
    assert result.outcome == "skip" and result.violations == [], result.summary
    assert result.summary.startswith("the client's request declared no browser_toolset tool"), result.summary
    result = _run("anthropic-messages", anthropic_loop(anthropic_tools), scenario, corpus, replay)
    assert result.outcome == "pass", result.summary
    drops_the_toolset = anthropic_loop(anthropic_tools, drop="toolset_name")
    result = _run("anthropic-messages", drops_the_toolset, scenario, corpus, replay)
    assert result.outcome == "fail" and "roundtrip/opaque-dropped" in {v.code for v in result.errors}, result.summary


@pytest.mark.parametrize("replay", ["in-process", "server"])
def test_hosted_tool_items_are_not_served_to_a_request_without_the_tool(corpus: Corpus, replay: str) -> None:
    scenario = "openai-responses/hosted-tools-in-history"
    declares_none = responses_loop(lambda loop: responses_tools(loop, server=False))
    result = _run("openai-responses", declares_none, scenario, corpus, replay)
    assert result.outcome == "skip" and result.violations == []
    assert result.summary.startswith("the client's request declared no web_search tool; the recorded response[0]")
    result = _run("openai-responses", responses_loop(responses_tools), scenario, corpus, replay)
    assert result.outcome == "pass", result.summary


def test_gemini_code_execution_is_not_served_to_a_request_without_it(corpus: Corpus) -> None:
    scenario = "gemini/code-execution-beside-call"
    result = _run("gemini", gemini_loop(lambda loop: gemini_tools(loop, server=False)), scenario, corpus)
    assert result.outcome == "skip" and "declared no code_execution tool" in result.summary
    result = _run("gemini", gemini_loop(gemini_tools), scenario, corpus)
    assert result.outcome == "pass", result.summary


def test_violations_before_the_undeclared_turn_still_count(corpus: Corpus) -> None:
    """The requests the replay did serve are judged: a client that forgets the first response's calls
    and their results fails, though its second request also leaves out the tools response[1] uses."""

    def forgets_the_first_turn(loop: ToolLoop) -> None:
        headers = {"authorization": f"Bearer {loop.api_key}"}
        first = [{"role": "user", "content": loop.prompt}]
        _post(
            f"{loop.base_url}/responses", {"model": loop.model, "input": first, "tools": responses_tools(loop)}, headers
        )
        body = {"model": loop.model, "input": first, "tools": responses_tools(loop, server=False)}
        with pytest.raises(urllib.error.HTTPError):
            _post(f"{loop.base_url}/responses", body, headers)

    result = _run("openai-responses", forgets_the_first_turn, "openai-responses/hosted-tools-in-history", corpus)
    assert result.outcome == "fail", result.summary
    assert "roundtrip/call-lost" in {v.code for v in result.errors}
    assert "declared no file_search tool" in result.summary and "the replay stopped there" in result.summary


def test_what_a_request_declares_is_read_per_dialect() -> None:
    caller = {"caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}}
    call = WireCall(
        "toolu_1", "query_sales", {}, "anthropic-messages/ToolUseBlock", "response[0].content[0]", fields=caller
    )
    search = WireCall("srvtoolu_2", "web_search", {}, "anthropic-messages/ServerToolUseBlock", "response[0].content[1]")
    served = Served(stream=False, calls=(call, search), text="", payload={})
    sales: dict[str, Any] = {"name": "query_sales", "input_schema": {}, "allowed_callers": ["code_execution_20250825"]}
    body = {"tools": [sales, {"type": "web_search_20260209", "name": "web_search"}]}
    assert undeclared("anthropic-messages", served, declared_by_request("anthropic-messages", body)) == []
    sales["allowed_callers"] = ["direct"]
    assert [
        u.function for u in undeclared("anthropic-messages", served, declared_by_request("anthropic-messages", body))
    ] == ["query_sales"]
    code = WireCall(None, "code_execution", {}, "gemini/ExecutableCode", "response[0].candidates[0].content.parts[0]")
    gemini = Served(stream=False, calls=(code,), text="", payload={})
    assert undeclared("gemini", gemini, declared_by_request("gemini", {"tools": [{"code_execution": {}}]})) == []
    assert undeclared("gemini", gemini, declared_by_request("gemini", {"tools": [{"googleSearch": {}}]})) != []
    preview = {"tools": [{"type": "web_search_preview_2025_03_11"}]}
    web = WireCall("ws_1", "web_search_call", {}, "openai-responses/WebSearchToolCall", "response[0].output[0]")
    assert (
        undeclared("openai-responses", Served(False, (web,), "", {}), declared_by_request("openai-responses", preview))
        == []
    )
    member = WireCall(
        "toolu_3",
        "navigate",
        {},
        "anthropic-messages/ToolUseBlock",
        "response[0].content[0]",
        fields={"type": "tool_use", "toolset_name": "browser"},
    )
    toolset = Served(stream=False, calls=(member,), text="", payload={})
    as_functions = {"tools": [{"name": "navigate", "input_schema": {}}]}
    assert [
        u.family
        for u in undeclared("anthropic-messages", toolset, declared_by_request("anthropic-messages", as_functions))
    ] == ["browser_toolset"]
    with_toolset = {"tools": [{"type": "browser_toolset_20260801"}]}
    assert undeclared("anthropic-messages", toolset, declared_by_request("anthropic-messages", with_toolset)) == []
    # Azure Foundry agents hold their tools on the agent: nothing is compared there.
    bing = WireCall("bing_1", "bing_grounding_call", {}, "azure-foundry/BingGroundingToolCall", "response[0].output[0]")
    assert undeclared("azure-foundry", Served(False, (bing,), "", {}), declared_by_request("azure-foundry", {})) == []


def test_the_importer_reads_server_tools_as_the_request_declares_them() -> None:
    body = {"tools": [{"name": "f", "input_schema": {}}, {"type": "web_search_20250305", "name": "web_search"}]}
    body["mcp_servers"] = [{"type": "url", "url": "https://mcp.example.com/sse", "name": "calendar"}]
    assert server_tool_definitions("anthropic-messages", body) == [
        {"type": "web_search_20250305", "name": "web_search"},
        {"type": "mcp_toolset", "mcp_server_name": "calendar"},
    ]
    assert server_tool_definitions("gemini", {"tools": [{"functionDeclarations": []}, {"googleSearch": {}}]}) == [
        {"type": "google_search"}
    ]
    # and back: a client built on a codec declares them beside its function tools, in the API's layout
    added = with_server_tools("gemini", {"tools": [{"functionDeclarations": []}]}, [{"type": "google_search"}])
    assert added["tools"] == [{"functionDeclarations": []}, {"googleSearch": {}}]
    assert declared_by_request("gemini", added).families == {"google_search"}


# --- the end of a tool loop -----------------------------------------------------------------------


def test_a_loop_that_ends_after_a_server_tool_turn_passes(corpus: Corpus) -> None:
    """A recording that goes on after a response with only web searches and text: a tool loop ends
    there, as this one does. (The bundled recording's second request asks a new question, so it is a
    session of two runs; here it is read as a recording that does not say why it went on.)"""
    from dataclasses import replace

    recorded = corpus.scenarios["anthropic-messages/recorded/mirascope-web-search-tool"]
    scenario = replace(recorded, turns=tuple(replace(t, prompt=None) for t in recorded.turns))
    adapter = ClientAdapter(
        name="plain-http", version="0", clients={"anthropic-messages": anthropic_loop(anthropic_tools)}
    )
    result = run_scenario(adapter, scenario, corpus)
    assert result.outcome == "pass", result.summary
    assert "ended after response[0], which holds no call for the client" in result.summary


def test_a_loop_that_ends_before_answering_its_calls_still_fails(corpus: Corpus) -> None:
    result = _run(
        "anthropic-messages", anthropic_loop(anthropic_tools, stop_early=True), "anthropic-messages/one-call", corpus
    )
    assert result.outcome == "fail"
    assert "1 of 2 recorded interaction(s) were never requested" in result.summary


def test_pause_turn_asks_the_client_to_send_again() -> None:
    def served(stop: str, stream: bool = False) -> Served:
        if stream:
            events = [{"event": "message_delta", "data": {"type": "message_delta", "delta": {"stop_reason": stop}}}]
            return Served(stream=True, calls=(), text="", payload={"stream": True, "events": events})
        return Served(stream=False, calls=(), text="", payload={"stream": False, "body": {"stop_reason": stop}})

    assert asks_client("anthropic-messages", served("end_turn")) is None
    assert "pause_turn" in (asks_client("anthropic-messages", served("pause_turn")) or "")
    assert "pause_turn" in (asks_client("anthropic-messages", served("pause_turn", stream=True)) or "")
    call = WireCall("toolu_1", "get_weather", {}, "anthropic-messages/ToolUseBlock", "response[0].content[0]")
    assert asks_client("anthropic-messages", Served(False, (call,), "", {})) == "it calls the client's get_weather"


def test_the_tool_loop_and_the_harness_case_carry_the_declarations(corpus: Corpus) -> None:
    from conformance.connectors.client import tool_loop
    from conformance.connectors.harness import run_case
    from conformance.connectors.serving import Listing

    scenario = corpus.scenarios["anthropic-messages/programmatic-tool-calling"]
    loop = tool_loop(scenario, "http://127.0.0.1:1")
    assert loop.server_tools == [{"type": "code_execution_20250825", "name": "code_execution"}]
    assert [t.get("allowed_callers") for t in loop.tools] == [["code_execution_20250825"]]
    case = run_case(scenario, Listing(scenario.id, scenario.api, loop.base_url, "http://127.0.0.1:1/t"), loop)
    # Added beside `tools`, whose entries stay function tools: a harness that reads only `tools` works as before.
    assert case["server_tools"] == loop.server_tools
    assert all(t.get("type", "function") in ("function", "custom") for t in case["tools"])


# An adapter the isolation worker can import by spec: the parent works out the undeclared turn itself.
NO_CALLERS = ClientAdapter(
    name="plain-http",
    version="0",
    clients={"anthropic-messages": anthropic_loop(lambda loop: anthropic_tools(loop, callers=False))},
)
WITH_CALLERS = ClientAdapter(
    name="plain-http", version="0", clients={"anthropic-messages": anthropic_loop(anthropic_tools)}
)


@pytest.mark.parametrize(("spec", "outcome"), [("NO_CALLERS", "skip"), ("WITH_CALLERS", "pass")])
def test_an_isolated_client_gets_the_same_verdict(
    spec: str, outcome: str, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    from conformance.running.isolation import IsolatedAdapter
    from conformance.running.worker_process import Worker

    monkeypatch.chdir(Path(__file__).parent)
    worker = Worker()
    try:
        adapter = IsolatedAdapter(f"test_server_tool_declarations:{spec}", worker)
        result = run_scenario(adapter, corpus.scenarios["anthropic-messages/programmatic-tool-calling"], corpus)
    finally:
        worker.close()
    assert result.outcome == outcome, result.summary
    if outcome == "skip":
        assert "declared no allowed_callers" in result.summary


def test_a_client_that_asks_again_after_a_blank_last_answer_is_judged_on_what_was_recorded(corpus: Corpus) -> None:
    """The recording ends on `{"text": ""}`; a framework that retries an empty answer sends one request
    more, which the recording cannot answer: not the client's fault. A client that sends one request
    too many after a real answer still fails."""
    from http_clients import Variant, codec_client

    from conformance.reference import ADAPTER as REFERENCE

    def client(api: str, again: bool) -> ClientAdapter:
        codec = REFERENCE.codec(api)
        assert codec is not None
        return ClientAdapter(
            name="plain-http", version="0", clients={api: codec_client(codec, Variant(ask_again_on_blank=again))}
        )

    blank = corpus.scenarios["gemini/recorded/crewai-tool-returning-float"]
    result = run_scenario(client("gemini", True), blank, corpus)
    assert result.outcome == "pass", result.summary
    assert "ends on a blank answer" in result.summary
    assert run_scenario(client("gemini", False), blank, corpus).outcome == "pass"


def test_a_request_past_a_real_last_answer_still_fails(corpus: Corpus) -> None:
    from conformance.engine.dialects import dialect_for
    from conformance.engine.exchange import Exchange, Turn
    from conformance.recordings.cassette import load_cassette
    from conformance.replay.session import ClientRun
    from conformance.replay.verdicts import client_verdict, scenario_context

    scenario = corpus.scenarios["openai-chat/one-call"]
    dialect = dialect_for(scenario.api)
    recorded = load_cassette(corpus.cassette_path(scenario))
    ctx = scenario_context(corpus, scenario, "default")
    turns = tuple(
        Turn(index=i.index, request=i.request.json(), served=dialect.served(i.response, f"response[{i.index}]"))
        for i in recorded.interactions
    )
    run = ClientRun(exchange=Exchange(scenario.api, turns), refused=[], recorded=len(turns), sent=len(turns) + 1)
    result = client_verdict(scenario, run, ctx, dialect)
    assert result.outcome == "fail"
    assert "the recording holds 2" in result.summary


def test_a_direct_caller_needs_no_declaration() -> None:
    """Anthropic marks a call the model made itself `caller: {type: direct}`: every tool allows that
    unless it says otherwise, so a request without `allowed_callers` is served it."""
    from conformance.engine.declarations import Declared

    def served(caller: str) -> Served:
        call = WireCall(
            call_id="toolu_1",
            name="get_weather",
            arguments={},
            wire_type="anthropic-messages/ToolUseBlock",
            path="response[0].content[0]",
            fields={"type": "tool_use", "caller": {"type": caller}},
        )
        return Served(stream=False, calls=(call,), text="", payload={})

    assert undeclared("anthropic-messages", served("direct"), Declared()) == []
    assert undeclared("anthropic-messages", served("code_execution_20250825"), Declared()) != []
