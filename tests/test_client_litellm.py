"""LiteLLM as a client adapter: scenarios it passes, and a confirmed finding that must stay visible."""

from __future__ import annotations

import os
import subprocess
import sys

import frameworks
import pytest

from conformance.clients.litellm_sdk import ADAPTER
from conformance.corpus.loading import Corpus
from conformance.running.runner import run_scenario

frameworks.importorskip("litellm", reason="the LiteLLM client adapter drives litellm")
# litellm.completion(tools=...) imports `mcp`, which only LiteLLM's [proxy] extra installs.
frameworks.importorskip("mcp", reason="litellm.completion with tools needs the mcp package")


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/parallel-results-reversed",  # litellm.run_tool_loop
        "anthropic-messages/streamed-parallel-calls",  # completion(stream=True) + stream_chunk_builder
        "openai-responses/streamed-function-and-custom",  # litellm.responses(stream=True)
        "bedrock-converse/parallel-same-tool",
        "ollama-responses/streamed-parallel-calls",  # litellm.responses("openai/...") at Ollama's /v1/responses
        "ollama-messages/three-turn-chain",  # run_tool_loop with "anthropic/..." at Ollama's /v1/messages
    ],
)
def test_litellm_passes(scenario_id: str, corpus: Corpus) -> None:
    result = run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)
    assert result.outcome == "pass", result.summary
    assert result.errors == []


def test_litellm_ollama_chat_sends_the_call_ids_back(corpus: Corpus) -> None:
    """ollama_chat writes each served call's id back on the assistant's tool_calls (litellm 1.110:
    `llms/ollama/chat/transformation.py`, `transform_tool_call`, `OllamaToolCall(id=tool_id, ...)`; 1.106
    dropped it, findings L1), so the result's tool_call_id names a call of the history.

    LiteLLM also POSTs /api/show before /api/chat; that side request has no interaction in the
    cassette and must not be taken for the first one (the run would end in `error`).
    """
    result = run_scenario(ADAPTER, corpus.scenarios["ollama-chat/one-call"], corpus)
    assert result.outcome == "pass", result.summary
    assert result.errors == []


def test_litellm_ollama_chat_merges_streamed_calls(corpus: Corpus) -> None:
    """Streamed Ollama calls each come in a chunk of their own at position 0 of the delta: LiteLLM gives every
    one index 0 and a uuid id, stream_chunk_builder joins them into one call, and its joined arguments fail
    to parse when the next request is built (findings L3)."""
    result = run_scenario(ADAPTER, corpus.scenarios["ollama-chat/streamed-parallel-calls"], corpus)
    assert result.outcome == "error", result.summary
    assert "Extra data" in result.summary


def test_litellm_skips_apis_it_does_not_cover(corpus: Corpus) -> None:
    result = run_scenario(ADAPTER, corpus.scenarios["openresponses/one-call"], corpus)
    assert result.outcome == "skip"
    assert "Open Responses" in result.summary


def test_litellm_stream_chunk_builder_drops_calls_streamed_without_ids(corpus: Corpus) -> None:
    """stream_chunk_builder emits a call only when it has an id: StepFun's id-less calls vanish, no tool runs,
    and the loop ends after the first request with the calls unanswered."""
    result = run_scenario(ADAPTER, corpus.scenarios["openai-chat/streamed-calls-without-ids"], corpus)
    assert result.outcome == "fail", result.summary
    assert [v.code for v in result.errors] == ["pairing/calls-unanswered"]
    assert "1 of 2 recorded interaction(s) were never requested" in result.summary


@pytest.mark.parametrize(
    ("scenario_id", "lost"),
    [
        # The MCP server is declared as LiteLLM's `type: mcp` tool (sent as `mcp_servers`); the `mcp_tool_use`
        # block matches no branch of `extract_response_content` and is not sent back (findings L7).
        ("anthropic-messages/mcp-tool-listing", "roundtrip/call-lost"),
        ("anthropic-messages/mcp-and-advisor", "roundtrip/call-lost"),
        # `allowed_callers` rides on the function tool; the served `caller` is not written back (findings L9).
        ("anthropic-messages/programmatic-tool-calling", "roundtrip/opaque-dropped"),
        # `include_server_side_tool_invocations` keeps googleSearch beside the function tool; `run_tool_loop` then
        # replays no Gemini server-side invocation (findings L8).
        ("gemini/server-tool-beside-call", "roundtrip/call-lost"),
    ],
)
def test_litellm_declares_the_server_tools_and_loses_their_calls(scenario_id: str, lost: str, corpus: Corpus) -> None:
    """Declared, the scenario is served (not a skip) and fails on what LiteLLM sends back."""
    result = run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {lost}


def test_litellm_reads_its_anthropic_beta_headers_from_the_package(corpus: Corpus) -> None:
    """LiteLLM fetches its Anthropic beta-header table from GitHub unless told to use the packaged one; a replay
    answers that request with a 404, which the case reports."""
    result = run_scenario(ADAPTER, corpus.scenarios["anthropic-messages/code-execution-tools"], corpus)
    assert result.outcome == "pass", result.summary
    assert "does not hold" not in result.summary


def test_litellm_imported_after_the_adapter_fetches_nothing_from_the_network() -> None:
    """Without LITELLM_LOCAL_MODEL_COST_MAP set before it is imported, litellm fetches its cost map
    from GitHub as it is imported, retrying in a thread that can reach a replay a later test started
    (it did, in CI). The adapter's module sets it, so a process that imports the adapter first (as
    this module and the worker do) never reaches the network."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM_")}
    done = subprocess.run(
        [sys.executable, "-c", "import conformance.clients.litellm_sdk, litellm"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "model cost map" not in done.stderr, done.stderr


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/from-anthropic",  # a Claude history as LiteLLM's OpenAI-form messages, on OpenAI Chat
        "anthropic-messages/from-kimi",  # Kimi's ids made Anthropic's (sanitize_anthropic_tool_use_id)
        "anthropic-messages/from-gemini-idless",  # id-less Gemini calls under LiteLLM's call_ ids
        "openai-chat/session-memory-window",  # three runs on one message list
        # A Gemini history continued on the Responses API through completion's `responses/` bridge
        "openai-responses/from-gemini-idless",
        "openai-responses/from-chat-history",
        # A run cut off in its tool: litellm.modify_params closes out the unanswered call in the Anthropic translation
        "anthropic-messages/session-repair-interrupted",
    ],
)
def test_litellm_continues_conversations(corpus: Corpus, scenario_id: str) -> None:
    result = run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)
    assert result.outcome == "pass", result.summary


def test_claude_ids_reach_mistral_unchanged(corpus: Corpus) -> None:
    """docs/findings.md: MistralConfig._handle_tool_call_message copies each call's id as it is."""
    result = run_scenario(ADAPTER, corpus.scenarios["mistral-chat/from-anthropic"], corpus)
    assert result.outcome == "fail" and {"format/id-length", "format/id-pattern"} <= {v.code for v in result.errors}


def test_a_cut_off_run_on_openai_chat_is_the_applications_to_repair(corpus: Corpus) -> None:
    result = run_scenario(ADAPTER, corpus.scenarios["openai-chat/session-repair-interrupted"], corpus)
    assert result.outcome == "skip"
    assert "only in its Anthropic translation" in result.summary
