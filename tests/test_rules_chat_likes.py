"""Rules on the Chat-Completions-like APIs (Mistral, Kimi, Ollama, Cohere v2): a buggy codec
trips the rule, the reference codec on the same scenario does not.

Each buggy codec overrides one step of the reference codec, the way a real adapter got it wrong.
"""

from __future__ import annotations

import random
import re
import string
from typing import Any

import pytest

from conformance.connectors.contract import Codec, CodecAdapter
from conformance.corpus.loading import Corpus
from conformance.engine.neutral import Conversation, Message, ToolCallPart, ToolResultPart
from conformance.reference import ADAPTER as REFERENCE
from conformance.reference.cohere_v2 import CohereV2Codec, _Pending
from conformance.reference.kimi_chat import KimiChatCodec
from conformance.reference.mistral_chat import MistralChatCodec
from conformance.reference.ollama_chat import OllamaChatCodec
from conformance.running.runner import run_scenario

# --- Mistral ------------------------------------------------------------------------------


class MistralIdsUnmapped(MistralChatCodec):
    """Ids from another provider's history are replayed as they are (toolu_ ids sent to Mistral, zed #53034)."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"]


class MistralRandomIds(MistralChatCodec):
    """Foreign ids are mapped to nine random alphanumerics, fresh at every encode."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        self.minted: dict[str | None, str] = {}
        return super().encode(conversation)

    def call_id(self, part: ToolCallPart) -> str | None:
        if str(part.get("wire_type", "")).startswith("mistral-chat/"):
            return super().call_id(part)
        alphabet = string.ascii_letters + string.digits
        return self.minted.setdefault(part["call_id"], "".join(random.choices(alphabet, k=9)))

    def result_id(self, part: ToolResultPart) -> str | None:
        return self.minted.get(part["call_id"]) or super().result_id(part)


class MistralTruncatedIds(MistralChatCodec):
    """Foreign ids lose their underscores and are cut to nine characters, so two Claude ids collide."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return str(part["call_id"]).replace("_", "")[:9]

    def result_id(self, part: ToolResultPart) -> str | None:
        return str(part["call_id"]).replace("_", "")[:9]


class MistralFirstCallOfDelta(MistralChatCodec):
    """Only delta.tool_calls[0] is read, though Mistral sends every call of a turn in one delta."""

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        trimmed = []
        for event in events:
            data = event.get("data") or {}
            choices = [
                {**c, "delta": {**c["delta"], "tool_calls": c["delta"]["tool_calls"][:1]}}
                if (c.get("delta") or {}).get("tool_calls")
                else c
                for c in data.get("choices") or []
            ]
            trimmed.append({**event, "data": {**data, "choices": choices}})
        return super().decode_stream(trimmed)


class MistralResultsByPosition(MistralChatCodec):
    """Results take the ids of the calls in call order, whatever call they answer."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        body = super().encode(conversation)
        pending: list[str] = []
        for message in body["messages"]:
            if message.get("tool_calls"):
                pending = [c["id"] for c in message["tool_calls"]]
            elif message["role"] == "tool" and pending:
                message["tool_call_id"] = pending.pop(0)
        return body


# --- Kimi ---------------------------------------------------------------------------------


