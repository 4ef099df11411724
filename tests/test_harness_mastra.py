"""Mastra's harness (harnesses/mastra): a Mastra Agent over its model router, on a few scenarios.

It runs wherever `npm ci --prefix harnesses/mastra` was run (CI requires it with
CONFORMANCE_REQUIRE_HARNESSES=1) and skips with that command as the reason elsewhere. Each failing
case below is a finding of docs/findings.md, held here so that a release that fixes it, or a
harness change that hides it, shows.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from node_harnesses import installed, started, verdict

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus

HARNESS = installed("mastra", "@mastra/core")


@pytest.fixture(scope="module")
def harness() -> Iterator[HarnessAdapter]:
    with started(HARNESS) as adapter:
        yield adapter


def test_it_names_mastra_and_the_installed_versions(harness: HarnessAdapter) -> None:
    lock = json.loads((HARNESS / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    identity = harness.identity()
    assert identity["name"] == "mastra" and identity["language"] == "javascript"
    assert harness.version == lock["node_modules/@mastra/core"]["version"]
    served = {"openai-chat", "openai-responses", "anthropic-messages", "mistral-chat", "kimi-chat", "gemini"}
    assert served == set(harness.apis)


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/streamed-parallel-calls",  # { id, url } config: the bundled OpenAI-compatible model
        "openai-responses/streamed-reasoning-then-parallel-calls",  # api: "responses"
        "anthropic-messages/streamed-parallel-calls",  # the router's Anthropic provider, ANTHROPIC_BASE_URL
        "mistral-chat/parallel-same-tool",  # MISTRAL_BASE_URL, read by the router
        "kimi-chat/index-continues-across-turns",
        "openai-responses/shell-then-apply-patch",  # @ai-sdk/openai's shell and applyPatch, run by the agent
        "openai-responses/streamed-function-and-custom",  # a Responses custom tool (customTool)
        # a web search declared with a null option (user_location), which the factory takes as unset
        "openai-responses/recorded/openllmetry-agents-web-search-tool",
    ],
)
def test_the_agent_passes(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "pass", summary


def test_calls_served_with_empty_ids_vanish_from_the_history(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, M1: the results of calls whose id is "" are never merged into the calls, and
    the prompt's pairing filter then drops both: the next request carries the user message only."""
    outcome, summary, codes = verdict(harness, corpus, "openai-chat/gemini-compat-empty-ids")
    assert outcome == "fail", summary
    assert codes == {"roundtrip/call-lost"}


def test_two_calls_streamed_at_one_index_are_joined_into_one(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, M2: the bundled OpenAI-compatible stream joins deltas by index alone."""
    outcome, summary, codes = verdict(harness, corpus, "openai-chat/ollama-parallel-index-zero")
    assert outcome == "fail", summary
    assert codes == {"roundtrip/arguments-altered", "roundtrip/call-lost"}


def test_calls_streamed_without_ids_are_refused(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, M3: the bundled OpenAI-compatible model predates the release that mints ids."""
    outcome, summary, _ = verdict(harness, corpus, "openai-chat/streamed-calls-without-ids")
    assert outcome == "error", summary
    assert "Expected 'id' to be a string" in summary


def test_anthropic_server_tools_go_back_as_the_providers(harness: HarnessAdapter, corpus: Corpus) -> None:
    """Provider tools from @ai-sdk/anthropic's factories; the server_tool_use blocks go back intact."""
    for scenario_id in (
        "anthropic-messages/web-search-beside-client-call",
        "anthropic-messages/programmatic-tool-calling",
        "anthropic-messages/mcp-and-advisor",  # mcp_servers as the provider's mcpServers option
    ):
        outcome, summary, _ = verdict(harness, corpus, scenario_id)
        assert outcome == "pass", summary


def test_code_execution_calls_go_back_with_a_type_added(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, M4: the bundled @ai-sdk/anthropic folds the sub-tool's name into the input."""
    outcome, summary, codes = verdict(harness, corpus, "anthropic-messages/code-execution-tools")
    assert outcome == "fail", summary
    assert codes == {"roundtrip/arguments-altered"}


def test_an_mcp_approval_request_never_reaches_the_application(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, M5: the tool-approval-request part becomes a raw chunk and the loop stops."""
    outcome, summary, _ = verdict(harness, corpus, "openai-responses/mcp-approval-flow")
    assert outcome == "fail", summary
    assert "never requested" in summary


@pytest.mark.parametrize(
    "scenario_id",
    [
        "gemini/one-call",  # an AI SDK Google model handed to the agent: the router cannot reach the replay
        "gemini/server-tool-beside-call",  # google.tools.googleSearch among the agent's tools
        "anthropic-messages/from-gemini-signed",  # a hand-off whose first leg runs on Gemini
    ],
)
def test_gemini_runs_on_an_ai_sdk_model(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "pass", summary


def test_gemini_code_execution_goes_back_as_a_function_call(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, M9: @ai-sdk/google 3.0.101 sends the executableCode back as a functionCall."""
    outcome, summary, codes = verdict(harness, corpus, "gemini/code-execution-beside-call")
    assert outcome == "fail" and codes == {"pairing/missing-result"}, summary


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # a restored history of ModelMessages
        "openai-chat/session-memory-window",  # three runs on one message list
        "openai-responses/session-previous-response-id",
        "openai-chat/from-anthropic",  # a hand-off: the first leg on an Anthropic agent, then OpenAI Chat
        # a run its tool suspended: the suspended result's messages go on, and Mastra leaves the
        # unanswered call out of the next prompt
        "anthropic-messages/session-repair-interrupted",
        "openai-chat/session-repair-interrupted",
    ],
)
def test_the_agent_continues_conversations(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "pass", summary


def test_a_kimi_historys_ids_reach_anthropic_as_they_are(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, M7: the bundled @ai-sdk/anthropic writes each call's id as it is."""
    outcome, summary, codes = verdict(harness, corpus, "anthropic-messages/from-kimi")
    assert outcome == "fail", summary
    assert "format/id-pattern" in codes


def test_a_provider_tool_the_bundled_release_lacks_is_skipped_with_that_release(
    harness: HarnessAdapter, corpus: Corpus
) -> None:
    outcome, summary, _ = verdict(harness, corpus, "anthropic-messages/toolset-member-call")
    assert outcome == "skip" and "@ai-sdk/anthropic 3.0.103" in summary and "browser_toolset_20260801" in summary


def test_an_mcp_tool_listing_block_is_refused(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, M8: the MCP servers go in the Anthropic provider's options, and the bundled
    @ai-sdk/anthropic's response schema has no `mcp_tool_listing` block."""
    outcome, summary, _ = verdict(harness, corpus, "anthropic-messages/mcp-tool-listing")
    assert outcome == "error" and "Invalid JSON response" in summary, summary
