"""The Google Gen AI SDK for TypeScript's harness (harnesses/google-genai): automatic function calling in
a chat (`ai.chats.create`) whose tools are a CallableTool, over the Gemini scenarios.

It runs wherever `npm ci --prefix harnesses/google-genai` was run (CI requires it with
CONFORMANCE_REQUIRE_HARNESSES=google-genai) and skips with that command as the reason elsewhere.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from node_harnesses import installed, started, verdict

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus

HARNESS = installed("google-genai", "@google/genai")


@pytest.fixture(scope="module")
def harness() -> Iterator[HarnessAdapter]:
    with started(HARNESS) as adapter:
        yield adapter


def test_it_names_the_sdk_and_the_installed_version(harness: HarnessAdapter) -> None:
    lock = json.loads((HARNESS / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    identity = harness.identity()
    assert identity["name"] == "google-genai-js" and identity["language"] == "javascript"
    assert harness.version == lock["node_modules/@google/genai"]["version"]
    assert harness.apis == ("gemini",)


@pytest.mark.parametrize(
    "scenario_id",
    [
        "gemini/ids-results-reversed",
        "gemini/parallel-same-tool-idless",
        "gemini/streamed-parallel-calls-one-chunk",  # the streamed loop runs each call as its chunk arrives
        "gemini/thought-signature-sequential",
        "gemini/server-tool-beside-call",  # the recorded Google Search tool beside the callable tool
        "gemini/recorded/otel-vertexai-tool-events",  # a restored history as the chat's Content
    ],
)
def test_automatic_function_calling_passes(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "pass", summary


def test_responses_by_name_only_are_reported(corpus: Corpus) -> None:
    """With --by-name the callable answers as the SDK's own mcpToTool does, without the call's id: where
    the model's calls carry ids, the suite names the response that dropped one."""
    with started(HARNESS, "--by-name") as by_name:
        assert "name only" in by_name.implementation["notes"]
        outcome, summary, codes = verdict(by_name, corpus, "gemini/ids-results-reversed")
        assert outcome == "fail", summary
        assert codes == {"roundtrip/empty-id"}


@pytest.mark.parametrize(
    ("scenario_id", "reason"),
    [
        ("gemini/from-anthropic", "no form for a conversation begun on anthropic-messages"),
        ("openai-chat/one-call", "speaks the Gemini API only"),
    ],
)
def test_what_the_sdk_cannot_express_is_a_skip_naming_its_limit(
    harness: HarnessAdapter, corpus: Corpus, scenario_id: str, reason: str
) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "skip", summary
    assert reason in summary
