"""DSPy as a client adapter: what ReActV2 with native function calling sends, and its confirmed findings
(dspy 3.4.1)."""

from __future__ import annotations

import frameworks
import pytest

from conformance.clients.dspy import ADAPTER
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import run_scenario

frameworks.importorskip("dspy", reason="the DSPy client adapter drives dspy")


def _run(corpus: Corpus, scenario_id: str) -> CaseResult:
    return run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)


@pytest.mark.parametrize(
    ("scenario_id", "forced"),
    [
        ("openai-chat/one-call", False),
        ("anthropic-messages/parallel-same-tool", True),
        ("openai-responses/one-call", False),  # model_type="responses"
        ("openai-chat/streamed-parallel-calls", True),  # dspy.streamify
    ],
)
def test_a_text_answer_is_asked_again_for_submit(corpus: Corpus, scenario_id: str, forced: bool) -> None:
    """Every request up to the model's text answer is correct (no violation), ids and results included; a
    turn without tool calls ends the loop as `empty_tool_calls` (dspy/predict/react_v2.py:150-152) and
    ReActV2 asks once more for its `submit` tool (`_forced_submit`, :269-285), a request past the
    conversation's end. Where that request forces the tool (`tool_choice` naming `submit`), the provider
    would call it and the conversation ends there, judged; where the `tool_choice` it configured does not
    reach the request, it is the client asking again after the final answer."""
    result = _run(corpus, scenario_id)
    assert result.errors == []
    if forced:
        assert result.outcome == "pass", result.summary
        assert "the client asked again, forcing a tool call" in result.summary
    else:
        assert result.outcome == "fail", result.summary
        assert "asked again after the final answer" in result.summary


@pytest.mark.parametrize(
    "scenario_id", ["anthropic-messages/generated-e68523d6a5", "bedrock-converse/generated-6b96da511a"]
)
def test_the_thinking_before_a_call_is_dropped(generated_corpus: Corpus, scenario_id: str) -> None:
    """D6 (generated): an LM output keeps the reasoning's text alone (dspy/clients/base_lm.py:352-353), and
    ReActV2's history holds a turn's inputs, `next_thought` and calls (dspy/predict/react_v2.py:255-267), each
    an id, a name and arguments (dspy/adapters/types/tool.py:285-288): the thinking and its signature are lost."""
    result = _run(generated_corpus, scenario_id)
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"roundtrip/opaque-dropped"}


def test_a_model_the_catalog_does_not_know_gets_no_tools(corpus: Corpus) -> None:
    """Native function calling is used only where the model catalog says the model supports it
    (dspy/adapters/base.py:105, `lm.supports_function_calling`, through `litellm.supports_function_calling`,
    dspy/clients/capabilities.py:114); otherwise the tools are dropped from the request (base.py:117-119) and
    described in the prompt text. Kimi's `kimi-k2-0905-preview` is not in the catalog."""
    result = _run(corpus, "kimi-chat/one-call")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"format/tools-dropped"}


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-responses/from-gemini-idless",  # a Gemini history without ids, as ReActV2's History
        "openai-chat/session-memory-window",  # three runs, each continuing the History the last returned
    ],
)
def test_dspy_continues_conversations(corpus: Corpus, scenario_id: str) -> None:
    """The restored History and every run's requests are correct; only the asked-again request is not."""
    result = _run(corpus, scenario_id)
    assert result.outcome == "fail", result.summary
    assert result.errors == []
    assert "asked again after the final answer" in result.summary
    assert "never requested" not in result.summary
