"""The Pydantic AI client adapter on recorded cassettes: cases it passes, and one confirmed finding."""

from __future__ import annotations

import frameworks
import pytest

from conformance.clients.pydantic_ai import ADAPTER
from conformance.corpus.loading import Corpus
from conformance.running.runner import run_scenario

frameworks.importorskip("pydantic_ai")

PASSING = [
    ("anthropic-messages/parallel-same-tool", "pydantic_ai.models.anthropic"),
    ("mistral-chat/streamed-parallel-calls", "pydantic_ai.models.mistral"),
    ("bedrock-converse/three-turn-chain", "pydantic_ai.models.bedrock"),
    ("ollama-responses/parallel-results-reversed", "pydantic_ai.providers.ollama"),
    ("ollama-messages/one-call", "pydantic_ai.models.anthropic"),
]


def _passes(corpus: Corpus, scenario_id: str, model_module: str) -> None:
    frameworks.importorskip(model_module)
    result = run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.violations])
    assert not result.errors


@pytest.mark.parametrize(("scenario_id", "model_module"), PASSING, ids=[p[0] for p in PASSING])
def test_the_framework_tool_loop_passes(corpus: Corpus, scenario_id: str, model_module: str) -> None:
    _passes(corpus, scenario_id, model_module)


def test_ollama_calls_streamed_at_one_index_are_merged(corpus: Corpus) -> None:
    """Two streamed calls both at `index: 0` become one call `get_weatherget_weather` with the second id.

    The OpenAI Chat stream is reassembled by `index` alone (`_chat_streaming.py`, `vendor_part_id=dtc.index`),
    and a delta with a new id on a known index overwrites the id and appends name and arguments. The
    joined arguments do not parse, so the surviving call goes back as `{"INVALID_JSON": ...}`.
    """
    frameworks.importorskip("pydantic_ai.models.openai")
    result = run_scenario(ADAPTER, corpus.scenarios["openai-chat/ollama-parallel-index-zero"], corpus)
    assert result.outcome == "fail"
    codes = {v.code for v in result.errors}
    assert codes == {"roundtrip/call-lost", "roundtrip/arguments-altered", "roundtrip/name-altered"}
    (renamed,) = [v for v in result.errors if v.code == "roundtrip/name-altered"]
    assert renamed.received == "get_weatherget_weather"
    (lost,) = [v for v in result.errors if v.code == "roundtrip/call-lost"]
    assert lost.expected == "call_u4kq7zm2"
    (altered,) = [v for v in result.errors if v.code == "roundtrip/arguments-altered"]
    assert altered.received == {"INVALID_JSON": '{"city":"Paris"}{"city":"Tokyo"}'}


def test_a_responses_call_goes_back_with_its_namespace_but_without_its_caller(corpus: Corpus) -> None:
    """OpenAIResponsesModel keeps a function call's `namespace` in `provider_details` and writes it back, but
    never reads `caller` (`models/openai/_responses_model.py`, the `ResponseFunctionToolCall` branch of
    `_process_response`, and `_map_function_call`), so a call a program made goes back as the model's own."""
    frameworks.importorskip("pydantic_ai.models.openai")
    result = run_scenario(ADAPTER, corpus.scenarios["mistral-responses/namespace-and-caller"], corpus)
    assert result.outcome == "fail", result.summary
    (dropped,) = result.errors
    assert (dropped.code, dropped.location) == ("roundtrip/opaque-dropped", "request[1].input[1].caller")
    assert dropped.expected == {"type": "program", "caller_id": "R9vLk2XpC"}


DECLARED = [
    ("anthropic-messages/code-execution-tools", "pydantic_ai.models.anthropic"),  # CodeExecutionTool
    ("anthropic-messages/fetch-and-tool-search", "pydantic_ai.models.anthropic"),  # WebFetchTool, ToolSearch('regex')
    ("anthropic-messages/mcp-and-advisor", "pydantic_ai.models.anthropic"),  # AdvisorTool, MCPServerTool
    ("anthropic-messages/web-search-beside-client-call", "pydantic_ai.models.anthropic"),  # WebSearchTool
    ("gemini/server-tool-beside-call", "pydantic_ai.models.google"),  # WebSearchTool as google_search
    ("gemini/recorded/openinference-adk-code-execution", "pydantic_ai.models.google"),
    ("openai-responses/hosted-tools-in-history", "pydantic_ai.models.openai"),  # four native tools
    ("openai-responses/recorded/openllmetry-agents-web-search-tool", "pydantic_ai.models.openai"),
]


