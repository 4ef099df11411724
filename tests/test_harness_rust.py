"""The Rust library harnesses (harnesses/rust): rig's and async-openai's tool loops on the scenarios
whose verdicts docs/findings.md traces to their sources (the kit's protocol: test_harness_rust_kit.py).

The harnesses are built by `harnesses/rust/build` into a target directory outside the repository;
the module is skipped, with that command as the reason, where cargo or the build is missing (and
fails there when CI requires the unit: tests/toolchains.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from toolchains import require

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import RunOptions, run_scenario

BUILD = "harnesses/rust/build"
RELEASE = (
    Path(os.environ.get("CARGO_TARGET_DIR") or Path.home() / ".cache" / "toolcall-conformance" / "cargo-target")
    / "release"
)
RIG, ASYNC_OPENAI = RELEASE / "rig-harness", RELEASE / "async-openai-harness"

for binary in (RIG, ASYNC_OPENAI):
    require("cargo", built=binary, install=BUILD, unit="rust-libraries")


# --- the libraries: verdicts traced in docs/findings.md --------------------------------------------


def _run(adapter: HarnessAdapter, corpus: Corpus, scenario_id: str) -> CaseResult:
    return run_scenario(adapter, corpus.scenarios[scenario_id], corpus, options=RunOptions(timeout=60))


@pytest.fixture(scope="module")
def rig() -> Iterator[HarnessAdapter]:
    adapter = HarnessAdapter([str(RIG)])
    yield adapter
    adapter.close()


@pytest.fixture(scope="module")
def async_openai() -> Iterator[HarnessAdapter]:
    adapter = HarnessAdapter([str(ASYNC_OPENAI)])
    yield adapter
    adapter.close()


def test_the_rust_harnesses_name_their_columns(rig: HarnessAdapter, async_openai: HarnessAdapter) -> None:
    assert (rig.name, rig.version) == ("rig", "0.44.0")
    assert rig.identity()["libraries"] == "rig-agent 0.44.0, rig-core 0.44.0"
    assert "bedrock-converse" not in rig.apis and "cohere-v2" in rig.apis
    assert (async_openai.name, async_openai.version) == ("async-openai", "0.43.0")
    assert set(async_openai.apis) == {"openai-chat", "openai-responses", "openresponses", "azure-foundry"}


def _verdict(adapter: HarnessAdapter, corpus: Corpus, scenario_id: str) -> tuple[str, str, set[str], set[str]]:
    """A scenario's outcome, summary, and the codes of its errors and of its warnings."""
    result = _run(adapter, corpus, scenario_id)
    return result.outcome, result.summary, {v.code for v in result.errors}, {v.code for v in result.warnings}


def test_rig_keeps_streamed_openai_call_ids(rig: HarnessAdapter, corpus: Corpus) -> None:
    """0xPlaygrounds/rig#600 (streamed OpenAI call ids never set) is fixed: the chat decoder keeps
    each call's stated id by index (rig-core providers/openai/wire/chat.rs, ChatDecoder::call)."""
    assert _verdict(rig, corpus, "openai-chat/streamed-parallel-calls")[0] == "pass"


