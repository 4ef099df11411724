"""Every rule: a buggy codec trips it, the reference codec on the same scenario does not."""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path
from typing import Any

import pytest
from buggy import (
    CallInserted,
    CallsDropped,
    CallTypeDropped,
    ConstantCallId,
    DecodeEmptyIds,
    DecodeFirstOnly,
    DecodeFreshUuid,
    DecodeRenamed,
    DecodeSameId,
    EmptyIds,
    FirstCallOnly,
    FreshIdsPerEncode,
    LongPrefix,
    NarrationBeforeResults,
    NoResults,
    OneMessagePerCall,
    ResultIdMangled,
    ResultsByPosition,
    ResultsTwice,
    SessionUniqueIds,
    StreamCallsDropped,
    StreamEveryDeltaNewCall,
    StreamIdDropped,
    ToolsDropped,
    adapter,
)

from conformance.corpus.loading import Corpus, Limit
from conformance.engine.violations import CODES
from conformance.reference import ADAPTER as REFERENCE
from conformance.reproductions.genkit import NameAsId, SingleStreamedCall
from conformance.running.runner import run_scenario

CASES = [
    ("pairing/orphan-result", ResultIdMangled(), "openai-chat/one-call"),
    ("pairing/missing-result", NoResults(), "openai-chat/one-call"),
    ("pairing/missing-result", ResultIdMangled(), "openai-chat/parallel-different-tools"),
    ("pairing/duplicate-call-id", ConstantCallId(), "openai-chat/parallel-same-tool"),
    ("pairing/duplicate-result", ResultsTwice(), "openai-chat/one-call"),
    ("pairing/call-dropped", CallsDropped(), "openai-chat/three-turn-chain"),
    ("pairing/by-position", ResultsByPosition(), "openai-chat/parallel-results-reversed"),
    ("pairing/not-adjacent", NarrationBeforeResults(), "openai-chat/parallel-different-tools"),
    ("encode/unstable-id", FreshIdsPerEncode(), "openai-chat/three-turn-chain"),
    ("roundtrip/id-altered", NameAsId(), "openai-chat/three-turn-chain"),
    ("roundtrip/empty-id", EmptyIds(), "openai-chat/one-call"),
    ("roundtrip/call-lost", FirstCallOnly(), "openai-chat/parallel-different-tools"),
    ("roundtrip/call-invented", CallInserted(REFERENCE.codec("openai-chat")), "openai-chat/one-call"),
    ("format/id-length", LongPrefix(), "openai-chat/one-call"),
    ("format/item-invalid", CallTypeDropped(), "openai-chat/one-call"),
    ("decode/empty-id", DecodeEmptyIds(), "openai-chat/one-call"),
    ("decode/id-mismatch", DecodeRenamed(), "openai-chat/parallel-same-tool"),
    ("decode/duplicate-id", DecodeSameId(), "openai-chat/parallel-same-tool"),
    ("decode/call-missing", DecodeFirstOnly(), "openai-chat/parallel-different-tools"),
    ("decode/unstable-id", DecodeFreshUuid(), "openai-chat/one-call"),
    ("stream/id-lost", StreamIdDropped(), "openai-chat/streamed-parallel-calls"),
    ("stream/calls-merged", SingleStreamedCall(), "openai-chat/streamed-parallel-calls"),
    ("decode/call-missing", StreamCallsDropped(), "openai-chat/streamed-parallel-calls"),
    ("format/tools-dropped", ToolsDropped(), "openai-chat/one-call"),
    ("stream/call-split", StreamEveryDeltaNewCall(), "openai-chat/streamed-parallel-calls"),
]


@pytest.mark.parametrize(("code", "codec", "scenario_id"), CASES, ids=[f"{c[0]}-{type(c[1]).__name__}" for c in CASES])
def test_buggy_codec_trips_rule_and_reference_does_not(code, codec, scenario_id, corpus: Corpus) -> None:
    scenario = corpus.scenarios[scenario_id]
    buggy = run_scenario(adapter(codec), scenario, corpus)
    assert code in {v.code for v in buggy.violations}, buggy.violations
    reference = run_scenario(REFERENCE, scenario, corpus)
    assert reference.outcome == "pass"
    assert reference.violations == []


def test_every_code_has_a_buggy_codec() -> None:
    # Each API's rule tests live in tests/test_rules_<api>.py with a CASES list of the same shape.
    # id-pattern: see the test below; calls-unanswered is a client's (tests/test_client_connector.py)
    covered = {c[0] for c in CASES} | {"format/id-pattern", "pairing/calls-unanswered"}
    for path in sorted(Path(__file__).parent.glob("test_rules_*.py")):
        covered |= {c[0] for c in importlib.import_module(path.stem).CASES}
    assert covered == set(CODES)


