"""Mirascope as a client adapter: scenarios it passes, and its confirmed findings (mirascope 2.8.2)."""

from __future__ import annotations

import frameworks
import pytest

from conformance.clients.mirascope import ADAPTER
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import run_scenario

frameworks.importorskip("mirascope.llm", reason="the Mirascope client adapter drives mirascope")


def _run(corpus: Corpus, scenario_id: str) -> CaseResult:
    return run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/parallel-results-reversed",  # OpenAICompletionsProvider, not streamed
        "kimi-chat/streamed-parallel-calls",  # keeps `functions.get_weather:0` ids
        "anthropic-messages/parallel-same-tool",
        "openai-responses/streamed-reasoning-then-parallel-calls",  # the raw output items sent back
        "gemini/parallel-same-tool-idless",  # Gemini calls without ids, answered by name
    ],
)
def test_mirascope_passes(corpus: Corpus, scenario_id: str) -> None:
    result = _run(corpus, scenario_id)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.errors])


@pytest.mark.parametrize(
    ("scenario_id", "missing"),
    [("openai-chat/streamed-calls-without-ids", "id"), ("openai-chat/streamed-name-after-arguments", "name")],
)
def test_a_streamed_call_without_an_id_or_a_first_name_raises(corpus: Corpus, scenario_id: str, missing: str) -> None:
    """The Chat Completions stream decoder opens a call from its first delta and raises when that delta has
    no id or no name (`mirascope/llm/providers/openai/completions/_utils/decode.py:209-220`)."""
    result = _run(corpus, scenario_id)
    assert result.outcome == "error", result.summary
    assert f"RuntimeError: Missing {missing} for tool call at index 0" in result.summary


def test_empty_ids_are_sent_back_as_served(corpus: Corpus) -> None:
    """Gemini's OpenAI-compatible `""` ids are kept (`completions/_utils/decode.py:95`, `id=tool_call.id`) and
    sent back on the calls and results (`completions/_utils/encode.py:174`, `:228`)."""
    result = _run(corpus, "openai-chat/gemini-compat-empty-ids")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"pairing/missing-result", "pairing/orphan-result", "roundtrip/empty-id"}


def test_streamed_anthropic_server_tool_blocks_are_dropped(corpus: Corpus) -> None:
    """The stream processor skips `server_tool_use` and `web_search_tool_result` blocks
    (`mirascope/llm/providers/anthropic/_utils/decode.py:222-223`), so the raw message sent back lacks them."""
    result = _run(corpus, "anthropic-messages/web-search-beside-client-call")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"roundtrip/call-lost"}


def test_a_web_search_call_goes_back_with_null_fields(corpus: Corpus) -> None:
    """Output items are kept as `model_dump()` with only the top level's `None` fields removed
    (`mirascope/llm/providers/openai/responses/_utils/decode.py:90`): the action's `queries: null` goes back."""
    result = _run(corpus, "openai-responses/hosted-tools-in-history")
    assert {v.code for v in result.errors} == {"roundtrip/arguments-altered"}
    (altered,) = result.errors
    assert altered.received == {"type": "search", "queries": None, "query": "Paris weather forecast today"}


def test_gemini_calls_without_ids_share_one_id_on_another_provider(corpus: Corpus) -> None:
    """Every Gemini call read without an id gets `google_unknown_tool_id`
    (`mirascope/llm/providers/google/_utils/decode.py:129`); the Anthropic encoder sends it as it is."""
    result = _run(corpus, "anthropic-messages/from-gemini-idless")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"pairing/duplicate-call-id"}


def test_a_run_cut_off_in_a_tool_is_resumed_without_a_result(corpus: Corpus) -> None:
    """`response.resume(prompt)` appends the new message to the response's messages as they are
    (`mirascope/llm/responses/response.py:86-104`): the unanswered call goes to the provider without a result."""
    result = _run(corpus, "anthropic-messages/session-repair-interrupted")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"pairing/missing-result"}


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # a restored history as the call's messages
        "openai-chat/session-memory-window",  # three runs, each resuming the last response
        "anthropic-messages/recorded/mirascope-resume-from-gemini",
        "gemini/recorded/otel-vertexai-tool-events",  # id-less calls restored as Mirascope reads them
    ],
)
def test_mirascope_continues_conversations(corpus: Corpus, scenario_id: str) -> None:
    result = _run(corpus, scenario_id)
    assert result.outcome == "pass", result.summary


def test_what_mirascope_cannot_declare_is_a_skip(corpus: Corpus) -> None:
    result = _run(corpus, "anthropic-messages/recorded/mirascope-structured-output-resume-tool")
    assert result.outcome == "skip" and "__mirascope_formatted_output_tool__" in result.summary
    result = _run(corpus, "openai-chat/custom-tool-call")
    assert result.outcome == "skip" and "custom tool" in result.summary
    assert _run(corpus, "bedrock-converse/one-call").outcome == "skip"


@pytest.mark.parametrize(
    "scenario_id",
    [
        "anthropic-messages/recorded/mirascope-web-search-tool",
        "openai-responses/recorded/mirascope-web-search-tool-stream",
        "gemini/server-tool-beside-call",  # WebSearchTool is Gemini's google_search
    ],
)
def test_a_recorded_web_search_is_declared_with_web_search_tool(corpus: Corpus, scenario_id: str) -> None:
    result = _run(corpus, scenario_id)
    assert result.outcome == "pass", result.summary


@pytest.mark.parametrize(
    ("scenario_id", "limit"),
    [
        ("anthropic-messages/code-execution-tools", "`convert_tool_to_tool_param`"),
        ("gemini/code-execution-beside-call", "`_convert_tool_to_function_declaration`"),
        ("openai-responses/computer-use", "cannot declare the provider tool computer_use_preview"),
        ("openai-responses/recorded/logfire-openai-agents-file-search", "responses/_utils/encode.py:264-273"),
    ],
)
def test_a_provider_tool_mirascope_has_no_class_for_is_a_skip_naming_its_converter(
    corpus: Corpus, scenario_id: str, limit: str
) -> None:
    result = _run(corpus, scenario_id)
    assert result.outcome == "skip", result.summary
    assert result.summary.startswith("the client declares: ")
    assert "WebSearchTool (mirascope/llm/tools/web_search_tool.py:9)" in result.summary and limit in result.summary