def test_rig_drops_a_call_served_without_a_name(rig: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, rig R1: a nameless call is dropped at decode (operation/completion.rs,
    `ToolName::new(name)` else return), so it goes back neither as a call nor with an output. The
    scenario marks that call droppable (send both, or neither), so leaving both out passes."""
    outcome, _, errors, _ = _verdict(rig, corpus, "openai-responses/gateway-nameless-call")
    assert (outcome, errors) == ("pass", set())


def test_rig_cannot_let_code_call_its_tools(rig: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, rig R2: rig's tool definitions have no allowed_callers, so its request could
    not have been served calls made from code execution: the harness's skip names the declaration rig has."""
    outcome, summary, errors, _ = _verdict(rig, corpus, "anthropic-messages/programmatic-tool-calling")
    assert (outcome, errors) == ("skip", set()), summary
    assert "ToolDefinition (name, description, parameters" in summary and "no allowed_callers" in summary
    assert "query_sales" in summary


def test_rig_names_id_less_ollama_calls_in_the_history(rig: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, rig R4: Ollama's id-less calls get local ids, spelled `tool-N` on the wire."""
    outcome, _, errors, warnings = _verdict(rig, corpus, "ollama-chat/id-less-parallel-same-tool")
    assert (outcome, errors, warnings) == ("pass", set(), {"roundtrip/invented-id"})


def test_rig_on_deepseek_sends_call_ids_not_tool_names(corpus: Corpus) -> None:
    """0xPlaygrounds/rig#370 (the tool name sent as the call id on DeepSeek) is gone: DeepSeek is a
    dialect of the shared Chat wire, which spells each call's own id."""
    adapter = HarnessAdapter([str(RIG), "--openai-chat=deepseek"])
    try:
        assert adapter.name == "rig-deepseek"
        assert _verdict(adapter, corpus, "openai-chat/parallel-same-tool")[0] == "pass"
    finally:
        adapter.close()


def test_async_openai_reads_chat_custom_calls_under_the_wrong_key(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, async-openai A1: ChatCompletionMessageCustomToolCall names its field
    `custom_tool`; the wire's key is `custom`."""
    outcome, summary, _, _ = _verdict(async_openai, corpus, "openai-chat/custom-tool-call")
    assert outcome == "error"
    assert "missing field `custom_tool`" in summary


def test_async_openai_cannot_read_foundry_items(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, async-openai A2: OutputItem has no variant for an item type it does not know."""
    outcome, summary, _, _ = _verdict(async_openai, corpus, "azure-foundry/bing-grounding-pairs")
    assert outcome == "error"
    assert "unknown variant `bing_grounding_call`" in summary


def test_the_stream_example_takes_an_empty_id_over_the_first(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, async-openai A5: the tool-call-stream example sets the call's id from every
    chunk that has one, `""` included."""
    outcome, _, errors, _ = _verdict(async_openai, corpus, "openai-chat/streamed-empty-ids-after-first")
    assert outcome == "fail"
    assert "roundtrip/empty-id" in errors


def test_the_stream_example_leaves_a_call_below_index_one(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, async-openai A5: the example grows its call list to the index, so calls
    streamed from index 1 leave an empty call at 0, sent back with a result of its own."""
    outcome, _, errors, _ = _verdict(async_openai, corpus, "openai-chat/streamed-indices-from-one")
    assert (outcome, errors) == ("fail", {"pairing/missing-result", "pairing/orphan-result"})


def test_async_openai_responses_calls_pass(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    assert _verdict(async_openai, corpus, "openai-responses/parallel-results-reversed")[0] == "pass"
    assert _verdict(async_openai, corpus, "openresponses/streamed-parallel-calls")[0] == "pass"


def test_rig_ends_the_run_at_an_item_the_application_must_answer(rig: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, rig R3: only ToolCall content continues a run (rig-agent run/mod.rs,
    has_tool_calls), so a local_shell_call ends it after the first request."""
    outcome, summary, errors, _ = _verdict(rig, corpus, "openai-responses/local-shell-call")
    assert (outcome, errors) == ("fail", {"pairing/calls-unanswered"})
    assert "never requested" in summary


def test_async_openai_requires_a_custom_tool_format(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, async-openai A3: CustomToolParam.format has no serde default."""
    outcome, summary, _, _ = _verdict(async_openai, corpus, "openai-responses/streamed-function-and-custom")
    assert outcome == "error"
    assert "missing field `format`" in summary


def test_async_openai_adds_nulls_to_a_web_search_action(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, async-openai A4: WebSearchActionSearch serializes `queries` and `sources` as
    null, and FileSearchToolCallResult requires `attributes`."""
    outcome, summary, errors, _ = _verdict(async_openai, corpus, "openai-responses/hosted-tools-in-history")
    assert (outcome, errors) == ("fail", {"roundtrip/arguments-altered"})
    assert "missing field `attributes`" in summary


def test_async_openai_skips_items_its_examples_do_not_answer(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    result = _run(async_openai, corpus, "openai-responses/computer-use")
    assert result.outcome == "skip"
    assert "'computer_use_preview'" in result.summary


# --- conversations continued: restored histories, hand-offs across providers, sessions ---------------


@pytest.mark.parametrize(
    "scenario_id",
    [
        # a history restored as rig Messages, continued with its last message (the tool results) as the prompt
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",
        # a Gemini history without ids: the calls and their results get the id rig issues for one
        "anthropic-messages/from-gemini-idless",
        # hand-offs: the first leg on Anthropic to its max_turns budget, continued on OpenAI and on Gemini
        "openai-chat/from-anthropic",
        "gemini/from-anthropic",
        # a session of three runs, each run's messages appended to the history
        "openai-chat/session-memory-window",
        # the recorded request's `keep_alive: null` is not passed on as a parameter
        "ollama-chat/recorded/openllmetry-ollama-chat-tool-calls",
    ],
)
def test_rig_continues_conversations(rig: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    result = _run(rig, corpus, scenario_id)
    assert result.outcome == "pass", result.summary
    assert {"history", "sessions", "handoffs"} <= rig.continues


def test_rig_repairs_a_call_cut_off_in_its_tool(rig: HarnessAdapter, corpus: Corpus) -> None:
    """A hook stops the run at the cut-off tool (`OutcomeAction::stop`); the next run's history answers
    the unanswered call with an error result of rig's own, so Anthropic takes it."""
    result = _run(rig, corpus, "anthropic-messages/session-repair-interrupted")
    assert result.outcome == "pass", result.summary


def test_rig_sends_back_the_suite_s_output_for_a_call_the_recording_never_answered(
    rig: HarnessAdapter, corpus: Corpus
) -> None:
    """R5 was the suite's: with an empty canned output rig sent its "(no tool output)" placeholder and the
    cell went red; each such call now has an output of the suite's own, which rig sends as it is."""
    scenario = corpus.scenarios["openai-chat/recorded/openinference-openai-tool-calls"]
    assert all(c.output for t in scenario.turns for c in t.calls)
    result = _run(rig, corpus, scenario.id)
    assert result.outcome == "pass", result.summary


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",
        # a Gemini history without ids: the restored calls and their results are given the same ids
        "openai-chat/recorded/mirascope-resume-from-gemini",
        # without hand-offs declared, a conversation begun on Anthropic is handed over as its history
        "openai-chat/from-anthropic",
        "openai-chat/session-memory-window",
        # Responses: a Chat history written as input items, one kept as input items, and a session
        "openai-responses/from-chat-history",
        "openai-responses/recorded/mirascope-resume-from-gemini",
        "openai-responses/session-previous-response-id",
    ],
)
def test_async_openai_continues_conversations(async_openai: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    result = _run(async_openai, corpus, scenario_id)
    assert result.outcome == "pass", result.summary
    assert async_openai.continues == frozenset({"history", "sessions"})