def test_a_stream_whose_calls_were_all_dropped_is_not_said_to_be_merged(corpus: Corpus) -> None:
    result = run_scenario(
        adapter(StreamCallsDropped()), corpus.scenarios["openai-chat/streamed-parallel-calls"], corpus
    )
    assert "stream/calls-merged" not in {v.code for v in result.violations}
    [missing] = [v for v in result.violations if v.code == "decode/call-missing"]
    assert "dropped every one" in missing.message and "merged" in missing.message


def test_pattern_limit_applies_to_ids_sent(corpus: Corpus) -> None:
    """openai-chat documents no id pattern; the rule is driven by case data, so give it one."""
    wire_type = corpus.wire_types["openai-chat/ChatCompletionMessageToolCall"]
    field = wire_type.id_fields[0]
    limit = Limit(None, None, r"call_[A-Za-z0-9]+", "2026-01-01", True, "https://example.invalid/limit")
    patched = dataclasses.replace(wire_type, id_fields=(dataclasses.replace(field, limits=(*field.limits, limit)),))
    patched_corpus = dataclasses.replace(corpus, wire_types={**corpus.wire_types, wire_type.id: patched})
    scenario = corpus.scenarios["openai-chat/one-call"]
    buggy = run_scenario(adapter(LongPrefix()), scenario, patched_corpus)
    assert "format/id-pattern" in {v.code for v in buggy.violations}
    assert run_scenario(REFERENCE, scenario, patched_corpus).violations == []


def test_unstable_ids_are_a_warning_by_default_and_an_error_when_strict(corpus: Corpus) -> None:
    scenario = corpus.scenarios["openai-chat/one-call"]
    default = run_scenario(adapter(DecodeFreshUuid()), scenario, corpus)
    strict = run_scenario(adapter(DecodeFreshUuid()), scenario, corpus, profile="strict")
    severities = {v.code: v.severity for v in default.violations}
    assert severities["decode/unstable-id"] == "warning"
    assert {v.code: v.severity for v in strict.violations}["decode/unstable-id"] == "error"


def test_name_as_id_is_diagnosed_on_the_call_and_its_result(corpus: Corpus) -> None:
    result = run_scenario(adapter(NameAsId()), corpus.scenarios["openai-chat/one-call"], corpus)
    altered = [v for v in result.violations if v.code == "roundtrip/id-altered"]
    assert {v.location for v in altered} == {
        "request[1].messages[1].tool_calls[0].id",
        "request[1].messages[2].tool_call_id",
    }
    for v in altered:
        assert v.diagnosis == "equals-tool-name"
        assert v.received == "get_weather"
        assert v.expected == "call_Vq3XbR0LkS8mJ2tN6yPw4cDe"
    assert result.diff and "get_weather" in result.diff


def test_positional_pairing_names_the_swapped_output(corpus: Corpus) -> None:
    result = run_scenario(
        adapter(ResultsByPosition()), corpus.scenarios["openai-chat/parallel-results-reversed"], corpus
    )
    swapped = [v for v in result.violations if v.code == "pairing/by-position"]
    assert len(swapped) == 2
    assert all("carries the output of" in v.message for v in swapped)


def test_a_violation_repeated_in_later_requests_is_reported_once(corpus: Corpus) -> None:
    result = run_scenario(adapter(NameAsId()), corpus.scenarios["openai-chat/three-turn-chain"], corpus)
    first_call = [v for v in result.violations if v.expected == "call_Rt8YwN3kAq6ZeX1cVb4Lm7Ps"]
    assert len(first_call) == 2  # the call and its result, each once
    assert any(v.related for v in first_call)  # request[2] repeats them


def test_an_orphan_result_says_what_its_id_looks_like(corpus: Corpus) -> None:
    from buggy import OutputAsResultId

    result = run_scenario(adapter(OutputAsResultId()), corpus.scenarios["openai-chat/one-call"], corpus)
    orphans = [v for v in result.violations if v.code == "pairing/orphan-result"]
    assert len(orphans) == 1 and "the id is the tool's output text" in orphans[0].message
    assert "pairing/missing-result" in {v.code for v in result.violations}


def test_ids_minted_afresh_per_encode_are_an_error_by_default(corpus: Corpus) -> None:
    """Silent at the provider, but every turn's prompt changes and the prompt cache never hits."""
    scenario = corpus.scenarios["openai-chat/three-turn-chain"]
    result = run_scenario(adapter(FreshIdsPerEncode()), scenario, corpus)
    unstable = [v for v in result.violations if v.code == "encode/unstable-id"]
    assert unstable and {v.severity for v in unstable} == {"error"}
    assert result.outcome == "fail"


