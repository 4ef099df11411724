"""smolagents as a client adapter: what its ToolCallingAgent sends back, and its confirmed findings
(smolagents 1.26.0)."""

from __future__ import annotations

import frameworks
import pytest

from conformance.clients.smolagents import ADAPTER
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import run_scenario

frameworks.importorskip("smolagents", reason="the smolagents client adapter drives smolagents")


def _run(corpus: Corpus, scenario_id: str) -> CaseResult:
    return run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/one-call",  # OpenAIModel
        "anthropic-messages/one-call",  # LiteLLMModel, anthropic/
        "gemini/one-call",  # LiteLLMModel, gemini/
        "openai-chat/streamed-parallel-calls",  # stream_outputs=True
    ],
)
def test_calls_go_back_as_text(corpus: Corpus, scenario_id: str) -> None:
    """The next request carries each call as the text "Calling tools: [...]" in an assistant message and its
    result as "Observation: ..." in a user message (`ActionStep.to_messages`, smolagents/memory.py:99-135,
    roles mapped by `tool_role_conversions`, models.py:282-285): no call and no result goes back under its id.
    The model classes force a tool call on every request (`tool_choice: "required"`, models.py:510), under
    which the recorded final text could not have been served, so the conversation ends there."""
    result = _run(corpus, scenario_id)
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"roundtrip/call-lost"}
    assert "forces a tool call" in result.summary


def test_a_session_runs_every_run_on_one_agent(corpus: Corpus) -> None:
    """`agent.run(prompt, reset=False)` for each later run: every run is requested (no interaction is left
    unrequested); the calls are lost as in every conversation."""
    result = _run(corpus, "openai-chat/session-memory-window")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"roundtrip/call-lost"}
    assert "never requested" not in result.summary


def test_amazon_bedrock_model_sends_openai_tools_to_converse(corpus: Corpus) -> None:
    """AmazonBedrockModel keeps the base class's OpenAI-form `tools` (models.py:540) and pops only `toolConfig`
    (models.py:1996), so boto3 refuses the `converse` call before it is sent."""
    result = _run(corpus, "bedrock-converse/one-call")
    assert result.outcome == "error", result.summary
    assert 'Unknown parameter in input: "tools"' in result.summary


def test_what_smolagents_cannot_run_is_a_skip(corpus: Corpus) -> None:
    result = _run(corpus, "openai-chat/recorded/openllmetry-chat-tool-calls-history")
    assert result.outcome == "skip" and "TaskStep" in result.summary
    result = _run(corpus, "bedrock-converse/streamed-parallel-calls")
    assert result.outcome == "skip" and "generate_stream" in result.summary
    assert _run(corpus, "openai-responses/one-call").outcome == "skip"
    # A scenario that declares a tool named `final_answer`: smolagents' own terminal tool takes the name.
    result = _run(corpus, "openai-chat/recorded/openinference-smolagents-tool-calling-agent")
    assert result.outcome == "skip" and "reserves the tool name 'final_answer'" in result.summary
