"""The LangChain.js harness (harnesses/langchain-js): LangChain's v1 agent over a few scenarios.

The framework is not installed in CI (the minimal harnesses hold the protocol there); these tests run
wherever `npm ci --prefix harnesses/langchain-js` was run, and skip with that command as the reason
elsewhere. Each failing case below is a finding of docs/findings.md, held here so that a release
that fixes it, or a harness change that hides it, shows.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from node_harnesses import installed, started, verdict

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus

HARNESS = installed("langchain-js", "langchain")


@pytest.fixture(scope="module")
def harness() -> Iterator[HarnessAdapter]:
    with started(HARNESS) as adapter:
        yield adapter


def test_it_names_langchain_and_the_installed_versions(harness: HarnessAdapter) -> None:
    lock = json.loads((HARNESS / "package-lock.json").read_text(encoding="utf-8"))
    installed = lock["packages"]
    identity = harness.identity()
    assert identity["name"] == "langchain-js" and identity["language"] == "javascript"
    assert harness.version == installed["node_modules/langchain"]["version"]
    for package in ("@langchain/core", "@langchain/openai", "@langchain/anthropic", "@langchain/google-genai"):
        assert f"{package} {installed[f'node_modules/{package}']['version']}" in identity["libraries"]
    assert "cohere-v2" not in harness.apis and "bedrock-converse" in harness.apis


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/streamed-parallel-calls",  # agent.stream with streamMode messages: ChatOpenAI streams
        "openai-responses/streamed-function-and-custom",  # a Responses custom tool (customTool)
        "openai-responses/mcp-approval-flow",  # the approval answered in a human message, the agent run again
        "anthropic-messages/programmatic-tool-calling",  # allowed_callers carried on the tool's extras
        "bedrock-converse/streamed-parallel-calls",  # ConverseStream's event-stream frames
        "mistral-chat/parallel-same-tool",  # ChatMistralAI streams inside the agent
        "kimi-chat/index-continues-across-turns",  # ChatOpenAI at Moonshot's base URL
    ],
)
def test_langchain_passes(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "pass", summary


def test_gemini_calls_and_results_go_back_without_their_ids(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md: @langchain/google-genai sends neither the calls nor the results with the
    served ids (each functionResponse in a content of its own, which Gemini reads as one turn)."""
    outcome, summary, codes = verdict(harness, corpus, "gemini/ids-results-reversed")
    assert outcome == "fail", summary
    # Each response in a content of its own: refused by Gemini 3 Pro (eino-ext #571), not by the
    # scenario's gemini-3-flash-preview as far as any report shows, so the ids alone.
    assert codes == {"roundtrip/empty-id"}


def test_gemini_id_less_parallel_responses_in_separate_contents_pass(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, J1: each functionResponse goes in a content of its own, which Gemini reads as
    one turn; without served ids there is nothing else to send, and the case passes."""
    outcome, summary, _ = verdict(harness, corpus, "gemini/parallel-same-tool-idless")
    assert outcome == "pass", summary


def test_a_streamed_server_tool_use_goes_back_without_its_input(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, J10: the input_json_delta fragments are joined for a tool_use only; the
    web_search server_tool_use goes back with input {}."""
    outcome, summary, codes = verdict(harness, corpus, "anthropic-messages/web-search-beside-client-call")
    assert outcome == "fail", summary
    assert codes == {"roundtrip/arguments-altered"}


def test_streamed_calls_without_ids_are_filed_as_invalid(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, J11: collapseToolCallChunks sends an id-less call to invalid_tool_calls, so the
    agent runs no tool and stops after the first response."""
    outcome, summary, _ = verdict(harness, corpus, "openai-chat/streamed-calls-without-ids")
    assert outcome == "fail", summary
    assert "never requested" in summary


def test_ollama_call_ids_are_replaced(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md: ChatOllama mints a UUID for every served call."""
    outcome, summary, codes = verdict(harness, corpus, "ollama-chat/parallel-same-tool")
    assert outcome == "fail", summary
    assert codes == {"roundtrip/id-altered", "roundtrip/empty-id"}  # results sent without the minted ids


def test_a_web_fetch_result_is_dropped_from_the_history(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md: @langchain/anthropic keeps web_fetch's server_tool_use but not its result."""
    outcome, summary, codes = verdict(harness, corpus, "anthropic-messages/fetch-and-tool-search")
    assert outcome == "fail", summary
    assert codes == {"pairing/missing-result"}


def test_a_local_shell_call_is_neververdict(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md: tools.localShell's execute is never called; the call is left unanswered."""
    outcome, summary, _ = verdict(harness, corpus, "openai-responses/local-shell-call")
    assert outcome == "fail", summary
    assert "never requested" in summary


def test_a_custom_tool_moves_chat_completions_to_the_responses_api(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md: with useResponsesApi false, a bound custom tool still sends POST /responses."""
    outcome, summary, _ = verdict(harness, corpus, "openai-chat/custom-tool-call")
    assert outcome == "error", summary
    assert "/v1/responses" in summary


def test_a_tool_the_integration_refuses_to_declare_is_a_skip(harness: HarnessAdapter, corpus: Corpus) -> None:
    outcome, summary, _ = verdict(harness, corpus, "anthropic-messages/mcp-and-advisor")
    assert outcome == "skip"
    assert "Unknown tool type passed to ChatAnthropic" in summary


def test_cohere_v2_is_unsupported_with_the_reason(harness: HarnessAdapter, corpus: Corpus) -> None:
    outcome, summary, _ = verdict(harness, corpus, "cohere-v2/one-call")
    assert outcome == "skip"
    assert "v1 chat API" in summary


def test_chatgoogle_sends_gemini_results_back_in_one_turn_with_their_ids(corpus: Corpus) -> None:
    """docs/findings.md, J1: @langchain/google's ChatGoogle, run with --gemini=google, passes where
    ChatGoogleGenerativeAI fails; that column serves Gemini only."""
    with started(HARNESS, "--gemini=google") as variant:
        assert variant.name == "langchain-js-google" and variant.apis == ("gemini",)
        for scenario_id in ("gemini/ids-results-reversed", "gemini/streamed-parallel-calls-one-chunk"):
            outcome, summary, _ = verdict(variant, corpus, scenario_id)
            assert outcome == "pass", f"{scenario_id}: {summary}"
        outcome, summary, _ = verdict(variant, corpus, "openai-chat/one-call")
        assert outcome == "skip" and "Gemini only" in summary


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/from-anthropic",  # a hand-off: the first leg on ChatAnthropic, then ChatOpenAI
        "openai-responses/from-gemini-idless",  # id-less Gemini calls restored under minted ids
        "openai-chat/session-memory-window",  # three runs of one session
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # a restored history
    ],
)
def test_langchain_continues_conversations(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "pass", summary


def test_an_anthropic_turn_goes_to_gemini_with_its_calls_twice(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md: @langchain/google-genai turns the AIMessage's tool_use blocks and its tool_calls
    into functionCall parts both."""
    outcome, summary, codes = verdict(harness, corpus, "gemini/from-anthropic")
    assert outcome == "fail" and "pairing/count-mismatch" in codes, summary


def test_a_run_its_tool_interrupted_goes_on_with_the_call_unanswered(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, J12: the cut-off tool's `interrupt()` pauses the run in the checkpointer's thread;
    a new message on that thread sends the paused call without a result."""
    for scenario_id in ("anthropic-messages/session-repair-interrupted", "openai-chat/session-repair-interrupted"):
        outcome, summary, codes = verdict(harness, corpus, scenario_id)
        assert outcome == "fail" and codes == {"pairing/missing-result"}, summary
