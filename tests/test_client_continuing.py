"""Real clients handed a conversation to continue: a restored history, a session of several runs, a run
cut off before its tool answered; judged on what they send, with the same rules as codecs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.connectors.client import ClientAdapter, RunInterrupted, ToolLoop, tool_loop
from conformance.connectors.continuing import neutral_history, runs_of, wire_history
from conformance.connectors.harness import problem, run_case
from conformance.connectors.serving import Listing
from conformance.corpus.loading import Corpus
from conformance.recordings.cassette import load_cassette
from conformance.replay.verdicts import codec_only
from conformance.running.runner import RunOptions, run_scenario

openai = pytest.importorskip("openai", reason="the continuing clients are driven through the official openai SDK")

from conformance.clients.openai_sdk import ADAPTER as OPENAI_SDK  # noqa: E402
from conformance.clients.openai_sdk import chat_tool_loop  # noqa: E402

RESTORED = "openai-chat/recorded/openllmetry-chat-tool-calls-history"
SESSION = "openai-chat/session-memory-window"
CROSS = "openai-chat/from-anthropic"
INTERRUPTED = "anthropic-messages/session-repair-interrupted"
BOTH = frozenset({"history", "sessions"})


def _adapter(fn: Any, *, continues: frozenset[str] = BOTH) -> ClientAdapter:
    return ClientAdapter(name="test-client", version="0", clients={"openai-chat": fn}, continues=continues)


def _chat(loop: ToolLoop, messages: list[Any]) -> None:
    """A Chat Completions loop on `messages` until the model answers in text."""
    client = openai.OpenAI(base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
    tools: Any = [
        {"type": "function", "function": {"name": t["name"], "parameters": t["parameters"]}} for t in loop.tools
    ]
    for _ in range(8):
        message = client.chat.completions.create(model=loop.model, messages=messages, tools=tools).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return
        for call in message.tool_calls:
            output = loop.call_tool(call.function.name, json.loads(call.function.arguments or "{}"))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": output})


# --- what the client is handed ----------------------------------------------------------------------


def test_a_plain_scenario_is_one_run_of_its_prompt(corpus: Corpus) -> None:
    loop = tool_loop(corpus.scenarios["openai-chat/one-call"], None)
    assert loop.runs == [loop.prompt]
    assert loop.history == [] and loop.history_wire == [] and loop.history_api is None


def test_a_restored_history_is_handed_in_the_neutral_model_and_as_the_recording_sent_it(corpus: Corpus) -> None:
    scenario = corpus.scenarios[RESTORED]
    recorded = load_cassette(corpus.cassette_path(scenario))
    loop = tool_loop(scenario, None, recorded)
    assert loop.runs == [None]  # the first run continues the history, without a message of its own
    assert loop.history_api == "openai-chat"
    assert loop.history_wire == json.loads(recorded.interactions[0].request.body or b"")["messages"]
    # The recording's conversation begins with the assistant's calls (its prompt is empty): so does the history.
    assert [m["role"] for m in loop.history_wire][:1] == [m["role"] for m in loop.history][:1] == ["assistant"]
    calls = [p for m in loop.history for p in m["parts"] if p["type"] == "tool_call"]
    assert [c["call_id"] for c in calls] == [c.id for t in scenario.history.turns for c in t.calls]  # type: ignore[union-attr]


def test_a_history_from_another_api_is_handed_in_that_apis_wire_form(corpus: Corpus) -> None:
    scenario = corpus.scenarios[CROSS]
    assert scenario.history is not None and scenario.history.api == "anthropic-messages"
    wire = wire_history(scenario, load_cassette(corpus.cassette_path(scenario)))
    blocks = [b for m in wire for b in (m["content"] if isinstance(m["content"], list) else [])]
    ids = [c.id for c in scenario.history.turns[0].calls]
    assert [b["id"] for b in blocks if b["type"] == "tool_use"] == ids
    assert {b["tool_use_id"] for b in blocks if b["type"] == "tool_result"} == set(ids)
    assert neutral_history(scenario)[1]["role"] == "assistant"


def test_a_history_recorded_without_a_user_message_is_restored_without_an_empty_one(corpus: Corpus) -> None:
    scenario = corpus.scenarios["openai-chat/recorded/openllmetry-chat-tool-calls-history"]
    assert scenario.prompt == ""
    assert [m["role"] for m in neutral_history(scenario)] == ["assistant", "tool"]


def test_a_session_is_handed_as_the_message_that_begins_each_run(corpus: Corpus) -> None:
    scenario = corpus.scenarios[SESSION]
    assert runs_of(scenario) == [scenario.prompt, "And in Tokyo?", scenario.turns[4].prompt]


def test_a_cut_off_call_raises_in_its_tool_once(corpus: Corpus) -> None:
    loop = tool_loop(corpus.scenarios[INTERRUPTED], None)
    name, arguments = loop.interrupted[0]
    with pytest.raises(RunInterrupted):
        loop.call_tool(name, dict(arguments))
    assert not isinstance(RunInterrupted(name), Exception)  # a library's `except Exception` cannot swallow it


def test_only_a_client_that_says_it_continues_is_handed_a_history_or_a_session(corpus: Corpus) -> None:
    restored, session = corpus.scenarios[RESTORED], corpus.scenarios[SESSION]
    assert codec_only(restored) == "begins with an openai-chat history, which only a codec adapter can be handed"
    assert codec_only(session) == "a session of several runs, which only a codec adapter can be handed run by run"
    assert codec_only(restored, BOTH) is None and codec_only(session, BOTH) is None
    assert codec_only(session, {"history"}) is not None
    result = run_scenario(_adapter(chat_tool_loop, continues=frozenset()), restored, corpus)
    assert result.outcome == "skip" and "only a codec adapter" in result.summary


def test_an_unknown_capability_is_refused() -> None:
    with pytest.raises(ValueError, match="continues memory"):
        ClientAdapter(name="x", version="0", clients={"openai-chat": chat_tool_loop}, continues=frozenset({"memory"}))


def test_the_harness_protocol_carries_the_history_and_the_runs(corpus: Corpus) -> None:
    scenario = corpus.scenarios[CROSS]
    loop = tool_loop(scenario, None, load_cassette(corpus.cassette_path(scenario)))
    case = run_case(scenario, Listing(scenario.id, scenario.api, "http://127.0.0.1:1/x", "http://127.0.0.1:1/t"), loop)
    assert problem(case, "case") is None
    assert case["history_api"] == "anthropic-messages" and case["runs"] == [None]
    assert case["history"] == loop.history and case["history_wire"] == loop.history_wire
    cut = tool_loop(corpus.scenarios[INTERRUPTED], None)
    listing = Listing(INTERRUPTED, "anthropic-messages", "http://127.0.0.1:1/x", "http://127.0.0.1:1/t")
    assert run_case(corpus.scenarios[INTERRUPTED], listing, cut)["interrupted"][0]["name"] == "get_weather"
    assert problem({"interrupted": "cut off"}, "toolOutput") is None
    assert problem({}, "toolOutput") is not None


# --- judged on what the client sent -------------------------------------------------------------------


@pytest.mark.parametrize("scenario_id", [RESTORED, SESSION])
def test_the_openai_sdk_continues_a_restored_history_and_a_session(scenario_id: str, corpus: Corpus) -> None:
    result = run_scenario(OPENAI_SDK, corpus.scenarios[scenario_id], corpus)
    assert result.outcome == "pass", result.summary


def test_a_history_restored_with_its_results_under_other_ids_fails_the_pairing(corpus: Corpus) -> None:
    def renamed(loop: ToolLoop) -> None:
        messages = [dict(m) for m in loop.history_wire]
        for i, message in enumerate(messages):
            if message.get("role") == "tool":
                message["tool_call_id"] = f"call_restored_{i}"
        _chat(loop, messages)

    result = run_scenario(_adapter(renamed), corpus.scenarios[RESTORED], corpus)
    assert result.outcome == "fail"
    assert {"pairing/orphan-result", "pairing/missing-result"} <= {v.code for v in result.errors}, result.summary


def test_a_history_restored_without_its_results_fails_the_pairing(corpus: Corpus) -> None:
    def lost_results(loop: ToolLoop) -> None:
        _chat(loop, [m for m in loop.history_wire if m.get("role") != "tool"])

    result = run_scenario(_adapter(lost_results), corpus.scenarios[RESTORED], corpus)
    assert result.outcome == "fail"
    assert "pairing/calls-unanswered" in {v.code for v in result.errors} or any(
        v.code.startswith("pairing/") for v in result.errors
    ), result.summary


def test_a_session_whose_memory_window_cuts_between_a_call_and_its_result_fails(corpus: Corpus) -> None:
    """A window counted in messages (the last two): by the last run it begins between a call and its
    result. Forgetting whole runs would be right (the scenario's notes)."""

    def windowed(loop: ToolLoop) -> None:
        kept: list[Any] = []
        for prompt in loop.runs:
            kept = [*kept[-2:], {"role": "user", "content": prompt}]
            _chat(loop, kept)

    result = run_scenario(_adapter(windowed), corpus.scenarios[SESSION], corpus)
    assert result.outcome == "fail", result.summary
    assert any(v.code.startswith("pairing/") for v in result.errors), result.summary


def test_a_client_that_runs_only_the_first_run_of_a_session_fails(corpus: Corpus) -> None:
    def first_only(loop: ToolLoop) -> None:
        _chat(loop, [{"role": "user", "content": loop.runs[0]}])

    result = run_scenario(_adapter(first_only), corpus.scenarios[SESSION], corpus)
    assert result.outcome == "fail"
    assert "were never requested" in result.summary


def test_a_client_that_lets_a_cut_off_run_escape_is_judged_where_it_stopped(corpus: Corpus) -> None:
    import anthropic

    def escaping(loop: ToolLoop) -> None:
        client = anthropic.Anthropic(base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
        tools: Any = [{"name": t["name"], "input_schema": t["parameters"]} for t in loop.tools]
        reply = client.messages.create(
            model=loop.model, max_tokens=1024, tools=tools, messages=[{"role": "user", "content": loop.runs[0]}]
        )
        for block in reply.content:
            if block.type == "tool_use":
                loop.call_tool(block.name, block.input)  # raises RunInterrupted, which this client lets go

    adapter = ClientAdapter(name="t", version="0", clients={"anthropic-messages": escaping}, continues=BOTH)
    result = run_scenario(adapter, corpus.scenarios[INTERRUPTED], corpus, options=RunOptions(timeout=30))
    assert result.outcome in ("error", "fail")
    assert "RunInterrupted" in result.summary
