"""The OpenAI Agents SDK's harness (harnesses/openai-agents): the SDK's Runner over a few scenarios.

It runs wherever `npm ci --prefix harnesses/openai-agents` was run (CI requires it with
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

HARNESS = installed("openai-agents", "@openai/agents")


@pytest.fixture(scope="module")
def harness() -> Iterator[HarnessAdapter]:
    with started(HARNESS) as adapter:
        yield adapter


def test_it_names_the_sdk_and_the_installed_versions(harness: HarnessAdapter) -> None:
    lock = json.loads((HARNESS / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    identity = harness.identity()
    assert identity["name"] == "openai-agents-js" and identity["language"] == "javascript"
    assert harness.version == lock["node_modules/@openai/agents"]["version"]
    assert f"openai {lock['node_modules/openai']['version']}" in identity["libraries"]
    assert harness.apis == ("openai-chat", "openai-responses")


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/streamed-parallel-calls",  # OpenAIChatCompletionsModel, streamed through the Runner
        "openai-chat/streamed-indices-from-one",
        "openai-responses/mcp-approval-flow",  # the hosted MCP tool's approval through the run's interruptions
        "openai-responses/program-calls-functions",  # programmaticToolCallingTool with allowedCallers
        "openai-responses/hosted-tools-in-history",  # hosted tools' items sent back with store false
        "openai-responses/computer-use",  # computerTool over a Computer the replay answers
        "openai-responses/tool-search-then-call",  # toolSearchTool with a client executor
    ],
)
def test_the_runner_passes(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "pass", summary


@pytest.mark.parametrize(
    "scenario_id", ["openai-chat/gemini-compat-empty-ids", "openai-chat/streamed-calls-without-ids"]
)
def test_a_call_served_without_an_id_is_refused_not_given_one(
    harness: HarnessAdapter, corpus: Corpus, scenario_id: str
) -> None:
    """docs/findings.md, A1: the Chat Completions model keeps the served id ("" or none) and the
    Runner's invocation check throws instead of minting one."""
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "error", summary
    assert "Tool invocation is missing a non-empty call ID" in summary


def test_two_calls_streamed_at_one_index_become_one_unknown_tool(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, A2: the stream joins deltas by index alone and concatenates the names."""
    outcome, summary, _ = verdict(harness, corpus, "openai-chat/ollama-parallel-index-zero")
    assert outcome == "error", summary
    assert "Tool get_weatherget_weather not found" in summary


def test_a_nameless_responses_call_is_an_unknown_tool(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, A3: a function_call served with an empty name stops the run."""
    outcome, summary, _ = verdict(harness, corpus, "openai-responses/gateway-nameless-call")
    assert outcome == "error", summary
    assert "Tool  not found in agent" in summary


def test_a_case_the_sdk_cannot_express_is_skipped_with_the_reason(harness: HarnessAdapter, corpus: Corpus) -> None:
    outcome, summary, _ = verdict(harness, corpus, "openai-chat/custom-tool-call")
    assert outcome == "skip" and "no custom (free-form) tool to run" in summary
    outcome, summary, _ = verdict(harness, corpus, "openai-responses/local-shell-call")
    assert outcome == "skip" and "no `local_shell` tool" in summary
    outcome, summary, _ = verdict(harness, corpus, "anthropic-messages/one-call")
    assert outcome == "skip" and "Chat Completions and Responses APIs only" in summary


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # a restored history of input items
        # a run cut off in its tool: its ToolCallError's state.history, without the unanswered turn, goes on
        "openai-chat/session-repair-interrupted",
        "openai-chat/session-memory-window",  # three runs, each on the last run's result.history
        "openai-responses/session-previous-response-id",
        "openai-chat/from-openai-responses",  # a hand-off: the first leg on OpenAIResponsesModel
    ],
)
def test_the_runner_continues_conversations(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "pass", summary


def test_a_chat_turn_goes_on_to_responses_under_the_completions_id(harness: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, A4: the Chat Completions model stores each call item under the completion's id
    (`chatcmpl-...`), which the Responses converter sends as the item's id."""
    outcome, summary, codes = verdict(harness, corpus, "openai-responses/from-chat-history")
    assert outcome == "fail", summary
    assert codes == {"format/id-pattern"}
