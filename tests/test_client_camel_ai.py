"""CAMEL as a client adapter: scenarios it passes, and its confirmed findings (camel-ai 0.2.90)."""

from __future__ import annotations

import frameworks
import pytest

from conformance.clients.camel_ai import ADAPTER
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import run_scenario

frameworks.importorskip("camel.agents", reason="the CAMEL client adapter drives camel-ai")


def _run(corpus: Corpus, scenario_id: str) -> CaseResult:
    return run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/parallel-results-reversed",  # OpenAIModel, not streamed
        "openai-chat/streamed-parallel-calls",
        "kimi-chat/streamed-parallel-calls",  # MoonshotModel keeps `functions.get_weather:0` ids
        "bedrock-converse/three-turn-chain",  # AWSBedrockConverseModel
        "mistral-chat/parallel-same-tool",  # MistralModel
        "mistral-chat/streamed-parallel-calls",  # MistralModel does not stream: answered unstreamed
        "anthropic-messages/one-call",
    ],
)
def test_camel_passes(corpus: Corpus, scenario_id: str) -> None:
    result = _run(corpus, scenario_id)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.errors])


def test_anthropic_results_of_one_turn_go_in_separate_messages(corpus: Corpus) -> None:
    """Each tool message becomes a user message of its own (`camel/models/anthropic_model.py:320-337`), so
    the second call's result does not follow the turn that called it."""
    result = _run(corpus, "anthropic-messages/parallel-same-tool")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"pairing/not-adjacent"}


def test_responses_chaining_sends_the_stored_calls_again(corpus: Corpus) -> None:
    """With `previous_response_id`, the input is the memory's messages after the count saved before the
    response (`camel/models/openai_model.py:590-604`), which includes the model's own function calls: they
    are sent a second time, beside the stored response that holds them."""
    result = _run(corpus, "openai-responses/one-call")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"pairing/duplicate-call-id", "pairing/missing-result"}


def test_bedrock_reasoning_before_a_call_is_never_asked_for_nor_served(generated_corpus: Corpus) -> None:
    """CA11 (generated): the Converse backend turns a stream's `text` and `toolUse` deltas into OpenAI chunks
    and nothing else (camel/models/aws_bedrock_converse_model.py:769-805): the reasoningContent before the
    call is not sent back."""
    result = _run(generated_corpus, "bedrock-converse/generated-6b96da511a")
    # Nor can the library turn thinking on: its request asks for none, so it is served the turn without the
    # thinking, as the provider would answer it, and judged on that.
    assert result.outcome == "pass", result.summary
    assert "without the thinking the request did not ask for" in result.summary


def test_cohere_results_lose_their_call_ids(corpus: Corpus) -> None:
    """The Cohere backend takes a result's id from a legacy `function_call` only
    (`camel/models/cohere_model.py:202-231`); the agent's memory holds `tool_calls`, so the `ToolChatMessageV2`
    is built with `tool_call_id=None` and pydantic refuses it before any request with results is sent."""
    result = _run(corpus, "cohere-v2/one-call")
    assert result.outcome == "error", result.summary
    assert "ToolChatMessageV2" in result.summary


def test_an_anthropic_stream_without_input_tokens_raises(corpus: Corpus) -> None:
    """`message_delta` usage without `input_tokens` is added as None (`camel/models/anthropic_model.py:594-601`)."""
    result = _run(corpus, "anthropic-messages/recorded/openllmetry-tools-streaming")
    assert result.outcome == "error", result.summary
    assert "TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'" in result.summary


def test_camel_continues_a_session(corpus: Corpus) -> None:
    """Three runs, each a step of the same agent on its memory."""
    result = _run(corpus, "openai-chat/session-memory-window")
    assert result.outcome == "pass", result.summary


def test_what_camel_cannot_do_is_a_skip(corpus: Corpus) -> None:
    result = _run(corpus, "openai-chat/recorded/openllmetry-chat-tool-calls-history")
    assert result.outcome == "skip" and "stepped on a user message" in result.summary
    assert _run(corpus, "gemini/one-call").outcome == "skip"
    assert _run(corpus, "ollama-chat/one-call").outcome == "skip"


def test_a_tool_declared_without_properties_is_given_the_empty_ones_camel_generates() -> None:
    """CAMEL's schema check reads `parameters["properties"]` (`camel/toolkits/function_tool.py:781`); a tool
    recorded as `{type: object}` (the OpenLLMetry and Magentic recordings) is declared with an empty one."""
    from types import SimpleNamespace

    from conformance.clients.camel_ai import _tools

    loop = SimpleNamespace(tools=[{"name": "get_current_weather", "parameters": {"type": "object"}}], server_tools=[])
    (tool,) = _tools(loop)  # type: ignore[arg-type]
    assert tool.get_function_name() == "get_current_weather"
    assert tool.get_openai_tool_schema()["function"]["parameters"] == {"type": "object", "properties": {}}


@pytest.mark.parametrize(
    ("scenario_id", "limit"),
    [
        ("anthropic-messages/web-search-beside-client-call", "_convert_openai_tools_to_anthropic"),
        ("anthropic-messages/mcp-tool-listing", "cannot declare the provider tool mcp_toolset"),
        ("openai-responses/recorded/mirascope-web-search-tool", "ChatAgent._get_full_tool_schemas"),
        ("openai-responses/computer-use", "cannot declare the provider tool computer_use_preview"),
    ],
)
def test_a_provider_tool_is_a_skip_naming_camels_function_tools_only(
    corpus: Corpus, scenario_id: str, limit: str
) -> None:
    result = _run(corpus, scenario_id)
    assert result.outcome == "skip", result.summary
    assert result.summary.startswith("the client declares: ") and limit in result.summary
