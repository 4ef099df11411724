"""Google's ADK as a client adapter: scenarios it passes, and its confirmed findings (google-adk 2.13.0)."""

from __future__ import annotations

import frameworks
import pytest

from conformance.clients.google_adk import ADAPTER
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import run_scenario

frameworks.importorskip("google.adk", reason="the ADK client adapter drives google-adk")


def _run(corpus: Corpus, scenario_id: str) -> CaseResult:
    return run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)


@pytest.mark.parametrize(
    "scenario_id",
    [
        "gemini/parallel-different-tools",  # Gemini, the model class ADK is built around
        "gemini-interactions/session-previous-interaction-id",  # use_interactions_api=True, two runs
        "anthropic-messages/parallel-same-tool",  # AnthropicLlm
        "openai-chat/parallel-results-reversed",  # OpenAILlm
        "openai-responses/streamed-reasoning-then-parallel-calls",  # OpenAIResponsesLlm, streamed
        "bedrock-converse/three-turn-chain",  # LiteLlm
    ],
)
def test_adk_passes(corpus: Corpus, scenario_id: str) -> None:
    result = _run(corpus, scenario_id)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.errors])


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # a restored history as session events
        "anthropic-messages/from-kimi",  # a Kimi history on Anthropic: AnthropicLlm's id sanitizer fits the ids
        "openai-responses/from-gemini-idless",  # id-less Gemini calls restored under ADK's own `adk-` ids
        "openai-chat/session-memory-window",  # three runs on one ADK session
        "anthropic-messages/session-repair-interrupted",  # a run cut off in a tool, then the next run
    ],
)
def test_adk_continues_conversations(corpus: Corpus, scenario_id: str) -> None:
    result = _run(corpus, scenario_id)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.errors])


def test_adk_sends_an_idless_gemini_call_to_openai_without_an_id(corpus: Corpus) -> None:
    """A Gemini call saved without an id is stored under `adk-<uuid>` (as ADK stores a call read without one),
    and every request strips `adk-` ids from calls and results (google/adk/flows/llm_flows/context/
    _contents.py:431-437), whatever the model: Chat Completions gets the call and its result without ids."""
    result = _run(corpus, "openai-chat/recorded/mirascope-resume-from-gemini")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"pairing/missing-result", "pairing/orphan-result"}


def test_adk_keeps_an_empty_id_from_the_openai_wire(corpus: Corpus) -> None:
    """Gemini's OpenAI-compatible endpoint serves `"id": ""`; OpenAILlm keeps it as the FunctionCall's id and
    sends the calls and results back with it."""
    result = _run(corpus, "openai-chat/gemini-compat-empty-ids")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"pairing/missing-result", "pairing/orphan-result", "roundtrip/empty-id"}


def test_provider_tools_adk_cannot_declare_are_skips(corpus: Corpus) -> None:
    result = _run(corpus, "anthropic-messages/web-search-beside-client-call")
    assert result.outcome == "skip" and "AnthropicLlm sends function declarations only" in result.summary
    result = _run(corpus, "openai-responses/computer-use")
    assert result.outcome == "skip" and "OpenAIResponsesLlm" in result.summary
