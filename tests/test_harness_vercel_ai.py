"""The Vercel AI SDK's harness (harnesses/vercel-ai): the SDK's own tool loop over a few scenarios.

CI does not install the SDK (the minimal harnesses hold the protocol there); these run wherever
`npm ci --prefix harnesses/vercel-ai` was run, and skip with that command as the reason elsewhere.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from node_harnesses import installed, started, verdict

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus

HARNESS = installed("vercel-ai", "ai")


@pytest.fixture(scope="module")
def harness() -> Iterator[HarnessAdapter]:
    with started(HARNESS) as adapter:
        yield adapter


def test_it_names_the_sdk_and_the_installed_versions(harness: HarnessAdapter) -> None:
    lock = json.loads((HARNESS / "package-lock.json").read_text(encoding="utf-8"))
    identity = harness.identity()
    assert identity["name"] == "vercel-ai" and identity["language"] == "javascript"
    assert harness.version == lock["packages"]["node_modules/ai"]["version"]
    for package in ("@ai-sdk/openai", "@ai-sdk/anthropic", "@ai-sdk/google", "@ai-sdk/amazon-bedrock"):
        assert f"{package} {lock['packages'][f'node_modules/{package}']['version']}" in identity["libraries"]
    assert "ollama-chat" not in harness.apis and "openresponses" in harness.apis
    assert {"ollama-messages", "ollama-responses"} <= set(harness.apis)


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/gemini-compat-empty-ids",  # vercel/ai#7834, fixed: an empty served id gets one of the SDK's
        "openai-responses/streamed-function-and-custom",  # streamText, a Responses custom tool
        "anthropic-messages/programmatic-tool-calling",  # calls whose caller is a server tool
        "gemini/parallel-same-tool-idless",
        "bedrock-converse/streamed-parallel-calls",  # event-stream frames
        "kimi-chat/index-continues-across-turns",
        "openresponses/streamed-same-tool-twice",  # the AI Gateway's Open Responses endpoint
        # Ollama's compatible endpoints through the Anthropic and OpenAI providers; the first continues a
        # conversation begun on Anthropic's own API
        "ollama-messages/from-anthropic",
        "ollama-responses/streamed-parallel-calls",
        # a web search declared with a null option (user_location), which the factory takes as unset
        "openai-responses/recorded/openllmetry-agents-web-search-tool",
    ],
)
def test_the_sdk_passes(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "pass", summary


def test_an_approved_mcp_call_loses_its_history_when_nothing_is_stored(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md: with store false the SDK sends the mcp_approval_response but drops the
    mcp_list_tools, mcp_approval_request and mcp_call items it answers."""
    outcome, summary, codes = verdict(harness, corpus, "openai-responses/mcp-approval-flow")
    assert outcome == "fail", summary
    assert codes == {"pairing/call-dropped", "roundtrip/call-lost"}


def test_a_foundry_agent_response_with_its_own_tool_items_is_refused(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md: @ai-sdk/azure's Responses model rejects Foundry item types it does not model."""
    outcome, summary, _ = verdict(harness, corpus, "azure-foundry/azure-function-and-search")
    assert outcome == "error", summary
    assert "Invalid JSON response" in summary


def test_a_streamed_call_named_a_delta_later_is_refused_by_openai_chat(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, V4: @ai-sdk/openai's chat model hands each delta straight to the tracker, which
    throws on a new call without a name; @ai-sdk/openai-compatible buffers it and passes."""
    outcome, summary, _ = verdict(harness, corpus, "openai-chat/streamed-name-after-arguments")
    assert outcome == "error", summary
    assert "Expected 'function.name' to be a string" in summary
    with started(HARNESS, "--openai-chat=compatible") as compatible:
        outcome, summary, _ = verdict(compatible, corpus, "openai-chat/streamed-name-after-arguments")
    assert outcome == "pass", summary


def test_a_case_the_sdk_cannot_express_is_skipped_with_the_reason(harness: HarnessAdapter, corpus: Corpus) -> None:
    outcome, summary, _ = verdict(harness, corpus, "openai-chat/custom-tool-call")
    assert outcome == "skip"
    assert "custom (free-form) tools for the OpenAI Responses API only" in summary
    outcome, summary, _ = verdict(harness, corpus, "anthropic-messages/toolset-member-call")
    assert outcome == "skip" and "(AI SDK 7) has no provider tool for browser_toolset_20260801" in summary


def test_a_chat_stopped_in_its_tool_cannot_go_on(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, V7: the stopped run's UIMessages keep the call without its output, and the next
    run's prompt conversion refuses them (MissingToolResultsError) before anything is sent."""
    for scenario_id in ("anthropic-messages/session-repair-interrupted", "openai-chat/session-repair-interrupted"):
        outcome, summary, _ = verdict(harness, corpus, scenario_id)
        assert outcome == "error" and "Tool result is missing for tool call" in summary, summary


@pytest.mark.parametrize(
    "scenario_id",
    [
        "anthropic-messages/from-gemini-idless",  # a hand-off: the first leg on Google, then Anthropic
        "openai-chat/session-memory-window",  # three runs on one ModelMessage list
        "openai-responses/session-previous-response-id",
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # a restored history
    ],
)
def test_the_sdk_continues_conversations(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "pass", summary


def test_a_gateways_long_ids_reach_bedrock_unchanged(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md: a three-step first leg continued with every step (AI SDK 7's responseMessages),
    whose 172-character ids @ai-sdk/amazon-bedrock passes on as they are."""
    outcome, summary, codes = verdict(harness, corpus, "bedrock-converse/from-openai-chat")
    assert outcome == "fail" and "format/id-length" in codes, summary
