"""Precision: what a correct history, or a fault already reported under its own code, must not add.

Each test pins one spurious code that failing cases used to show beside the real one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from buggy import adapter

from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus, ExpectedCall, ExpectedTurn
from conformance.engine.neutral import Conversation, ToolResultPart
from conformance.engine.rules.diagnose import diagnose
from conformance.reference import ADAPTER as REFERENCE
from conformance.reference.openai_chat import OpenAIChatCodec
from conformance.reference.openai_responses import OpenAIResponsesCodec
from conformance.running.runner import run_scenario

CASES: list[tuple[str, Any, str]] = []  # no new codes here: see the tests below


class FirstResultIdDropped(OpenAIChatCodec):
    """The first tool message of a turn goes out without tool_call_id."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        body = super().encode(conversation)
        previous: dict[str, Any] = {}
        for message in body["messages"]:
            if message["role"] == "tool" and previous.get("role") != "tool":
                message.pop("tool_call_id")
            previous = message
        return body


class ResponsesOutputIdDropped(OpenAIResponsesCodec):
    """function_call_output items go out without call_id."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        body = super().encode(conversation)
        for item in body["input"]:
            if item.get("type") == "function_call_output":
                item.pop("call_id", None)
        return body


class AllCallsThenAllOutputs(OpenAIResponsesCodec):
    """Every call item of the history first, then every output item: a valid Responses order,
    since an output may sit anywhere after its call."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        body = super().encode(conversation)
        items = body["input"]
        calls = [i for i in items if i.get("type") == "function_call"]
        outputs = [i for i in items if i.get("type") == "function_call_output"]
        rest = [i for i in items if i not in calls and i not in outputs]
        body["input"] = [*rest, *calls, *outputs]
        return body


class IdRepeatedPerDelta(OpenAIChatCodec):
    """The stream accumulator appends the id as every other string field, so an id that two
    deltas carry is sent back twice over."""

    def call_id(self, part: Any) -> str | None:
        return f"{part['call_id']}{part['call_id']}"

    def result_id(self, part: ToolResultPart) -> str | None:
        return f"{part['call_id']}{part['call_id']}"


def _codes(result: Any) -> set[str]:
    return {v.code for v in result.violations}


def test_a_chat_result_without_its_required_id_is_an_orphan_not_a_count(corpus: Corpus) -> None:
    result = run_scenario(adapter(FirstResultIdDropped()), corpus.scenarios["openai-chat/parallel-same-tool"], corpus)
    assert "pairing/orphan-result" in _codes(result)
    assert "pairing/count-mismatch" not in _codes(result)


def test_a_responses_output_without_call_id_is_an_orphan_not_a_count(corpus: Corpus) -> None:
    codec = ResponsesOutputIdDropped()
    scenario = corpus.scenarios["openai-responses/parallel-results-reversed"]
    result = run_scenario(CodecAdapter(name="b", version="0", codecs={codec.api: codec}), scenario, corpus)
    assert "pairing/orphan-result" in _codes(result)
    assert "pairing/count-mismatch" not in _codes(result)


def test_all_calls_then_all_outputs_is_a_valid_responses_history(corpus: Corpus) -> None:
    codec = AllCallsThenAllOutputs()
    scenario = corpus.scenarios["openai-responses/three-turn-chain"]
    result = run_scenario(CodecAdapter(name="b", version="0", codecs={codec.api: codec}), scenario, corpus)
    assert result.violations == []


def test_an_empty_canned_output_is_not_in_every_result(corpus: Corpus) -> None:
    """A tool that returns nothing beside one that answers: a placeholder in both results is the
    output lost twice, not the empty output of the other call sent by position."""
    from buggy import PlaceholderOutputs

    scenario = corpus.scenarios["openai-chat/parallel-results-reversed"]
    first, second = scenario.turns[0].calls
    emptied = dataclasses.replace(
        scenario, turns=(ExpectedTurn((dataclasses.replace(first, output=""), second), None), *scenario.turns[1:])
    )
    assert run_scenario(REFERENCE, emptied, corpus).violations == []
    result = run_scenario(adapter(PlaceholderOutputs(OpenAIChatCodec())), emptied, corpus)  # type: ignore[arg-type]
    assert "pairing/by-position" not in _codes(result)
    assert [v.code for v in result.violations].count("pairing/output-lost") == 2