class KimiIndexPerTurn(KimiChatCodec):
    """Kimi ids are re-minted as functions.NAME:POSITION with the position restarting every turn."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        self.renamed: dict[str, str] = {}
        return super().encode(conversation)

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        encoded = super().encode_message(message)
        for entry in encoded:
            for position, call in enumerate(entry.get("tool_calls") or []):
                new = f"functions.{call['function']['name']}:{position}"
                self.renamed[call["id"]] = new
                call["id"] = new
            if entry["role"] == "tool":
                entry["tool_call_id"] = self.renamed.get(entry["tool_call_id"], entry["tool_call_id"])
        return encoded


class KimiSanitisedIds(KimiChatCodec):
    """Ids are sanitised for other providers when stored and go back to Kimi as functions_get_weather_0 (exo #2281)."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return re.sub(r"[^A-Za-z0-9_-]", "_", str(part["call_id"]))

    def result_id(self, part: ToolResultPart) -> str | None:
        return re.sub(r"[^A-Za-z0-9_-]", "_", str(part["call_id"]))


class KimiIndexOnly(KimiChatCodec):
    """Kimi's `functions.NAME:INDEX` ids are taken for positions and go back as the index alone."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return str(part["call_id"]).rpartition(":")[2]

    def result_id(self, part: ToolResultPart) -> str | None:
        return str(part["call_id"]).rpartition(":")[2]


# --- Ollama -------------------------------------------------------------------------------


class OllamaLastChunkOnly(OllamaChatCodec):
    """Each NDJSON chunk's tool_calls replace the ones before, so only the last chunk's calls survive."""

    def decode(self, response: dict[str, Any]) -> Message:
        if response.get("stream"):
            with_calls = [
                e for e in response["events"] if ((e.get("data") or {}).get("message") or {}).get("tool_calls")
            ]
            response = {**response, "events": with_calls[-1:]}
        return super().decode(response)


class OllamaPythonDropsId(OllamaChatCodec):
    """Calls are parsed through ollama-python's Message.ToolCall, which has no id field (ollama-python #667)."""

    def decode_call(self, entry: dict[str, Any]) -> ToolCallPart:
        return super().decode_call({k: v for k, v in entry.items() if k != "id"})


class OllamaIndexIds(OllamaChatCodec):
    """Calls without an id get ollama_INDEX from function.index, which restarts every response (leviath #470)."""

    def decode_call(self, entry: dict[str, Any]) -> ToolCallPart:
        part = super().decode_call(entry)
        part["call_id"] = part["call_id"] or f"ollama_{entry['function'].get('index', 0)}"
        return part


class OllamaNameAsId(OllamaChatCodec):
    """The function name stands in for the missing call id (strands-agents #2050, agent-framework #6788)."""

    def decode_call(self, entry: dict[str, Any]) -> ToolCallPart:
        part = super().decode_call(entry)
        part["call_id"] = part["call_id"] or part["name"]
        return part


class OllamaResultsByName(OllamaChatCodec):
    """Results are kept in a dict keyed by tool name, so of two calls to one tool only the last is answered."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        encoded = super().encode_message(message)
        if message["role"] != "tool":
            return encoded
        return list({entry.get("tool_name"): entry for entry in encoded}.values())


# --- Cohere -------------------------------------------------------------------------------


class CohereEveryDeltaNewCall(CohereV2Codec):
    """Every tool-call-delta opens a call of its own, splitting one call's arguments."""

    def accumulate(self, kind: str, data: dict[str, Any], by_index: dict[int, _Pending], calls: list[_Pending]) -> None:
        super().accumulate("tool-call-start", data, by_index, calls)


class CohereIdFromEveryEvent(CohereV2Codec):
    """The id is read from every tool-call event, so deltas without one overwrite the start's."""

    def accumulate(self, kind: str, data: dict[str, Any], by_index: dict[int, _Pending], calls: list[_Pending]) -> None:
        super().accumulate(kind, data, by_index, calls)
        entry = ((data.get("delta") or {}).get("message") or {}).get("tool_calls") or {}
        by_index[data.get("index", 0)].call_id = entry.get("id")


CASES = [
    ("format/id-pattern", MistralIdsUnmapped(), "mistral-chat/from-anthropic"),
    ("format/id-length", MistralIdsUnmapped(), "mistral-chat/from-anthropic"),
    ("encode/unstable-id", MistralRandomIds(), "mistral-chat/from-anthropic"),
    ("pairing/duplicate-call-id", MistralTruncatedIds(), "mistral-chat/from-anthropic"),
    ("stream/calls-merged", MistralFirstCallOfDelta(), "mistral-chat/streamed-parallel-calls"),
    ("pairing/by-position", MistralResultsByPosition(), "mistral-chat/parallel-results-reversed"),
    ("pairing/duplicate-call-id", KimiIndexPerTurn(), "kimi-chat/index-continues-across-turns"),
    ("roundtrip/id-altered", KimiIndexPerTurn(), "kimi-chat/index-continues-across-turns"),
    ("roundtrip/id-altered", KimiSanitisedIds(), "kimi-chat/one-call"),
    ("stream/calls-merged", OllamaLastChunkOnly(), "ollama-chat/streamed-parallel-calls"),
    ("stream/id-lost", OllamaPythonDropsId(), "ollama-chat/streamed-parallel-calls"),
    ("decode/empty-id", OllamaPythonDropsId(), "ollama-chat/one-call"),
    ("roundtrip/empty-id", OllamaPythonDropsId(), "ollama-chat/parallel-same-tool"),
    ("roundtrip/invented-id", OllamaIndexIds(), "ollama-chat/id-less-parallel-same-tool"),
    ("pairing/duplicate-call-id", OllamaIndexIds(), "ollama-chat/id-less-chain"),
    ("decode/duplicate-id", OllamaNameAsId(), "ollama-chat/id-less-parallel-same-tool"),
    ("pairing/count-mismatch", OllamaResultsByName(), "ollama-chat/id-less-parallel-same-tool"),
    ("stream/call-split", CohereEveryDeltaNewCall(), "cohere-v2/streamed-parallel-calls"),
    ("stream/id-lost", CohereIdFromEveryEvent(), "cohere-v2/streamed-parallel-calls"),
]


def _adapter(codec: Codec, api: str) -> CodecAdapter:
    return CodecAdapter(name="buggy", version="0", codecs={api: codec})


@pytest.mark.parametrize(("code", "codec", "scenario_id"), CASES, ids=[f"{c[0]}-{type(c[1]).__name__}" for c in CASES])
def test_buggy_codec_trips_rule_and_reference_does_not(
    code: str, codec: Codec, scenario_id: str, corpus: Corpus
) -> None:
    scenario = corpus.scenarios[scenario_id]
    buggy = run_scenario(_adapter(codec, scenario.api), scenario, corpus)
    assert code in {v.code for v in buggy.violations}, buggy.violations
    reference = run_scenario(REFERENCE, scenario, corpus)
    assert reference.outcome == "pass"
    assert reference.violations == []


def test_mistral_rejection_text_is_quoted_for_a_toolu_id(corpus: Corpus) -> None:
    scenario = corpus.scenarios["mistral-chat/from-anthropic"]
    result = run_scenario(_adapter(MistralIdsUnmapped(), "mistral-chat"), scenario, corpus)
    pattern = [v for v in result.violations if v.code == "format/id-pattern"]
    assert pattern and all("must be a-z, A-Z, 0-9, with a length of 9" in (v.provider_error or "") for v in pattern)


def test_foreign_ids_map_to_distinct_stable_mistral_ids(corpus: Corpus) -> None:
    history = corpus.scenarios["mistral-chat/from-anthropic"].history
    assert history is not None
    conversation: Conversation = {
        "api": "mistral-chat",
        "model": "mistral-large-latest",
        "stream": False,
        "tools": [],
        "messages": [
            {
                "role": "assistant",
                "parts": [
                    {"type": "tool_call", "call_id": c.id, "name": c.name, "arguments": {}, "wire_type": "x/Call"}
                    for c in history.turns[0].calls
                ],
            }
        ],
    }
    first = MistralChatCodec().encode(conversation)["messages"][0]["tool_calls"]
    again = MistralChatCodec().encode(conversation)["messages"][0]["tool_calls"]
    ids = [c["id"] for c in first]
    assert ids == [c["id"] for c in again]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"[a-zA-Z0-9]{9}", i) for i in ids)


