"""Semantic Kernel as a client adapter: what it passes, and its confirmed findings (semantic-kernel 1.45.0)."""

from __future__ import annotations

import frameworks
import pytest

from conformance.clients.semantic_kernel import ADAPTER
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import run_scenario

frameworks.importorskip("semantic_kernel.agents", reason="the Semantic Kernel client adapter drives semantic-kernel")


def _run(corpus: Corpus, scenario_id: str) -> CaseResult:
    return run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)


@pytest.mark.parametrize(
    ("scenario_id", "declared"),
    [
        ("openai-chat/one-call", "tools-get_weather"),
        ("anthropic-messages/one-call", "tools-get_weather"),
        ("gemini/one-call", "tools__get_weather"),
        ("openai-responses/one-call", "tools-get_weather"),
    ],
)
def test_a_plugin_function_is_declared_under_its_qualified_name(
    corpus: Corpus, scenario_id: str, declared: str
) -> None:
    """Every kernel function belongs to a plugin, and the connectors declare it under
    `KernelFunctionMetadata.fully_qualified_name` (`semantic_kernel/connectors/ai/function_calling_utils.py:49`,
    `:68`; Gemini's `custom_fully_qualified_name("__")`, `google_ai/services/utils.py:165`): the provider
    calls `tools-get_weather` for that request, and the replay serves the recorded turn so, judged."""
    result = _run(corpus, scenario_id)
    assert f"get_weather as {declared}" in result.summary
    if scenario_id.startswith("gemini/"):
        # SK4: the call goes back as `tools-get_weather` (FunctionCallContent.name,
        # google_ai/services/utils.py:107-110), its result as `tools__get_weather` (:136-139).
        assert result.outcome == "fail" and "roundtrip/name-altered" in {v.code for v in result.errors}
    else:
        assert result.outcome == "pass", result.summary


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # a restored ChatHistory, continued
        "ollama-chat/recorded/openllmetry-ollama-chat-tool-calls",
        "bedrock-converse/recorded/openinference-converse-stream-tool-response",
        "openai-chat/recorded/magentic-chatprompt-function-call-and-result",
        "gemini/recorded/otel-vertexai-tool-events",  # id-less Gemini calls under their saved names
        "openai-chat/recorded/mirascope-resume-from-gemini",  # ...given the ids the Google connector mints
    ],
)
def test_semantic_kernel_continues_conversations(corpus: Corpus, scenario_id: str) -> None:
    result = _run(corpus, scenario_id)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.errors])


def test_anthropic_thinking_before_a_call_is_never_asked_for_nor_served(generated_corpus: Corpus) -> None:
    """SK8 (generated): AnthropicChatCompletion reads a stream's text events and tool_use blocks only
    (connectors/ai/anthropic/services/anthropic_chat_completion.py:294-309), and `_format_assistant_message`
    writes text and tool_use blocks (connectors/ai/anthropic/services/utils.py:39-85): the thinking is lost."""
    result = _run(generated_corpus, "anthropic-messages/generated-e68523d6a5")
    # Nor can the library turn thinking on: its request asks for none, so it is served the turn without the
    # thinking, as the provider would answer it, and judged on that.
    assert result.outcome == "pass", result.summary
    assert "without the thinking the request did not ask for" in result.summary


def test_bedrock_results_of_one_turn_go_in_separate_messages(corpus: Corpus) -> None:
    """Each function result is a tool message of its own (`semantic_kernel/kernel.py:459-461`), and the Bedrock
    connector makes each one a user message (`connectors/ai/bedrock/services/model_provider/utils.py:119-156`):
    the second result does not follow the turn that called it."""
    result = _run(corpus, "bedrock-converse/from-gemini-signed")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"pairing/not-adjacent"}


def test_another_providers_ids_go_to_anthropic_unchanged(corpus: Corpus) -> None:
    """A Kimi history on Anthropic: `functions.get_weather:0` goes out as the tool_use id."""
    result = _run(corpus, "anthropic-messages/from-kimi")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"format/id-pattern"}


def test_what_semantic_kernel_has_no_service_for_is_a_skip(corpus: Corpus) -> None:
    assert _run(corpus, "cohere-v2/one-call").outcome == "skip"
    result = _run(corpus, "openai-responses/from-gemini-idless")
    assert result.outcome == "skip" and "ResponsesAgentThread" in result.summary


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-responses/recorded/mirascope-web-search-tool",
        "openai-responses/recorded/mirascope-web-search-tool-stream",
        "openai-responses/recorded/openllmetry-agents-web-search-tool",  # web_search_preview, as recorded
        "openai-responses/recorded/logfire-openai-agents-file-search",
    ],
)
def test_the_responses_agent_declares_the_provider_tools_as_recorded(corpus: Corpus, scenario_id: str) -> None:
    """`OpenAIResponsesAgent(tools=...)` sends Responses tool definitions beside the plugin's functions."""
    result = _run(corpus, scenario_id)
    assert result.outcome == "pass", result.summary


@pytest.mark.parametrize(
    ("scenario_id", "codes"),
    [
        # The hosted tools' items never reach the thread's history (`_collect_items_from_output`).
        ("openai-responses/hosted-tools-in-history", {"roundtrip/call-lost"}),
        # The program item is dropped, and the call goes back as {type, call_id, name, arguments}: no caller.
        ("openai-responses/program-calls-functions", {"roundtrip/call-lost", "roundtrip/opaque-dropped"}),
    ],
)
def test_the_responses_agent_loses_the_provider_tool_items(corpus: Corpus, scenario_id: str, codes: set[str]) -> None:
    result = _run(corpus, scenario_id)
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == codes


@pytest.mark.parametrize(
    ("scenario_id", "limit"),
    [
        ("anthropic-messages/web-search-beside-client-call", "AnthropicChatCompletion sends the kernel's functions"),
        ("anthropic-messages/mcp-tool-listing", "cannot declare the provider tool mcp_toolset"),
        ("gemini/server-tool-beside-call", "`update_settings_from_function_choice_configuration`"),
        ("openai-responses/computer-use", "configure_computer_use_tool raises NotImplementedError"),
        ("openai-responses/shell-then-apply-patch", "cannot run the built-in tool shell"),
        ("openai-responses/tool-search-then-call", "`_get_tool_calls_from_output`"),
        ("openai-responses/mcp-approval-flow", "no answer to the MCP tool's approval requests"),
    ],
)
def test_a_provider_tool_semantic_kernel_cannot_declare_is_a_skip_naming_its_limit(
    corpus: Corpus, scenario_id: str, limit: str
) -> None:
    result = _run(corpus, scenario_id)
    assert result.outcome == "skip", result.summary
    assert result.summary.startswith("the client declares: ") and limit in result.summary