@pytest.mark.parametrize(("scenario_id", "model_module"), DECLARED, ids=[p[0] for p in DECLARED])
def test_native_tools_reach_the_request(corpus: Corpus, scenario_id: str, model_module: str) -> None:
    """The server tools, given to the Agent as native-tool capabilities, are declared: served, not skipped."""
    _passes(corpus, scenario_id, model_module)


def test_mcp_tool_listing_block_is_not_mapped(corpus: Corpus) -> None:
    """An Anthropic `mcp_tool_listing` block has no case in the response mapping, which asserts every other block
    is a `tool_use` (pydantic_ai/models/anthropic/__init__.py:2448-2449 at 2.68.0)."""
    frameworks.importorskip("pydantic_ai.models.anthropic")
    result = run_scenario(ADAPTER, corpus.scenarios["anthropic-messages/mcp-tool-listing"], corpus)
    assert result.outcome == "error", result.summary
    assert "BetaMCPToolListingBlock" in result.summary


def test_gemini_3_takes_code_execution_beside_function_tools(corpus: Corpus) -> None:
    """Only a "modern" Gemini profile allows built-in tools beside function tools (pydantic_ai/profiles/google.py:297,
    pydantic_ai/models/google.py:1060-1063 at 2.68.0), as the API itself does (Gemini 2.5 answers the combination
    with a 400, symfony/ai#803). The scenario names a Gemini 3 model: the request is sent and the case passes."""
    _passes(corpus, "gemini/code-execution-beside-call", "pydantic_ai.models.google")


@pytest.mark.parametrize(
    ("scenario_id", "reason"),
    [
        ("openai-responses/program-calls-functions", "no native tool for the Responses built-in programmatic_tool"),
        ("openai-responses/shell-then-apply-patch", "no native tool for the Responses built-in shell"),
        ("anthropic-messages/programmatic-tool-calling", "cannot declare allowed_callers on the tool 'query_sales'"),
        ("anthropic-messages/toolset-member-call", "no native tool for Anthropic's browser_toolset_20260801"),
        ("openai-responses/mcp-approval-flow", "require_approval 'never'"),
        ("openai-responses/tool-search-then-call", "gives gpt-5.1 no native tool search"),
    ],
)
def test_what_pydantic_ai_cannot_declare_stays_a_skip(corpus: Corpus, scenario_id: str, reason: str) -> None:
    """The client says what the framework lacks, rather than leaving the tool out for the replay to name."""
    frameworks.importorskip("pydantic_ai.models.openai")
    result = run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)
    assert result.outcome == "skip"
    assert result.summary.startswith("the client declares: ")
    assert reason in result.summary


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/from-anthropic",  # a Claude history continued on OpenAI Chat: ModelMessages, provider-neutral
        "anthropic-messages/from-gemini-idless",  # id-less Gemini calls restored under the framework's minted ids
        "openai-chat/session-memory-window",  # three runs, each continuing all_messages() of the one before
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # a restored history
    ],
)
def test_the_agent_continues_conversations(corpus: Corpus, scenario_id: str) -> None:
    _passes(corpus, scenario_id, "pydantic_ai.models.openai")


@pytest.mark.parametrize(
    ("scenario_id", "model_module"),
    [
        ("anthropic-messages/session-repair-interrupted", "pydantic_ai.models.anthropic"),
        ("openai-chat/session-repair-interrupted", "pydantic_ai.models.openai"),
    ],
)
def test_a_run_cut_off_in_a_tool_is_continued_from_its_captured_messages(
    corpus: Corpus, scenario_id: str, model_module: str
) -> None:
    """The cut-off run raises out of the agent; the next run continues what `capture_run_messages` kept, and
    the framework closes the unanswered call itself before the provider sees it."""
    _passes(corpus, scenario_id, model_module)
