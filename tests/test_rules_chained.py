"""Chained cross-provider mode: a history begun on another API is decoded by the adapter's own codec
for that API, and what its decoder put into the ids is what the other API's encoder is given.

The same encoders pass when the history is built from the scenario file (the adapter has no codec
for the history's API): only chained mode shows what the decoder does to the ids.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus
from conformance.engine.neutral import ToolCallPart, ToolResultPart
from conformance.reference import ADAPTER as REFERENCE
from conformance.reference.anthropic_messages import AnthropicMessagesCodec
from conformance.reference.bedrock_converse import BedrockConverseCodec
from conformance.reference.gemini import SIGNATURE, GeminiCodec
from conformance.reference.openai_chat import OpenAIChatCodec
from conformance.reference.openai_responses import Kind, OpenAIResponsesCodec
from conformance.running.runner import run_scenario


class SignatureInId(GeminiCodec):
    """The thought signature rides inside the call id, so that Chat-shaped clients carry it back
    (LiteLLM #16895: call_<id>__thought__<signature>)."""

    def decode_call(self, part: dict[str, Any]) -> ToolCallPart:
        decoded = super().decode_call(part)
        signature = (decoded.get("extra") or {}).get(SIGNATURE)
        if signature:
            decoded["call_id"] = f"call_{decoded['call_id']}__thought__{signature}"
        return decoded


class CompositeResponsesId(OpenAIResponsesCodec):
    """Both ids of a function_call kept as one, call_id|item_id (pi's Responses ids)."""

    def decode_call(self, item: dict[str, Any], kind: Kind) -> ToolCallPart:
        decoded = super().decode_call(item, kind)
        if item.get("id") and item.get("call_id"):
            decoded["call_id"] = f"{item['call_id']}|{item['id']}"
        return decoded


class AnthropicIdsAsStored(AnthropicMessagesCodec):
    """Stored ids go out as they are, whichever API issued them."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"]


class BedrockIdsAsStored(BedrockConverseCodec):
    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"]


class ResponsesIdsAsStored(OpenAIResponsesCodec):
    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"]


class ChatIdsAsStored(OpenAIChatCodec):
    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"]


def chained(scenario: Any, target: Any, source: Any) -> CodecAdapter:
    """The target API's codec and the history API's, as one adapter."""
    return CodecAdapter(name="buggy", version="0", codecs={scenario.api: target, scenario.history.api: source})


CASES = [
    ("format/id-pattern", AnthropicIdsAsStored(), SignatureInId(), "anthropic-messages/from-gemini-signed"),
    ("format/id-length", BedrockIdsAsStored(), SignatureInId(), "bedrock-converse/from-gemini-signed"),
    ("format/id-pattern", BedrockIdsAsStored(), SignatureInId(), "bedrock-converse/from-gemini-signed"),
    ("format/id-length", ResponsesIdsAsStored(), SignatureInId(), "openai-responses/from-gemini-signed"),
    ("format/id-length", ChatIdsAsStored(), CompositeResponsesId(), "openai-chat/from-openai-responses"),
    ("format/id-pattern", AnthropicIdsAsStored(), CompositeResponsesId(), "anthropic-messages/from-openai-responses"),
]


@pytest.mark.parametrize(
    ("code", "target", "source", "scenario_id"),
    CASES,
    ids=[f"{c[0]}-{type(c[2]).__name__}-{c[3]}" for c in CASES],
)
def test_what_the_decoder_puts_in_ids_reaches_the_other_apis_encoder(
    code: str, target: Any, source: Any, scenario_id: str, corpus: Corpus
) -> None:
    scenario = corpus.scenarios[scenario_id]
    result = run_scenario(chained(scenario, target, source), scenario, corpus)
    assert code in {v.code for v in result.errors}, result.violations
    # Without a codec for the history's API the history comes from the scenario file: clean ids.
    alone = run_scenario(CodecAdapter(name="target-only", version="0", codecs={scenario.api: target}), scenario, corpus)
    assert code not in {v.code for v in alone.violations}, alone.violations
    reference = run_scenario(REFERENCE, scenario, corpus, profile="strict")
    assert reference.outcome == "pass" and reference.violations == []


def test_the_history_decoder_is_checked_against_its_own_wire(corpus: Corpus) -> None:
    class NameAsId(GeminiCodec):
        def decode_call(self, part: dict[str, Any]) -> ToolCallPart:
            decoded = super().decode_call(part)
            decoded["call_id"] = decoded["name"]
            return decoded

    scenario = corpus.scenarios["anthropic-messages/from-gemini-signed"]
    result = run_scenario(chained(scenario, AnthropicMessagesCodec(), NameAsId()), scenario, corpus)
    mismatched = [v for v in result.violations if v.code == "decode/id-mismatch"]
    assert mismatched and all(v.location.startswith("history.response[0]") for v in mismatched)


def test_every_cross_provider_scenario_names_its_history_cassette(corpus: Corpus) -> None:
    # A recorded scenario's history is the recording's own (no cassette of the other API's responses).
    crossing = [s for s in corpus.scenarios.values() if s.history is not None and not s.recorded]
    assert crossing and all(s.history and s.history.cassette for s in crossing)
    assert all(corpus.find_cassette(s.history.cassette).is_file() for s in crossing if s.history and s.history.cassette)


def test_a_gemini_history_with_signatures_goes_to_anthropic_responses_and_bedrock(corpus: Corpus) -> None:
    targets = {
        s.api
        for s in corpus.scenarios.values()
        if s.history
        and s.history.api == "gemini"
        and any(c.extra.get(SIGNATURE) for t in s.history.turns for c in t.calls)
    }
    assert {"anthropic-messages", "openai-responses", "bedrock-converse"} <= targets
