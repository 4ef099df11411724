"""The Anthropic TypeScript SDK's harness (harnesses/anthropic-sdk): `client.beta.messages.toolRunner`
over the Messages scenarios.

It runs wherever `npm ci --prefix harnesses/anthropic-sdk` was run (CI requires it with
CONFORMANCE_REQUIRE_HARNESSES=1) and skips with that command as the reason elsewhere.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from node_harnesses import installed, started, verdict

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus

HARNESS = installed("anthropic-sdk", "@anthropic-ai/sdk")


@pytest.fixture(scope="module")
def harness() -> Iterator[HarnessAdapter]:
    with started(HARNESS) as adapter:
        yield adapter


def test_it_names_the_sdk_and_the_installed_version(harness: HarnessAdapter) -> None:
    lock = json.loads((HARNESS / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    identity = harness.identity()
    assert identity["name"] == "anthropic-sdk-js" and identity["language"] == "javascript"
    assert harness.version == lock["node_modules/@anthropic-ai/sdk"]["version"]
    assert harness.apis == ("anthropic-messages",)


@pytest.mark.parametrize(
    "scenario_id",
    [
        "anthropic-messages/parallel-same-tool",
        "anthropic-messages/streamed-parallel-calls",  # the runner streams each turn
        "anthropic-messages/programmatic-tool-calling",  # server tools passed through; caller kept
        "anthropic-messages/mcp-and-advisor",  # mcp_servers from the recorded body, beta header passed on
        "anthropic-messages/web-search-beside-client-call",
    ],
)
def test_the_tool_runner_passes(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "pass", summary


def test_other_apis_are_skipped_with_the_reason(harness: HarnessAdapter, corpus: Corpus) -> None:
    outcome, summary, _ = verdict(harness, corpus, "openai-chat/one-call")
    assert outcome == "skip" and "Anthropic Messages API only" in summary


CONTINUED = (
    "anthropic-messages/recorded/openllmetry-tools-history",  # a restored history of MessageParams
    "anthropic-messages/recorded/mirascope-web-search-tool",  # two runs, server tool blocks kept
    "anthropic-messages/recorded/mirascope-web-search-tool-stream",
)


@pytest.mark.parametrize("scenario_id", CONTINUED)
def test_the_tool_runner_continues_conversations(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "pass", summary


def test_what_the_sdk_cannot_continue_is_skipped_with_the_reason(harness: HarnessAdapter, corpus: Corpus) -> None:
    outcome, summary, _ = verdict(harness, corpus, "anthropic-messages/from-kimi")
    assert outcome == "skip" and "no form for a conversation begun on kimi-chat" in summary


def test_a_run_cut_off_before_its_tool_answered_is_judged_on_the_next(harness: HarnessAdapter, corpus: Corpus) -> None:
    """The first run is left (the `for await` over the runner ends) once its tool is cut off, before the
    runner sends an is_error result for it; the next run goes on in the same thread, and what it sends
    is judged: the thread stages the new user message after the unanswered tool_use as it is
    (docs/findings.md, Anthropic TypeScript SDK)."""
    outcome, summary, codes = verdict(harness, corpus, "anthropic-messages/session-repair-interrupted")
    assert outcome == "fail" and codes == {"pairing/missing-result"}, summary


def test_the_whole_history_every_turn_passes_too(corpus: Corpus) -> None:
    """By default the runner continues a server-held thread with only the new messages; with
    --full-history (`thread: false`) it sends every turn in full, and the calls pair the same way."""
    with started(HARNESS, "--full-history") as full:
        assert "thread: false" in full.implementation["notes"]
        for scenario_id in ("anthropic-messages/three-turn-chain", "anthropic-messages/parallel-same-tool", *CONTINUED):
            outcome, summary, _ = verdict(full, corpus, scenario_id)
            assert outcome == "pass", summary