def test_two_concatenated_ids_are_not_called_re_prefixed(corpus: Corpus) -> None:
    slug, _ = diagnose("call_abc123call_abc123", "call_abc123", call_name="f", tool_names=(), outputs=(), other_ids=())
    assert slug == "concatenated"
    slug, _ = diagnose(
        "call_abc123call_def456", "call_abc123", call_name="f", tool_names=(), outputs=(), other_ids={"call_def456"}
    )
    assert slug == "concatenated"
    slug, _ = diagnose("toolu_abc123", "call_abc123", call_name="f", tool_names=(), outputs=(), other_ids=())
    assert slug == "re-prefixed"
    result = run_scenario(adapter(IdRepeatedPerDelta()), corpus.scenarios["openai-chat/one-call"], corpus)
    altered = [v for v in result.violations if v.code == "roundtrip/id-altered"]
    assert altered and {v.diagnosis for v in altered} == {"concatenated"}


def test_an_expected_call_is_found_by_its_arguments_whatever_their_key_order(corpus: Corpus) -> None:
    from conformance.engine.dialects import dialect_for
    from conformance.engine.rules.context import CheckContext
    from conformance.engine.wire import WireCall

    call = ExpectedCall(id=None, name="f", arguments={"a": 1, "b": [1, 2]}, output="x", wire_type=None)
    ctx = CheckContext(corpus=corpus, dialect=dialect_for("gemini"), expected_calls=(call,))
    wire = WireCall(call_id=None, name="f", arguments='{"b": [1,2], "a": 1}', wire_type="gemini/FunctionCall", path="p")
    assert ctx.expected_for(wire) is call


@pytest.mark.parametrize("api", ["openai-chat", "anthropic-messages", "openai-responses", "bedrock-converse"])
def test_a_call_no_response_served_is_reported_but_not_the_history_a_conversation_began_with(
    api: str, corpus: Corpus
) -> None:
    from buggy import CallInserted

    scenario = corpus.scenarios[f"{api}/one-call"]
    buggy = CodecAdapter(name="buggy", version="0", codecs={api: CallInserted(REFERENCE.codec(api))})
    result = run_scenario(buggy, scenario, corpus)
    invented = [v for v in result.violations if v.code == "roundtrip/call-invented"]
    assert len(invented) == 1 and invented[0].severity == "warning" and result.outcome == "pass"
    assert run_scenario(buggy, scenario, corpus, profile="strict").outcome == "fail"
    # A history begun elsewhere is the first request's: no response of this exchange served it either.
    chained = corpus.scenarios["gemini/cross-provider-from-openai-chat"]
    assert run_scenario(REFERENCE, chained, corpus, profile="strict").violations == []


def test_identical_calls_of_one_turn_may_take_each_other_s_output(corpus: Corpus) -> None:
    """Two calls of one name and arguments in one turn ask the tool the same thing: a library running them
    concurrently cannot tell which answer is whose (Genkit Go's tools are not told the call's id), so a
    result carrying its twin's output is no positional pairing. Calls that differ still are."""
    from buggy import OutputsRotated

    scenario = corpus.scenarios["openai-chat/parallel-results-reversed"]
    first, second = scenario.turns[0].calls
    twin = dataclasses.replace(second, name=first.name, arguments=first.arguments)
    identical = dataclasses.replace(scenario, turns=(ExpectedTurn((first, twin), None), *scenario.turns[1:]))
    rotated = adapter(OutputsRotated(OpenAIChatCodec()))  # type: ignore[arg-type]
    assert "pairing/by-position" not in _codes(run_scenario(rotated, identical, corpus))
    assert "pairing/by-position" in _codes(run_scenario(rotated, scenario, corpus))
