"""Anthropic Messages rules: a buggy codec trips each, the reference codec on the same scenario does not.

Each buggy codec overrides one step of the reference codec, the way a real adapter got it wrong.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus
from conformance.engine.neutral import Message, ToolCallPart, ToolResultPart
from conformance.reference import ADAPTER as REFERENCE
from conformance.reference.anthropic_messages import AnthropicMessagesCodec, _Pending
from conformance.running.runner import run_scenario

API = "anthropic-messages"


def adapter(codec: AnthropicMessagesCodec) -> CodecAdapter:
    return CodecAdapter(name="buggy", version="0", codecs={API: codec})


class TextBeforeResults(AnthropicMessagesCodec):
    """A note to the model goes first in the user message, ahead of the tool_result blocks."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        encoded = super().encode_message(message)
        if message["role"] == "tool":
            encoded[0]["content"].insert(0, {"type": "text", "text": "Here are the tool results."})
        return encoded


class NoteMessageBeforeResults(AnthropicMessagesCodec):
    """A user message of narration is sent before the one holding the results, and not merged."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        encoded = super().encode_message(message)
        if message["role"] == "tool":
            encoded.insert(0, {"role": "user", "content": [{"type": "text", "text": "Tool results follow."}]})
        return encoded

    def append(self, messages: list[dict[str, Any]], encoded: dict[str, Any]) -> None:
        messages.append(encoded)


class OneUserMessagePerResult(AnthropicMessagesCodec):
    """Each result goes in a user message of its own, as OpenAI tool messages map one to one."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        if message["role"] != "tool":
            return super().encode_message(message)
        return [
            {"role": "user", "content": [self.encode_result(p)]} for p in message["parts"] if p["type"] == "tool_result"
        ]

    def append(self, messages: list[dict[str, Any]], encoded: dict[str, Any]) -> None:
        messages.append(encoded)


class ServerResultOwnId(AnthropicMessagesCodec):
    """A server-tool result block is decoded as an item of its own, under an id of its own."""

    def decode_server_result(self, block: dict[str, Any]) -> ToolResultPart:
        part = super().decode_server_result(block)
        part["call_id"] = f"{block['type']}_{block['tool_use_id'][-8:]}"
        return part


class CallerDropped(AnthropicMessagesCodec):
    """Only id, name and input are kept from a tool_use: caller is lost on the way back."""

    def kept(self, block: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in super().kept(block).items() if k != "caller"}


class ListingDropped(AnthropicMessagesCodec):
    """Blocks without a tool id are dropped on decoding: the mcp_tool_listing never goes back."""

    def decode_block(self, block: dict[str, Any]) -> Any:
        return None if block.get("type") == "mcp_tool_listing" else super().decode_block(block)


class ListingRebuilt(AnthropicMessagesCodec):
    """The listing goes back rebuilt from the tools' names and schemas, without their descriptions."""

    def encode_call(self, part: Any) -> dict[str, Any] | None:
        block = super().encode_call(part)
        if block is not None and block.get("type") == "mcp_tool_listing":
            tools = [{k: v for k, v in t.items() if k != "description"} for t in block["tools"]]
            block = {**block, "tools": tools}
        return block


class ToolsetNameDropped(AnthropicMessagesCodec):
    """A toolset member's tool_use goes back as a plain tool_use: its toolset_name is not kept."""

    def kept(self, block: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in super().kept(block).items() if k != "toolset_name"}


