"""The Genkit JS harness (harnesses/genkit-js) on a few scenarios: Genkit's real tool loop, its findings.

Genkit and its plugins are heavy and CI does not install them: the module is skipped, with the
install command as the reason, when the harness's node_modules is absent. The harness protocol
itself is held in CI by the minimal harnesses (tests/test_harness.py).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from node_harnesses import installed, run, started

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus
from conformance.replay import server as replay_server

HARNESS = installed("genkit-js", "genkit")


@pytest.fixture(scope="module")
def harness() -> Iterator[HarnessAdapter]:
    with started(HARNESS) as adapter:
        yield adapter


def test_the_harness_says_what_it_serves(harness: HarnessAdapter) -> None:
    assert harness.name == "genkit-js"
    served = {"openai-chat", "kimi-chat", "mistral-chat", "gemini", "anthropic-messages", "ollama-chat"}
    assert set(harness.apis) == served
    assert "@genkit-ai/compat-oai" in harness.identity()["libraries"]


@pytest.mark.parametrize(
    "scenario_id",
    ["openai-chat/parallel-same-tool", "gemini/thought-signature-sequential", "anthropic-messages/parallel-same-tool"],
)
def test_genkit_loops_pass(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    result = run(harness, corpus, scenario_id)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.violations])


def test_empty_served_ids_go_back_empty(harness: HarnessAdapter, corpus: Corpus) -> None:
    """compat-oai keeps `""` as the call's ref (model.mjs fromOpenAIToolCall) and sends it back on the
    call and on its result (toOpenAIMessages: `id: part.toolRequest.ref ?? ""`)."""
    result = run(harness, corpus, "openai-chat/gemini-compat-empty-ids")
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {"roundtrip/empty-id", "pairing/orphan-result", "pairing/missing-result"}


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # a restored history of MessageData
        "openai-chat/session-memory-window",  # three runs on one conversation
        "openai-chat/from-anthropic",  # a hand-off: the first leg on the Anthropic plugin, then compat-oai
        "gemini/from-anthropic",
    ],
)
def test_genkit_continues_conversations(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    result = run(harness, corpus, scenario_id)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.violations])


def test_a_gemini_call_without_an_id_cannot_go_on_to_anthropic(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, Genkit (JavaScript) 9: the Google plugin reads an id-less call without a ref,
    and the Anthropic plugin refuses a tool request without one."""
    result = run(harness, corpus, "anthropic-messages/from-gemini-idless")
    assert result.outcome == "error"
    assert "Tool request ref is required" in result.summary


def test_a_run_its_tool_interrupted_is_continued_and_judged(harness: HarnessAdapter, corpus: Corpus) -> None:
    """The cut-off tool calls its `interrupt()` (genkit/beta); the run returns the model's request
    unanswered, and the next run sends it as it is: Genkit answers an interrupted request only through
    `resume` (docs/findings.md, Genkit (JavaScript), the run its tool interrupted)."""
    for scenario_id in ("anthropic-messages/session-repair-interrupted", "openai-chat/session-repair-interrupted"):
        result = run(harness, corpus, scenario_id)
        assert result.outcome == "fail", result.summary
        assert {v.code for v in result.errors} == {"pairing/missing-result"}


def test_anthropic_server_tools_are_declared_through_the_config(harness: HarnessAdapter, corpus: Corpus) -> None:
    """The Anthropic plugin has no option for server tools; its config's `tools` is sent in their place,
    so the recorded web search is declared and the run goes on."""
    result = run(harness, corpus, "anthropic-messages/recorded/mirascope-web-search-tool")
    assert result.outcome == "pass", (result.summary, [v.code for v in result.violations])


def test_calls_streamed_at_one_index_break_the_openai_stream_helper(harness: HarnessAdapter, corpus: Corpus) -> None:
    """compat-oai takes the final message from openai's ChatCompletionStream, which merges deltas by
    index; two whole calls at index 0 become one call whose arguments do not parse."""
    result = run(harness, corpus, "openai-chat/ollama-parallel-index-zero")
    assert result.outcome == "error"
    assert "JSON" in result.summary


def test_streamed_calls_without_ids_break_the_openai_stream_helper(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, Genkit JS 7: openai's finalizeChatCompletion refuses a call without an id."""
    result = run(harness, corpus, "openai-chat/streamed-calls-without-ids")
    assert result.outcome == "error"
    assert "missing choices[0].tool_calls[0].id" in result.summary


def test_calls_streamed_from_index_one_break_the_openai_stream_helper(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, Genkit JS 8: the stream snapshot stores calls at their index, leaving a hole at 0
    that _addMessage's for...of reads as undefined."""
    result = run(harness, corpus, "openai-chat/streamed-indices-from-one")
    assert result.outcome == "error"
    assert "reading 'type'" in result.summary


def test_results_follow_the_order_tools_finish_in(corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """Genkit runs a turn's tools concurrently and appends each result when its tool finishes
    (resolve-tool-requests.mjs, resolveToolRequests). With id-less Gemini calls to one tool, a first
    call that finishes last sends its result in second place, and the results pair with the wrong
    calls. The harness answers tools one at a time unless told otherwise; here they overlap, and the
    replay's tool endpoint holds the first call until the second has been answered."""
    monkeypatch.setenv("CONFORMANCE_GENKIT_TOOLS", "concurrent")
    tokyo_done = threading.Event()
    answer = replay_server.ReplayServer._tool

    # The first call (Paris) is held until the second (Tokyo) has been answered: chosen by its
    # arguments, not by which request arrives first, which the two concurrent tools race for.
    def held(self: replay_server.ReplayServer, scenario_id: str, body: bytes) -> Any:
        if json.loads(body).get("arguments", {}).get("city") == "Paris":
            tokyo_done.wait(timeout=10)
            time.sleep(0.3)  # the second answer is on the wire before the first leaves
            return answer(self, scenario_id, body)
        try:
            return answer(self, scenario_id, body)
        finally:
            tokyo_done.set()

    monkeypatch.setattr(replay_server.ReplayServer, "_tool", held)
    with started(HARNESS) as concurrent:
        result = run(concurrent, corpus, "gemini/parallel-same-tool-idless")
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {"pairing/by-position"}
