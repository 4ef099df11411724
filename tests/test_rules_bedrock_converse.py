"""Bedrock Converse rules: a buggy codec trips each, the reference codec on the same scenario does not."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus
from conformance.engine.neutral import Message, ToolCallPart, ToolResultPart
from conformance.reference import ADAPTER as REFERENCE
from conformance.reference.bedrock_converse import BedrockConverseCodec, _Block
from conformance.running.runner import run_scenario

API = "bedrock-converse"


def adapter(codec: BedrockConverseCodec) -> CodecAdapter:
    return CodecAdapter(name="buggy", version="0", codecs={API: codec})


class ForeignIdsVerbatim(BedrockConverseCodec):
    """Ids from a history begun on another API go to Bedrock as they are, whatever their grammar."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"]


class RandomIdsForForeignCalls(BedrockConverseCodec):
    """Foreign ids are replaced by a fresh tooluse_<uuid4> on every encode, so replays never match."""

    def encode(self, conversation: Any) -> dict[str, Any]:
        self.fresh: dict[str | None, str] = {}
        return super().encode(conversation)

    def call_id(self, part: ToolCallPart) -> str | None:
        if str(part.get("wire_type", "")).startswith(f"{API}/"):
            return super().call_id(part)
        self.fresh[part["call_id"]] = f"tooluse_{uuid.uuid4().hex}"
        return self.fresh[part["call_id"]]

    def result_id(self, part: ToolResultPart) -> str | None:
        return self.fresh.get(part["call_id"]) or super().result_id(part)


class ToolConfigOffOnceCalled(BedrockConverseCodec):
    """toolConfig is left off every request after the first."""

    def encode(self, conversation: Any) -> dict[str, Any]:
        body = super().encode(conversation)
        if len(body["messages"]) > 1:
            body.pop("toolConfig", None)
        return body


class ResultPerUserMessage(BedrockConverseCodec):
    """Each tool result becomes its own user message, the OpenAI tool-message shape carried over."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        if message["role"] != "tool":
            return super().encode_message(message)
        return [
            {"role": "user", "content": [self.encode_result(p)]} for p in message["parts"] if p["type"] == "tool_result"
        ]

    def append(self, messages: list[dict[str, Any]], encoded: dict[str, Any]) -> None:
        messages.append(encoded)


class ResultsKeyedByName(BedrockConverseCodec):
    """Results are collected in a dict keyed by tool name, so a second call to one tool overwrites the first's."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        if message["role"] != "tool":
            return super().encode_message(message)
        by_name = {p.get("name"): p for p in message["parts"] if p["type"] == "tool_result"}
        return [{"role": "user", "content": [self.encode_result(p) for p in by_name.values()]}]


class ResultsByPosition(BedrockConverseCodec):
    """Results take the toolUseIds of the previous turn's calls in order, whatever call they answer."""

    def encode(self, conversation: Any) -> dict[str, Any]:
        body = super().encode(conversation)
        pending: list[str] = []
        for message in body["messages"]:
            blocks = message["content"]
            if message["role"] == "assistant":
                pending = [b["toolUse"]["toolUseId"] for b in blocks if "toolUse" in b]
            for block in blocks:
                if "toolResult" in block and pending:
                    block["toolResult"]["toolUseId"] = pending.pop(0)
        return body


class StreamIdFromDelta(BedrockConverseCodec):
    """The toolUseId is looked for on contentBlockDelta, as OpenAI streams put it on a delta; only the start has it."""

    def accumulate(self, name: Any, data: dict[str, Any], blocks: dict[int, _Block]) -> None:
        super().accumulate(name, data, blocks)
        index = data.get("contentBlockIndex")
        if isinstance(index, int) and index in blocks and blocks[index].kind == "toolUse":
            delta = (data.get("delta") or {}).get("toolUse") or {}
            blocks[index].call_id = delta.get("toolUseId")


