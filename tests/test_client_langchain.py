"""LangChain's chat models as a client adapter: scenarios it passes, and a confirmed finding that must stay visible."""

from __future__ import annotations

import frameworks
import pytest

from conformance.clients.langchain_chat import ADAPTER
from conformance.corpus.loading import Corpus
from conformance.running.runner import run_scenario

frameworks.importorskip("langchain_openai", reason="the LangChain client adapter drives langchain-openai")


@pytest.mark.parametrize(
    ("scenario_id", "package"),
    [
        ("openai-chat/parallel-results-reversed", "langchain_openai"),
        ("openai-responses/streamed-function-and-custom", "langchain_openai"),
        ("anthropic-messages/streamed-parallel-calls", "langchain_anthropic"),
        ("mistral-chat/parallel-same-tool", "langchain_mistralai"),
        ("mistral-responses/namespace-and-caller", "langchain_openai"),  # ChatOpenAI at Mistral's /v1/responses
        ("ollama-responses/item-ids-repeat-across-responses", "langchain_openai"),
        ("ollama-messages/streamed-parallel-calls", "langchain_anthropic"),  # ChatAnthropic at Ollama's /v1/messages
    ],
)
def test_langchain_passes(scenario_id: str, package: str, corpus: Corpus) -> None:
    _passes(corpus, scenario_id, package)


def _passes(corpus: Corpus, scenario_id: str, package: str) -> None:
    frameworks.importorskip(package)
    result = run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)
    assert result.outcome == "pass", result.summary
    assert result.errors == []


def test_langchain_sends_empty_served_ids_back_unchanged(corpus: Corpus) -> None:
    """Gemini's OpenAI-compatible endpoint serves id "": ChatOpenAI keeps it on both calls and both results."""
    result = run_scenario(ADAPTER, corpus.scenarios["openai-chat/gemini-compat-empty-ids"], corpus)
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {"roundtrip/empty-id", "pairing/orphan-result", "pairing/missing-result"}
    assert {v.location for v in result.errors if v.code == "roundtrip/empty-id"} == {
        "request[1].messages[1].tool_calls[0].id",
        "request[1].messages[1].tool_calls[1].id",
    }
    # Gemini's compatible endpoint is not OpenAI: the violations stand, but no OpenAI error is served.
    assert "provider's error" not in result.summary


def test_langchain_skips_apis_it_does_not_cover(corpus: Corpus) -> None:
    result = run_scenario(ADAPTER, corpus.scenarios["gemini/one-call"], corpus)
    assert result.outcome == "skip"
    assert "langchain-google-genai" in result.summary


def test_langchain_sends_calls_streamed_without_ids_back_with_null_ids(corpus: Corpus) -> None:
    """StepFun streams calls with no id: ChatOpenAI keeps `id=None`, `tool.invoke` then returns the bare output
    (no ToolMessage without an id), and the loop's strings go back as user messages."""
    result = run_scenario(ADAPTER, corpus.scenarios["openai-chat/streamed-calls-without-ids"], corpus)
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"roundtrip/empty-id", "pairing/missing-result"}
    assert {v.location for v in result.errors if v.code == "roundtrip/empty-id"} == {
        "request[1].messages[1].tool_calls[0].id",
        "request[1].messages[1].tool_calls[1].id",
    }


@pytest.mark.parametrize(
    "scenario_id",
    [
        "anthropic-messages/code-execution-tools",
        "anthropic-messages/fetch-and-tool-search",  # web_fetch and tool search, get_weather deferred
        "anthropic-messages/mcp-and-advisor",  # advisor, and mcp_servers with an mcp_toolset
        "anthropic-messages/mcp-tool-listing",
        "anthropic-messages/programmatic-tool-calling",  # allowed_callers through the tool's extras
        "anthropic-messages/web-search-beside-client-call",
        "openai-responses/hosted-tools-in-history",  # web_search, file_search, code_interpreter, image_generation
        "openai-responses/mcp-approval-flow",
        "openai-responses/recorded/openinference-litellm-websearch-input",
        "openai-responses/recorded/openllmetry-agents-web-search-tool",
    ],
)
def test_langchain_declares_the_server_tools_it_binds(scenario_id: str, corpus: Corpus) -> None:
    """Bound as provider tool dicts, the server tools reach the request: the recorded turn is served, not skipped."""
    _passes(corpus, scenario_id, "langchain_anthropic" if scenario_id.startswith("anthropic") else "langchain_openai")


@pytest.mark.parametrize(
    ("scenario_id", "kind", "where"),
    [
        ("openai-responses/program-calls-functions", "programmatic_tool_calling", "_WellKnownOpenAITools"),
        ("openai-responses/local-shell-call", "local_shell", "_WellKnownOpenAITools"),
        ("anthropic-messages/toolset-member-call", "browser_toolset_20260801", "_BUILTIN_TOOL_PREFIXES"),
    ],
)
def test_langchain_cannot_bind_a_provider_tool_of_a_type_it_does_not_know(
    corpus: Corpus, scenario_id: str, kind: str, where: str
) -> None:
    """bind_tools reads a dict of an unknown `type` as a function schema and rejects it: the client says so."""
    frameworks.importorskip("langchain_anthropic")
    result = run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)
    assert result.outcome == "skip"
    assert f"LangChain cannot bind the {kind} tool" in result.summary and where in result.summary


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/from-anthropic",  # a Claude history as LangChain messages, continued on ChatOpenAI
        "openai-chat/session-memory-window",  # three runs on one message list
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # a restored history
    ],
)
def test_langchain_continues_conversations(corpus: Corpus, scenario_id: str) -> None:
    frameworks.importorskip("langchain_anthropic")
    result = run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)
    assert result.outcome == "pass", result.summary
