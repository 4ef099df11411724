"""Stream shapes real servers emit: the reference reassembles each, and a reassembler written for
the one shape OpenAI sends fails the way the linked projects did.

The scenarios are cases/scenarios/*/streamed-*.yaml with a `stream_shape`, each citing the server
that streams so.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus
from conformance.engine.neutral import Message
from conformance.reference import ADAPTER as REFERENCE
from conformance.reference.azure_foundry import AzureFoundryCodec
from conformance.reference.openai_chat import OpenAIChatCodec, _Pending
from conformance.reference.openai_responses import OpenAIResponsesCodec
from conformance.running.runner import run_scenario


class IdsAppended(OpenAIChatCodec):
    """Every string field of a delta is appended to what its index holds, the id included
    (openai-python's accumulate_delta for keys other than index and type)."""

    def accumulate(self, entry: dict[str, Any], by_index: dict[int, _Pending], calls: list[_Pending]) -> None:
        pending = by_index.get(entry.get("index", 0))
        before = pending.call_id if pending else None
        super().accumulate(entry, by_index, calls)
        pending = by_index[entry.get("index", 0)]
        if before and entry.get("id"):
            pending.call_id = before + entry["id"]


class EveryIdOpensACall(OpenAIChatCodec):
    """A delta that carries an id opens a new call (Koog before #2052)."""

    def accumulate(self, entry: dict[str, Any], by_index: dict[int, _Pending], calls: list[_Pending]) -> None:
        if entry.get("id") is not None:
            by_index.pop(entry.get("index", 0), None)
        super().accumulate(entry, by_index, calls)
        pending = by_index[entry.get("index", 0)]
        if pending.name is None and len(calls) > 1:
            pending.name = calls[-2].name


class LastIdKept(OpenAIChatCodec):
    """`delta.id ?? current.id`: an empty string is not nullish, so it replaces the id (opencode before #40969)."""

    def accumulate(self, entry: dict[str, Any], by_index: dict[int, _Pending], calls: list[_Pending]) -> None:
        super().accumulate(entry, by_index, calls)
        if entry.get("id") is not None:
            by_index[entry.get("index", 0)].call_id = entry["id"]


class MissingIdLeftEmpty(OpenAIChatCodec):
    """A call streamed without an id keeps an empty one, on the call and on its result (aionrs before #99)."""

    def decode(self, response: dict[str, Any]) -> Message:
        message = super().decode(response)
        for part in message["parts"]:
            if part["type"] == "tool_call" and not part["call_id"]:
                part["call_id"] = ""
        return message

    def call_id(self, part: Any) -> str | None:
        return part["call_id"] if part["call_id"] == "" else super().call_id(part)

    def result_id(self, part: Any) -> str | None:
        return part["call_id"] if part["call_id"] == "" else super().result_id(part)


class FragmentsToLatestCall(OpenAIChatCodec):
    """A fragment without an id goes to the call opened last, whatever its index (Continue's
    applyToolCallDelta, Qwen-Agent before #943)."""

    def accumulate(self, entry: dict[str, Any], by_index: dict[int, _Pending], calls: list[_Pending]) -> None:
        if entry.get("id") or not calls:
            super().accumulate(entry, by_index, calls)
            return
        arguments = (entry.get("function") or {}).get("arguments")
        if arguments:
            calls[-1].arguments.append(arguments)


class IndexAsPosition(OpenAIChatCodec):
    """The index is taken as the call's position in the message: the list is padded up to it, so
    calls numbered from 1 leave an empty call at position 0."""

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        message = super().decode_stream(events)
        indices = [
            entry.get("index", 0)
            for event in events
            for choice in (event.get("data") or {}).get("choices") or []
            for entry in (choice.get("delta") or {}).get("tool_calls") or []
        ]
        padding = min(indices, default=0)
        calls = [p for p in message["parts"] if p["type"] == "tool_call"]
        other = [p for p in message["parts"] if p["type"] != "tool_call"]
        empty: list[Any] = [
            {"type": "tool_call", "call_id": None, "name": "", "arguments": {}, "wire_type": self.call_type}
        ] * padding
        message["parts"] = [*other, *empty, *calls]
        return message


class NameOnlyFromOpeningDelta(OpenAIChatCodec):
    """The name is read from the delta that opens a call, and a call left without one is dropped when
    the stream ends (the Vercel AI SDK's first fix for #14722, #14725)."""

    def accumulate(self, entry: dict[str, Any], by_index: dict[int, _Pending], calls: list[_Pending]) -> None:
        opening = entry.get("index", 0) not in by_index
        super().accumulate(entry, by_index, calls)
        if opening and not (entry.get("function") or {}).get("name"):
            by_index[entry.get("index", 0)].name = ""

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        message = super().decode_stream(events)
        message["parts"] = [p for p in message["parts"] if p["type"] != "tool_call" or p["name"]]
        return message


class _OutputIndexAsCallPosition:
    """Argument deltas are applied to the function call at the position their output_index names
    among the calls opened so far, as a bridge to Chat's tool_calls[].index does; the done items are
    not read. With a reasoning item at output_index 0 every delta lands on no call or the wrong one."""

    decode_items: Any

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        calls: list[dict[str, Any]] = []
        others: list[dict[str, Any]] = []
        for event in events:
            data = event.get("data") or {}
            kind = data.get("type")
            item = data.get("item") or {}
            if kind == "response.output_item.added":
                (calls if item.get("type") == "function_call" else others).append(dict(item))
            elif kind == "response.function_call_arguments.delta":
                index = data.get("output_index", 0)
                if index < len(calls):
                    calls[index]["arguments"] = calls[index].get("arguments", "") + data.get("delta", "")
            elif kind == "response.output_item.done" and item.get("type") == "message":
                others = [o for o in others if o.get("id") != item.get("id")] + [item]
        return self.decode_items([*others, *calls])


class OutputIndexAsCallPosition(_OutputIndexAsCallPosition, OpenAIResponsesCodec):
    """The bridge in front of OpenAI Responses."""


class FoundryOutputIndexAsCallPosition(_OutputIndexAsCallPosition, AzureFoundryCodec):
    """The same bridge in front of a Foundry agent."""


def _fragments_misjoined(api: str) -> Any:
    from buggy import FragmentsMisjoined

    return FragmentsMisjoined(REFERENCE.codec(api))


CASES = [
    ("decode/id-mismatch", IdsAppended(), "openai-chat/streamed-id-on-every-delta"),
    ("roundtrip/id-altered", IdsAppended(), "openai-chat/streamed-id-on-every-delta"),
    ("stream/call-split", EveryIdOpensACall(), "openai-chat/streamed-id-on-every-delta"),
    ("stream/call-split", EveryIdOpensACall(), "openai-chat/streamed-empty-ids-after-first"),
    ("stream/id-lost", LastIdKept(), "openai-chat/streamed-empty-ids-after-first"),
    ("roundtrip/empty-id", MissingIdLeftEmpty(), "openai-chat/streamed-calls-without-ids"),
    ("pairing/orphan-result", MissingIdLeftEmpty(), "openai-chat/streamed-calls-without-ids"),
    ("stream/arguments-garbled", FragmentsToLatestCall(), "openai-chat/streamed-interleaved-parallel-calls"),
    ("roundtrip/arguments-altered", FragmentsToLatestCall(), "openai-chat/streamed-interleaved-parallel-calls"),
    ("stream/call-split", IndexAsPosition(), "openai-chat/streamed-indices-from-one"),
    ("decode/call-missing", NameOnlyFromOpeningDelta(), "openai-chat/streamed-name-after-arguments"),
    ("roundtrip/call-lost", NameOnlyFromOpeningDelta(), "openai-chat/streamed-name-after-arguments"),
    (
        "stream/arguments-garbled",
        OutputIndexAsCallPosition(),
        "openai-responses/streamed-reasoning-then-parallel-calls",
    ),
    (
        "stream/arguments-garbled",
        FoundryOutputIndexAsCallPosition(),
        "azure-foundry/streamed-parallel-function-calls",
    ),
    *[
        ("stream/arguments-garbled", _fragments_misjoined(api), f"{api}/streamed-arguments-in-many-fragments")
        for api in ("anthropic-messages", "bedrock-converse", "cohere-v2", "kimi-chat")
    ],
]


def _adapter(codec: Any, api: str) -> CodecAdapter:
    return CodecAdapter(name="buggy", version="0", codecs={api: codec})


@pytest.mark.parametrize(
    ("code", "codec", "scenario_id"), CASES, ids=[f"{c[0]}-{type(c[1]).__name__}-{c[2]}" for c in CASES]
)
def test_buggy_codec_trips_rule_and_reference_does_not(code: str, codec: Any, scenario_id: str, corpus: Corpus) -> None:
    scenario = corpus.scenarios[scenario_id]
    buggy = run_scenario(_adapter(codec, scenario.api), scenario, corpus)
    assert code in {v.code for v in buggy.violations}, buggy.violations
    reference = run_scenario(REFERENCE, scenario, corpus, profile="strict")
    assert reference.outcome == "pass", reference.summary
    assert reference.violations == []


def test_ids_appended_delta_by_delta_are_diagnosed_as_concatenated(corpus: Corpus) -> None:
    scenario = corpus.scenarios["openai-chat/streamed-id-on-every-delta"]
    result = run_scenario(_adapter(IdsAppended(), "openai-chat"), scenario, corpus)
    altered = [v for v in result.violations if v.code == "roundtrip/id-altered"]
    assert altered and {v.diagnosis for v in altered} == {"concatenated"}


def test_a_call_served_without_an_id_is_minted_one_and_that_is_no_invented_id(corpus: Corpus) -> None:
    scenario = corpus.scenarios["openai-chat/streamed-calls-without-ids"]
    result = run_scenario(REFERENCE, scenario, corpus, profile="strict")
    assert result.violations == []
    # Where the API lets a call go back without an id, an id the wire never had is still invented.
    gemini = run_scenario(REFERENCE, corpus.scenarios["gemini/parallel-same-tool-idless"], corpus, profile="strict")
    assert gemini.violations == []


@pytest.mark.parametrize("scenario_id", sorted(s for s in {c[2] for c in CASES}))
def test_the_served_stream_has_the_shape_its_scenario_names(scenario_id: str, corpus: Corpus) -> None:
    """The dialect reads the declared calls out of each shaped stream, ids and arguments included."""
    from conformance.engine.dialects import dialect_for
    from conformance.engine.rules.context import arguments_value
    from conformance.recordings.cassette import load_cassette

    scenario = corpus.scenarios[scenario_id]
    cassette = load_cassette(corpus.cassette_path(scenario))
    served = dialect_for(scenario.api).served(next(iter(cassette)).response)
    declared = scenario.turns[0].calls
    assert [(c.call_id, c.name, arguments_value(c.arguments)) for c in served.calls] == [
        (d.id, d.name, dict(d.arguments)) for d in declared
    ]