class StreamDeltasJoinedWithoutIndex(BedrockConverseCodec):
    """Tool input deltas are joined into the one open call, ignoring contentBlockIndex, so parallel calls merge."""

    def accumulate(self, name: Any, data: dict[str, Any], blocks: dict[int, _Block]) -> None:
        tool = "toolUse" in (data.get("start") or {}) or "toolUse" in (data.get("delta") or {})
        if tool and name == "contentBlockStart" and -1 in blocks:
            return  # the call already open keeps going
        super().accumulate(name, {**data, "contentBlockIndex": -1} if tool else data, blocks)


CASES = [
    ("format/tools-undeclared", ToolConfigOffOnceCalled(), "bedrock-converse/one-call"),
    ("format/id-pattern", ForeignIdsVerbatim(), "bedrock-converse/from-openai-chat"),
    ("format/id-length", ForeignIdsVerbatim(), "bedrock-converse/from-openai-chat"),
    ("encode/unstable-id", RandomIdsForForeignCalls(), "bedrock-converse/from-openai-chat"),
    ("pairing/not-adjacent", ResultPerUserMessage(), "bedrock-converse/parallel-different-tools"),
    ("pairing/missing-result", ResultsKeyedByName(), "bedrock-converse/parallel-same-tool"),
    ("pairing/by-position", ResultsByPosition(), "bedrock-converse/parallel-results-reversed"),
    ("stream/id-lost", StreamIdFromDelta(), "bedrock-converse/streamed-parallel-calls"),
    ("stream/calls-merged", StreamDeltasJoinedWithoutIndex(), "bedrock-converse/streamed-parallel-calls"),
]


@pytest.mark.parametrize(("code", "codec", "scenario_id"), CASES, ids=[f"{c[0]}-{type(c[1]).__name__}" for c in CASES])
def test_buggy_codec_trips_rule_and_reference_does_not(code, codec, scenario_id, corpus: Corpus) -> None:
    scenario = corpus.scenarios[scenario_id]
    buggy = run_scenario(adapter(codec), scenario, corpus)
    assert code in {v.code for v in buggy.violations}, buggy.violations
    reference = run_scenario(REFERENCE, scenario, corpus)
    assert reference.outcome == "pass"
    assert reference.violations == []


def test_foreign_ids_are_flagged_on_the_call_and_on_its_result(corpus: Corpus) -> None:
    result = run_scenario(adapter(ForeignIdsVerbatim()), corpus.scenarios["bedrock-converse/from-openai-chat"], corpus)
    found = {(v.code, v.location.split(".", 1)[1]) for v in result.violations}
    gemini_call = "messages[3].content[0].toolUse.toolUseId"
    gemini_result = "messages[4].content[0].toolResult.toolUseId"
    kimi_call = "messages[5].content[0].toolUse.toolUseId"
    assert {("format/id-length", gemini_call), ("format/id-length", gemini_result)} <= found
    assert ("format/id-pattern", gemini_call) in found
    # Kimi's functions.NAME:INDEX fits toolUseId, [a-zA-Z0-9_.:-]+ since botocore 1.42.81 (2026-04-02).
    assert not any(kimi_call in v.location for v in result.violations if v.code.startswith("format/"))
    # OpenAI's own id already fits toolUseId: passing it through is not a fault.
    assert not any("messages[1]" in v.location for v in result.violations)


def test_split_results_quote_bedrocks_error(corpus: Corpus) -> None:
    result = run_scenario(
        adapter(ResultPerUserMessage()), corpus.scenarios["bedrock-converse/parallel-different-tools"], corpus
    )
    late = [v for v in result.violations if v.code == "pairing/not-adjacent"]
    assert len(late) == 1 and late[0].location == "request[1].messages[3].content[0].toolResult.toolUseId"
    assert (late[0].provider_error or "").startswith("Expected toolResult blocks at messages.2.content")


def test_merged_stream_calls_name_both_ids(corpus: Corpus) -> None:
    scenario = corpus.scenarios["bedrock-converse/streamed-parallel-calls"]
    result = run_scenario(adapter(StreamDeltasJoinedWithoutIndex()), scenario, corpus)
    merged = next(v for v in result.violations if v.code == "stream/calls-merged")
    assert merged.expected == [c.id for c in scenario.turns[0].calls]