def test_a_call_sent_back_without_its_type_is_refused_as_the_provider_does(corpus: Corpus) -> None:
    result = run_scenario(adapter(CallTypeDropped()), corpus.scenarios["openai-chat/one-call"], corpus)
    (invalid,) = [v for v in result.violations if v.code == "format/item-invalid"]
    assert invalid.location == "request[1].messages[1].tool_calls[0].type"
    assert invalid.provider_error == "Missing required parameter: 'messages[2].tool_calls[0].type'."
    assert "'messages[1].tool_calls[0].type'" in result.quotes[result.violations.index(invalid)].text


@pytest.mark.parametrize(
    ("api", "drop"),
    [
        ("openai-responses", ("function_call", "arguments")),
        ("anthropic-messages", ("tool_use", "input")),
        ("anthropic-messages", ("tool_use", "name")),
        ("openai-responses", ("function_call_output", "output")),
        ("bedrock-converse", ("toolUse", "input")),
        ("bedrock-converse", ("toolResult", "content")),
        ("mistral-chat", ("function", "arguments")),
        ("ollama-chat", ("function", "arguments")),
    ],
)
def test_every_sent_item_is_held_to_its_apis_request_type(api: str, drop: tuple[str, str], corpus: Corpus) -> None:
    """`kind` names the item by its `type`, or by the key that holds it (Bedrock's blocks, Mistral's function)."""
    from conformance.connectors.contract import CodecAdapter

    kind, field = drop
    reference = REFERENCE.codec(api)

    class Dropping:
        def decode(self, response: Any) -> Any:
            return reference.decode(response)

        def encode(self, conversation: Any) -> Any:
            body = reference.encode(conversation)
            for item in _items(body):
                if item.get("type") == kind:
                    item.pop(field, None)
                held = item.get(kind)
                if isinstance(held, dict) and item.get("type") != kind:
                    held.pop(field, None)
                for call in item.get("tool_calls") or ():
                    if isinstance(call.get(kind), dict):
                        call[kind].pop(field, None)
            return body

    scenario = corpus.scenarios[f"{api}/one-call"]
    result = run_scenario(CodecAdapter(name="b", version="0", codecs={api: Dropping()}), scenario, corpus)
    invalid = [v for v in result.violations if v.code == "format/item-invalid"]
    assert invalid and all(v.location.endswith(f".{field}") for v in invalid), result.violations


def test_the_function_call_output_request_type_takes_the_null_call_id_the_sdk_allows(corpus: Corpus) -> None:
    """openai-python types FunctionCallOutput.call_id Optional[str] (and the spec string|null): the
    request_schema taken from it must accept `call_id: null`."""
    import typing

    import jsonschema

    sdk = pytest.importorskip("openai.types.responses.response_input_item_param")
    assert type(None) in typing.get_args(typing.get_type_hints(sdk.FunctionCallOutput)["call_id"])
    schema = corpus.wire_types["openai-responses/FunctionToolCallOutput"].data["request_schema"]["schema"]
    jsonschema.validate({"type": "function_call_output", "call_id": None, "output": "21 C"}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"type": "function_call_output", "call_id": 7, "output": "21 C"}, schema)


def _items(body: Any) -> list[dict[str, Any]]:
    """Every object of a request body's messages or input items, their content blocks included."""
    found: list[dict[str, Any]] = []
    for entry in body.get("messages") or body.get("input") or []:
        if isinstance(entry, dict):
            found.append(entry)
            content = entry.get("content")
            if isinstance(content, list):
                found.extend(b for b in content if isinstance(b, dict))
    return found


def test_a_providers_id_reused_in_a_later_turn_goes_back_as_served(corpus: Corpus) -> None:
    """call_0 served in two turns: echoed in place it is no duplicate; made to collide by the client,
    or renamed away from what was served, it is the client's fault."""
    reused = corpus.scenarios["openai-chat/provider-reuses-id-across-turns"]
    assert run_scenario(REFERENCE, reused, corpus).violations == []
    collided = run_scenario(adapter(ConstantCallId()), corpus.scenarios["openai-chat/three-turn-chain"], corpus)
    assert "pairing/duplicate-call-id" in {v.code for v in collided.violations}
    renamed = run_scenario(adapter(SessionUniqueIds()), reused, corpus)
    assert {v.code for v in renamed.violations} == {"roundtrip/id-altered"}


def test_a_parallel_turn_sent_one_message_per_call_loses_no_call(corpus: Corpus) -> None:
    """Each call goes back in an assistant message of its own, its result after it: the calls are all
    there under their ids, so nothing is reported lost; one really left out still is."""
    scenario = corpus.scenarios["openai-chat/parallel-different-tools"]
    split = run_scenario(adapter(OneMessagePerCall()), scenario, corpus)
    assert split.outcome == "pass", split.violations
    dropped = run_scenario(adapter(FirstCallOnly()), scenario, corpus)
    assert "roundtrip/call-lost" in {v.code for v in dropped.violations}
