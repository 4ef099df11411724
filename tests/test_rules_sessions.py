"""Sessions: one history over several runs, each begun by the user's message.

A memory may forget earlier runs, but only a call with its results, never the current run's calls;
a stored session continues a response by its id and sends outputs without their calls; a run cut
off before a tool answered is repaired before the next one.
"""

from __future__ import annotations

from typing import Any

import pytest
from buggy import PlaceholderOutputs

from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus
from conformance.engine.neutral import Conversation, Message
from conformance.reference import ADAPTER as REFERENCE
from conformance.reference.anthropic_messages import AnthropicMessagesCodec
from conformance.reference.openai_chat import OpenAIChatCodec
from conformance.reference.openai_responses import OpenAIResponsesCodec
from conformance.running.runner import run_scenario

WINDOW = "openai-chat/session-memory-window"
STORED = "openai-responses/session-previous-response-id"
REPAIR = "anthropic-messages/session-repair-interrupted"


class MessageWindow(OpenAIChatCodec):
    """The last three messages and no more, counted without looking inside them (Spring AI #5940)."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        return super().encode({**conversation, "messages": conversation["messages"][-3:]})


class CurrentRunOnly(OpenAIChatCodec):
    """A memory of one run: everything before the user's latest message is forgotten, whole."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        messages = conversation["messages"]
        start = max(i for i, m in enumerate(messages) if m["role"] == "user")
        return super().encode({**conversation, "messages": messages[start:]})


class LastTwoMessages(OpenAIChatCodec):
    """A window of two messages: it cuts between runs, but also drops the current run's first call."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        messages = conversation["messages"]
        kept = messages[-2:]
        while kept and kept[0]["role"] == "tool":  # never a result without its call
            kept = kept[1:]
        return super().encode({**conversation, "messages": kept})


class ContinuationWithoutOutputs(OpenAIResponsesCodec):
    """A stored run continued without the outputs of the calls it stopped at (openai-agents-python #1061)."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        return [] if message["role"] == "tool" else super().encode_message(message)


class ContinuationOutputsUnderItemId(OpenAIResponsesCodec):
    """The continuation's outputs name the call's item id (fc_...) instead of its call_id."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        body = super().encode(conversation)
        items = {
            p["call_id"]: (p.get("extra") or {}).get("item_id")
            for m in conversation["messages"]
            for p in m["parts"]
            if p["type"] == "tool_call"
        }
        for item in body["input"]:
            if item.get("type") == "function_call_output" and items.get(item["call_id"]):
                item["call_id"] = items[item["call_id"]]
        return body


class NeverStores(OpenAIResponsesCodec):
    """The whole history every time, whatever the session keeps (store: false): as correct."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        return super().encode({**conversation, "store": False})


class NoRepair(AnthropicMessagesCodec):
    """The history goes as it was stored: the interrupted call without a result."""

    def repair(self, conversation: Conversation) -> Conversation:
        return conversation


class RepairAfterThePrompt(AnthropicMessagesCodec):
    """The placeholder result is written after the new run's prompt, in the same user message."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        body = super().encode(conversation)
        for message in body["messages"]:
            content = message["content"]
            if message["role"] == "user" and isinstance(content, list):
                message["content"] = [b for b in content if b["type"] != "tool_result"] + [
                    b for b in content if b["type"] == "tool_result"
                ]
        return body


class RepairByDroppingTheCall(AnthropicMessagesCodec):
    """The interrupted call is left out, with everything of it: a repair as correct as a placeholder."""

    def repair(self, conversation: Conversation) -> Conversation:
        messages: list[Message] = []
        for i, message in enumerate(conversation["messages"]):
            following = conversation["messages"][i + 1] if i + 1 < len(conversation["messages"]) else None
            unanswered = message["role"] == "assistant" and following is not None and following["role"] == "user"
            if unanswered and any(p["type"] == "tool_call" for p in message["parts"]):
                continue
            messages.append(message)
        return {**conversation, "messages": messages}


def _adapter(codec: Any, api: str) -> CodecAdapter:
    return CodecAdapter(name="buggy", version="0", codecs={api: codec})


CASES = [
    ("pairing/call-dropped", MessageWindow(), WINDOW),
    ("roundtrip/call-lost", MessageWindow(), WINDOW),
    ("roundtrip/call-lost", LastTwoMessages(), WINDOW),
    ("pairing/missing-result", ContinuationWithoutOutputs(), STORED),
    ("pairing/orphan-result", ContinuationOutputsUnderItemId(), STORED),
    ("pairing/output-lost", PlaceholderOutputs(OpenAIResponsesCodec()), STORED),
    ("pairing/missing-result", NoRepair(), REPAIR),
    ("pairing/not-adjacent", RepairAfterThePrompt(), REPAIR),
]


@pytest.mark.parametrize(("code", "codec", "scenario_id"), CASES, ids=[f"{c[0]}-{type(c[1]).__name__}" for c in CASES])
def test_buggy_codec_trips_rule_and_reference_does_not(code: str, codec: Any, scenario_id: str, corpus: Corpus) -> None:
    scenario = corpus.scenarios[scenario_id]
    buggy = run_scenario(_adapter(codec, scenario.api), scenario, corpus)
    assert code in {v.code for v in buggy.errors}, buggy.violations
    reference = run_scenario(REFERENCE, scenario, corpus, profile="strict")
    assert reference.outcome == "pass" and reference.violations == []


@pytest.mark.parametrize(
    ("codec", "scenario_id"),
    [(CurrentRunOnly(), WINDOW), (NeverStores(), STORED), (RepairByDroppingTheCall(), REPAIR)],
    ids=["a memory of the current run", "the whole history though stored", "the interrupted call left out"],
)
def test_what_a_session_may_legitimately_do_passes(codec: Any, scenario_id: str, corpus: Corpus) -> None:
    scenario = corpus.scenarios[scenario_id]
    result = run_scenario(_adapter(codec, scenario.api), scenario, corpus, profile="strict")
    assert result.violations == [], result.violations


def test_forgetting_the_current_runs_call_is_still_a_lost_call(corpus: Corpus) -> None:
    result = run_scenario(_adapter(LastTwoMessages(), "openai-chat"), corpus.scenarios[WINDOW], corpus)
    lost = [v for v in result.violations if v.code == "roundtrip/call-lost"]
    assert lost and all("call_Rk2Ye6Pa9Nf3Vu7Hz4Cq1Dm8" in v.message for v in lost)


def test_the_continuation_rule_quotes_the_provider(corpus: Corpus) -> None:
    result = run_scenario(_adapter(ContinuationWithoutOutputs(), "openai-responses"), corpus.scenarios[STORED], corpus)
    missing = [v for v in result.violations if v.code == "pairing/missing-result"]
    assert missing and "No tool output found for function call" in (missing[0].provider_error or "")
    assert missing[0].location == "request[1]"


def test_an_interrupted_call_is_not_answered_by_the_harness(corpus: Corpus) -> None:
    from conformance.connectors.codec import run_codec
    from conformance.engine.dialects import dialect_for
    from conformance.recordings.cassette import load_cassette

    scenario = corpus.scenarios[REPAIR]
    codec = NoRepair()
    exchange = run_codec(codec, scenario, load_cassette(corpus.cassette_path(scenario)), dialect_for(scenario.api))
    second = exchange.turns[1].request["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert second[2]["content"] == [{"type": "text", "text": scenario.turns[1].prompt}]