class ForeignIdsPassedThrough(AnthropicMessagesCodec):
    """Ids from another provider are sent as they are (functions.get_weather:0 reaches Anthropic)."""

    def call_id(self, part: ToolCallPart) -> str | None:
        self.ids.call(part["call_id"], part["name"], native=self.native(part))
        return part["call_id"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"]


class UuidForMissingIds(AnthropicMessagesCodec):
    """A call without an id gets a fresh uuid4 at every encode; its result looks it up by name."""

    def encode(self, conversation: Any) -> dict[str, Any]:
        self.minted: dict[str, list[str]] = {}
        return super().encode(conversation)

    def call_id(self, part: ToolCallPart) -> str | None:
        if part["call_id"]:
            return super().call_id(part)
        minted = f"toolu_{uuid.uuid4().hex[:24]}"
        self.minted.setdefault(part["name"], []).append(minted)
        return minted

    def result_id(self, part: ToolResultPart) -> str | None:
        if part["call_id"]:
            return super().result_id(part)
        return self.minted[str(part.get("name"))].pop(0)


class IdFromName(AnthropicMessagesCodec):
    """A call without an id gets its function name as id (langchain's call-<name>, Genkit's Ref)."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"] or part["name"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"] or part.get("name")


class StreamIdFromDelta(AnthropicMessagesCodec):
    """The id is read from the content_block_delta events, which never carry one."""

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        stripped = json.loads(json.dumps(events))
        for event in stripped:
            block = (event.get("data") or {}).get("content_block") or {}
            if block.get("type") == "tool_use":
                block.pop("id", None)
        return super().decode_stream(stripped)


class StreamOneCurrentCall(AnthropicMessagesCodec):
    """One 'current tool call' slot: a second tool_use start is taken for more of the first."""

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        current: int | None = None
        rewritten = json.loads(json.dumps(events))
        kept = []
        for event in rewritten:
            data = event.get("data") or {}
            if data.get("type") == "content_block_start" and data["content_block"].get("type") == "tool_use":
                if current is not None:
                    continue
                current = data["index"]
            elif data.get("type") == "content_block_delta" and current is not None and data["index"] > current:
                data["index"] = current
            kept.append(event)
        return super().decode_stream(kept)


class StreamDeltaOpensCall(AnthropicMessagesCodec):
    """Every input_json_delta is taken for a new call carrying the block's id and name."""

    def accumulate(self, event: dict[str, Any], by_index: dict[int, _Pending], blocks: list[_Pending]) -> None:
        delta = event.get("delta") or {}
        opened = by_index.get(event["index"])
        if delta.get("type") == "input_json_delta" and opened is not None and delta.get("partial_json"):
            blocks.append(_Pending(dict(opened.block), [delta["partial_json"]]))
            return
        super().accumulate(event, by_index, blocks)


class ServerResultsDropped(AnthropicMessagesCodec):
    """Server tool results are treated as display-only and left out of the history; the
    server_tool_use blocks they answer are still sent."""

    def encode_server_result(self, part: ToolResultPart) -> dict[str, Any] | None:
        return None


class ToolsOffOnceCalled(AnthropicMessagesCodec):
    """The tools are left off every request after the first, as a summarising turn does."""

    def encode(self, conversation: Any) -> dict[str, Any]:
        body = super().encode(conversation)
        if len(body["messages"]) > 1:
            body.pop("tools", None)
        return body


class ServerCallsAsClientCalls(AnthropicMessagesCodec):
    """A provider-run tool call is surfaced as an ordinary tool call (the application answers it)
    and the provider's result block is dropped (LiteLLM's run_tool_loop with Anthropic web search)."""

    def decode_block(self, block: dict[str, Any]) -> Any:
        part = super().decode_block(block)
        if part is not None and part.get("provider_executed"):
            if part["type"] == "tool_result":
                return None
            part = {**part, "wire_type": "anthropic-messages/ToolUseBlock"}
            del part["provider_executed"]
        return part


CASES = [
    ("format/tools-undeclared", ToolsOffOnceCalled(), "anthropic-messages/one-call"),
    ("pairing/missing-result", ServerCallsAsClientCalls(), "anthropic-messages/web-search-beside-client-call"),
    ("pairing/missing-result", ServerResultsDropped(), "anthropic-messages/web-search-beside-client-call"),
    # The program's code_execution result is served responses later: the call is still the provider's.
    ("pairing/missing-result", ServerCallsAsClientCalls(), "anthropic-messages/programmatic-tool-calling"),
    ("pairing/not-adjacent", TextBeforeResults(), "anthropic-messages/parallel-different-tools"),
    ("pairing/not-adjacent", NoteMessageBeforeResults(), "anthropic-messages/three-turn-chain"),
    ("pairing/not-adjacent", OneUserMessagePerResult(), "anthropic-messages/parallel-same-tool"),
    ("decode/hybrid-id-split", ServerResultOwnId(), "anthropic-messages/web-search-beside-client-call"),
    ("decode/hybrid-id-split", ServerResultOwnId(), "anthropic-messages/mcp-and-advisor"),
    ("roundtrip/opaque-dropped", CallerDropped(), "anthropic-messages/programmatic-tool-calling"),
    ("roundtrip/opaque-dropped", ToolsetNameDropped(), "anthropic-messages/toolset-member-call"),
    ("roundtrip/call-lost", ListingDropped(), "anthropic-messages/mcp-tool-listing"),
    ("roundtrip/opaque-dropped", ListingRebuilt(), "anthropic-messages/mcp-tool-listing"),
    ("format/id-pattern", ForeignIdsPassedThrough(), "anthropic-messages/from-kimi"),
    ("encode/unstable-id", UuidForMissingIds(), "anthropic-messages/from-gemini-idless"),
    ("pairing/duplicate-call-id", IdFromName(), "anthropic-messages/from-gemini-idless"),
    ("stream/id-lost", StreamIdFromDelta(), "anthropic-messages/streamed-parallel-calls"),
    ("stream/calls-merged", StreamOneCurrentCall(), "anthropic-messages/streamed-parallel-calls"),
    ("stream/call-split", StreamDeltaOpensCall(), "anthropic-messages/streamed-parallel-calls"),
]


@pytest.mark.parametrize(("code", "codec", "scenario_id"), CASES, ids=[f"{c[0]}-{type(c[1]).__name__}" for c in CASES])
def test_buggy_codec_trips_rule_and_reference_does_not(code: str, codec: Any, scenario_id: str, corpus: Corpus) -> None:
    scenario = corpus.scenarios[scenario_id]
    buggy = run_scenario(adapter(codec), scenario, corpus)
    assert code in {v.code for v in buggy.violations}, buggy.violations
    reference = run_scenario(REFERENCE, scenario, corpus)
    assert reference.outcome == "pass"
    assert reference.violations == []


def test_text_before_results_is_reported_at_the_result_with_the_provider_error(corpus: Corpus) -> None:
    scenario = corpus.scenarios["anthropic-messages/parallel-different-tools"]
    found = [v for v in run_scenario(adapter(TextBeforeResults()), scenario, corpus).violations]
    assert {v.code for v in found} == {"pairing/not-adjacent"}
    assert {v.location for v in found} == {
        "request[1].messages[2].content[1].tool_use_id",
        "request[1].messages[2].content[2].tool_use_id",
    }
    assert all("tool_result` blocks immediately after" in (v.provider_error or "") for v in found)


def test_kimi_ids_are_reported_on_both_sides_with_the_provider_error(corpus: Corpus) -> None:
    scenario = corpus.scenarios["anthropic-messages/from-kimi"]
    found = [
        v
        for v in run_scenario(adapter(ForeignIdsPassedThrough()), scenario, corpus).violations
        if v.code == "format/id-pattern"
    ]
    assert {v.received for v in found} == {"functions.get_weather:0", "functions.get_time:1"}
    assert {v.location.rsplit(".", 1)[1] for v in found} == {"id", "tool_use_id"}
    assert any("should match pattern" in (v.provider_error or "") for v in found)


def test_dropped_caller_names_the_field(corpus: Corpus) -> None:
    scenario = corpus.scenarios["anthropic-messages/programmatic-tool-calling"]
    found = [v for v in run_scenario(adapter(CallerDropped()), scenario, corpus).violations]
    assert {v.code for v in found} == {"roundtrip/opaque-dropped"}
    assert {v.location for v in found} == {
        "request[1].messages[1].content[2].caller",
        "request[1].messages[1].content[3].caller",
        "request[2].messages[3].content[0].caller",
    }
    assert all(v.expected["tool_id"] == "srvtoolu_01KMMoTpi2gPNrxId8KUeqeP" for v in found)


def test_a_server_call_answered_by_the_client_is_a_missing_result_not_a_lost_output(corpus: Corpus) -> None:
    scenario = corpus.scenarios["anthropic-messages/programmatic-tool-calling"]
    found = run_scenario(adapter(ServerCallsAsClientCalls()), scenario, corpus).violations
    server = "srvtoolu_01KMMoTpi2gPNrxId8KUeqeP"
    assert {v.location for v in found if v.code == "pairing/missing-result" and server in v.message} == {
        "request[1].messages[1].content[1].id",
        "request[2].messages[1].content[1].id",
    }
    # Its output is the provider's: what the client answered it with is not held to a tool's output.
    assert not [v for v in found if v.code == "pairing/output-lost" and "code_execution" in v.message]


def test_a_dropped_toolset_name_is_reported_without_a_provider_error(corpus: Corpus) -> None:
    """toolset_name is one of ToolUseBlock's returned_fields; no source shows Anthropic refusing a replay
    without it, so the violation stands on its own."""
    scenario = corpus.scenarios["anthropic-messages/toolset-member-call"]
    found = run_scenario(adapter(ToolsetNameDropped()), scenario, corpus).violations
    assert {(v.code, v.location, v.expected, v.provider_error) for v in found} == {
        ("roundtrip/opaque-dropped", "request[1].messages[1].content[0].toolset_name", "browser", None),
        ("roundtrip/opaque-dropped", "request[2].messages[3].content[0].toolset_name", "browser", None),
    }


def test_an_mcp_tool_listing_goes_back_whole(corpus: Corpus) -> None:
    """The id-less listing block is read as a call the provider ran: left out, it is a lost call; sent
    with another listing, its `tools` (the case's returned field) are reported changed."""
    scenario = corpus.scenarios["anthropic-messages/mcp-tool-listing"]
    lost = run_scenario(adapter(ListingDropped()), scenario, corpus).violations
    assert {v.code for v in lost} == {"roundtrip/call-lost", "decode/call-missing"}
    assert [v.expected for v in lost if v.code == "roundtrip/call-lost"] == ["mcp_tool_listing"]
    rebuilt = run_scenario(adapter(ListingRebuilt()), scenario, corpus).violations
    assert {(v.code, v.location) for v in rebuilt} == {
        ("roundtrip/opaque-dropped", "request[1].messages[1].content[1].tools")
    }