def test_id_less_ollama_results_name_their_tool_and_carry_no_id(corpus: Corpus) -> None:
    scenario = corpus.scenarios["ollama-chat/id-less-parallel-same-tool"]
    assert run_scenario(REFERENCE, scenario, corpus).violations == []
    codec = OllamaChatCodec()
    body = codec.encode(
        {
            "api": "ollama-chat",
            "model": scenario.model,
            "stream": False,
            "tools": [],
            "messages": [
                {
                    "role": "tool",
                    "parts": [
                        {
                            "type": "tool_result",
                            "call_id": None,
                            "name": "get_weather",
                            "output": "15C",
                            "wire_type": "ollama-chat/ToolMessage",
                        }
                    ],
                }
            ],
        }
    )
    assert body["messages"] == [{"role": "tool", "content": "15C", "tool_name": "get_weather"}]
    assert body["stream"] is False  # /api/chat streams unless told not to


def test_a_kimi_id_cut_to_its_index_is_called_truncated(corpus: Corpus) -> None:
    scenario = corpus.scenarios["kimi-chat/one-call"]
    assert run_scenario(REFERENCE, scenario, corpus).violations == []
    result = run_scenario(_adapter(KimiIndexOnly(), "kimi-chat"), scenario, corpus)
    altered = [v for v in result.violations if v.code == "roundtrip/id-altered"]
    assert altered and {v.diagnosis for v in altered} == {"truncated"}
    assert all("index part" in v.message and "nothing in common" not in v.message for v in altered)


class OllamaSplitTurn(OllamaChatCodec):
    """A turn of several calls goes back as one assistant message per call, then the results in order
    (ollama-python's and LangChain's per-call messages); `reversed_results` answers them backwards."""

    reversed_results = False

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        body = super().encode(conversation)
        messages: list[dict[str, Any]] = []
        tools: list[dict[str, Any]] = []
        for message in body["messages"]:
            if message["role"] == "tool":
                tools.append(message)
                continue
            messages.extend(reversed(tools) if self.reversed_results else tools)
            tools = []
            calls = message.get("tool_calls") or []
            if len(calls) > 1:
                messages.extend({**message, "content": "", "tool_calls": [call]} for call in calls)
            else:
                messages.append(message)
        messages.extend(reversed(tools) if self.reversed_results else tools)
        return {**body, "messages": messages}


class OllamaSplitTurnResultsReversed(OllamaSplitTurn):
    reversed_results = True


@pytest.mark.parametrize("scenario_id", ["ollama-chat/id-less-parallel-same-tool", "ollama-chat/parallel-same-tool"])
def test_an_ollama_turn_split_into_one_message_per_call_is_one_turn(scenario_id: str, corpus: Corpus) -> None:
    scenario = corpus.scenarios[scenario_id]
    split = run_scenario(_adapter(OllamaSplitTurn(), "ollama-chat"), scenario, corpus)
    assert split.violations == [], split.violations
    if scenario_id.startswith("ollama-chat/id-less"):
        # The fault a split turn can still have is its own: results answered out of order, without ids.
        swapped = run_scenario(_adapter(OllamaSplitTurnResultsReversed(), "ollama-chat"), scenario, corpus)
        assert {v.code for v in swapped.violations} == {"pairing/by-position"}, swapped.violations
