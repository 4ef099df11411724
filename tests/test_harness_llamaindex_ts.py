"""LlamaIndex.TS's harness (harnesses/llamaindex-ts): the `agent` of @llamaindex/workflow (an AgentWorkflow of
one FunctionAgent) over the LLMs of its provider packages, with the verdicts docs/findings.md traces.

It runs wherever `npm ci --prefix harnesses/llamaindex-ts` was run (CI requires it with
CONFORMANCE_REQUIRE_HARNESSES=llamaindex-ts) and skips with that command as the reason elsewhere.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from node_harnesses import installed, started, verdict

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus

HARNESS = installed("llamaindex-ts", "llamaindex")


@pytest.fixture(scope="module")
def harness() -> Iterator[HarnessAdapter]:
    with started(HARNESS) as adapter:
        yield adapter


def test_it_names_the_library_and_the_installed_version(harness: HarnessAdapter) -> None:
    lock = json.loads((HARNESS / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    identity = harness.identity()
    assert identity["name"] == "llamaindex-ts" and identity["language"] == "javascript"
    assert harness.version == lock["node_modules/llamaindex"]["version"]
    assert set(harness.apis) == {
        "openai-chat",
        "kimi-chat",
        "openai-responses",
        "openresponses",
        "anthropic-messages",
        "gemini",
        "ollama-chat",
    }


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/parallel-same-tool",
        "openai-chat/session-memory-window",  # one Memory across the session's runs
        "openai-responses/three-turn-chain",
        "anthropic-messages/streamed-parallel-calls",
        "gemini/one-call",  # gemini-2.5-flash is in @llamaindex/google's SUPPORT_TOOL_CALL_MODELS
        # A restored history of Gemini calls without ids, under the UUIDs LlamaIndex's Gemini LLM mints.
        "anthropic-messages/from-gemini-idless",
    ],
)
def test_the_agent_passes(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "pass", summary


@pytest.mark.parametrize(
    ("scenario_id", "codes"),
    [
        # The OpenAI LLM reads only tool_calls[0] of a streamed delta: the second call of a chunk is dropped.
        ("openai-chat/streamed-two-calls-one-chunk", {"roundtrip/call-lost"}),
        # The Ollama LLM writes an assistant message without its tool_calls and results without a name.
        ("ollama-chat/one-call", {"pairing/orphan-result", "roundtrip/call-lost"}),
        # The FunctionAgent turns an empty streamed input into {"rawInput": ""}.
        ("anthropic-messages/recorded/mirascope-call-with-mcp-tools", {"roundtrip/arguments-altered"}),
        # OpenAIResponses sends back none of a response's server tool items.
        ("openai-responses/hosted-tools-in-history", {"roundtrip/call-lost"}),
        # A program's call, run like any function call, goes back without the program item and its caller.
        ("openai-responses/program-calls-functions", {"roundtrip/call-lost", "roundtrip/opaque-dropped"}),
    ],
)
def test_the_agent_fails_as_traced(harness: HarnessAdapter, corpus: Corpus, scenario_id: str, codes: set[str]) -> None:
    outcome, summary, found = verdict(harness, corpus, scenario_id)
    assert outcome == "fail", summary
    assert found == codes


@pytest.mark.parametrize(
    ("scenario_id", "message"),
    [
        # The OpenAI LLM's stream reader appends arguments to a call it never started.
        ("openai-chat/streamed-calls-without-ids", "Cannot read properties of null (reading 'input')"),
        ("openai-chat/streamed-interleaved-parallel-calls", "Unexpected end of JSON input"),
        ("openai-chat/streamed-id-on-every-delta", "Tools not found"),
        # gemini-2.0-flash is not in @llamaindex/google's SUPPORT_TOOL_CALL_MODELS.
        ("gemini/ids-results-reversed", "FunctionAgent requires an LLM that supports tool calls"),
        # That refusal comes first, before the provider tool the Gemini LLM could not declare.
        ("gemini/server-tool-beside-call", "FunctionAgent requires an LLM that supports tool calls"),
    ],
)
def test_the_agent_errs_as_traced(harness: HarnessAdapter, corpus: Corpus, scenario_id: str, message: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "error", summary
    assert message in summary


@pytest.mark.parametrize(
    ("scenario_id", "reason"),
    [
        ("openai-chat/custom-tool-call", "no custom (free-form) tool"),
        ("openai-chat/session-repair-interrupted", "answers a tool that throws with an error result"),
        ("mistral-chat/one-call", "MistralAISession takes only an apiKey"),
        ("bedrock-converse/one-call", "calls InvokeModel and InvokeModelWithResponseStream, not the Converse API"),
        # Provider tools: the Anthropic and Gemini LLMs send the agent's functions only; OpenAIResponses declares
        # any built-in (builtInTools) but reads a tool call from function_call items only.
        ("anthropic-messages/web-search-beside-client-call", "prepareToolsForAPI"),
        ("anthropic-messages/mcp-tool-listing", "cannot declare the provider tool mcp_toolset"),
        ("gemini/recorded/openinference-adk-code-execution", "mapChatMessagesToGoogleFunctions"),
        ("openai-responses/computer-use", "cannot run the built-in tool computer_use_preview"),
        ("openai-responses/shell-then-apply-patch", "cannot run the built-in tool apply_patch, shell"),
        ("openai-responses/tool-search-then-call", "isToolCallEvent"),
        ("openai-responses/mcp-approval-flow", "no answer to the MCP tool's approval requests"),
    ],
)
def test_what_the_library_cannot_express_is_a_skip_naming_its_limit(
    harness: HarnessAdapter, corpus: Corpus, scenario_id: str, reason: str
) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "skip", summary
    assert reason in summary


def test_the_thinking_before_a_call_is_asked_for_and_not_sent_back(harness: HarnessAdapter, corpus: Corpus) -> None:
    """Asked for as the recording did (`additionalChatOptions.thinking`), the Anthropic LLM reads the thinking
    block, but FunctionAgent.takeStep keeps the streamed text and toolCalls only (@llamaindex/workflow
    dist/index.js:118-131): the thinking before the call is not sent back (docs/findings.md)."""
    outcome, summary, codes = verdict(harness, corpus, "anthropic-messages/recorded/mirascope-resume-on-gemini")
    assert outcome == "fail", summary
    assert codes == {"roundtrip/opaque-dropped"}
