"""Rules on the Responses family: a buggy codec trips each, the reference on the same scenario does not.

Each buggy codec overrides one step of a reference codec, the way a real adapter went wrong.
"""

from __future__ import annotations

import copy
import dataclasses
import uuid
from typing import Any

import pytest

from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus, ReturnedField
from conformance.engine.neutral import Message, ToolCallPart, ToolResultPart
from conformance.reference import ADAPTER as REFERENCE
from conformance.reference.azure_foundry import AzureFoundryCodec
from conformance.reference.openai_responses import Kind, OpenAIResponsesCodec, ResponsesCodec
from conformance.reference.openai_responses import StreamSlot as Slot
from conformance.reference.openresponses import OpenResponsesCodec
from conformance.running.runner import run_scenario


def adapter(codec: ResponsesCodec) -> CodecAdapter:
    return CodecAdapter(name="buggy", version="0", codecs={codec.api: codec})


class CallIdAsItemId(OpenAIResponsesCodec):
    """The call_id goes in both fields (langchainjs's first Responses code: `id: toolCall.id, call_id: toolCall.id`)."""

    def item_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"]


class ItemIdsMinted(OpenAIResponsesCodec):
    """The client mints its own fc_ item id for each call instead of keeping the one served."""

    def item_id(self, part: ToolCallPart) -> str | None:
        return f"fc_{part['call_id']}" if part.get("call_id") else None


class ChatIdAsItemId(OpenAIResponsesCodec):
    """A Chat Completions history converted to Responses input puts the call_ id in `id` (nodetool #4252)."""

    def item_id(self, part: ToolCallPart) -> str | None:
        return super().item_id(part) or part["call_id"]


class CallsFromArgumentEvents(OpenAIResponsesCodec):
    """Function calls are rebuilt from the argument events, which carry only item_id (langchainjs #9816)."""

    def accumulate(self, data: dict[str, Any], slots: dict[int, Slot]) -> None:
        kind = str(data.get("type", ""))
        index = data.get("output_index")
        if kind.startswith("response.output_item.") and (data.get("item") or {}).get("type") == "function_call":
            return
        if kind == "response.function_call_arguments.delta" and isinstance(index, int):
            slot = slots.setdefault(index, Slot({"type": "function_call", "id": data["item_id"]}))
            slot.pieces.append(data["delta"])
            return
        super().accumulate(data, slots)


class OutputUnderItemId(OpenAIResponsesCodec):
    """The function_call_output answers under the call's fc_ item id instead of its call_id."""

    def encode_call(self, part: ToolCallPart) -> list[dict[str, Any]]:
        items = super().encode_call(part)
        self.item_ids = {**getattr(self, "item_ids", {}), **{i.get("call_id"): i.get("id") for i in items}}
        return items

    def result_id(self, part: ToolResultPart) -> str | None:
        return getattr(self, "item_ids", {}).get(part["call_id"]) or part["call_id"]


class OutputsNotSent(OpenAIResponsesCodec):
    """The function_call items are replayed but their outputs are not ("No tool output found for function call")."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        return [] if message["role"] == "tool" else super().encode_message(message)


class BuiltInItemsDropped(OpenAIResponsesCodec):
    """Built-in tool items (web_search_call, file_search_call, ...) are left out of the replayed history."""

    def encode_call(self, part: ToolCallPart) -> list[dict[str, Any]]:
        return [] if part.get("provider_executed") else super().encode_call(part)


class ItemIdDecodedAsCallId(OpenAIResponsesCodec):
    """The decoder takes the item id (fc_) for the call id."""

    def decode_call(self, item: dict[str, Any], kind: Kind) -> ToolCallPart:
        part = super().decode_call(item, kind)
        part["call_id"] = item.get("id", part["call_id"])
        return part


class FingerprintDropped(OpenAIResponsesCodec):
    """A program item is replayed without the fingerprint it must round-trip."""

    def encode_call(self, part: ToolCallPart) -> list[dict[str, Any]]:
        return [{k: v for k, v in i.items() if k != "fingerprint"} for i in super().encode_call(part)]


class NamespaceDropped(OpenAIResponsesCodec):
    """function_call items are rebuilt from type, ids, name and arguments, leaving out the namespace of a
    deferred tool (the AI SDK before vercel/ai#15193)."""

    def encode_call(self, part: ToolCallPart) -> list[dict[str, Any]]:
        return [{k: v for k, v in i.items() if k != "namespace"} for i in super().encode_call(part)]


class AsyncDropped(OpenAIResponsesCodec):
    """function_call items go back without the async flag they were served with."""

    def encode_call(self, part: ToolCallPart) -> list[dict[str, Any]]:
        return [{k: v for k, v in i.items() if k != "async"} for i in super().encode_call(part)]


class StatusDropped(OpenAIResponsesCodec):
    """function_call items go back without their status (which no case lists as one that must come back)."""

    def encode_call(self, part: ToolCallPart) -> list[dict[str, Any]]:
        return [{k: v for k, v in i.items() if k != "status"} for i in super().encode_call(part)]


class OutputsByPosition(OpenAIResponsesCodec):
    """Outputs take the call_ids of the preceding function calls in order, whatever call they answer."""

    def encode(self, conversation: Any) -> dict[str, Any]:
        body = super().encode(conversation)
        pending: list[Any] = []
        for item in body["input"]:
            if item.get("type") == "function_call":
                pending.append(item["call_id"])
            elif item.get("type") == "function_call_output" and pending:
                item["call_id"] = pending.pop(0)
        return body


class FreshIdsForIdlessCalls(OpenAIResponsesCodec):
    """Calls that came without an id get a new random call_id at every encode."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return super().call_id(part) if part["call_id"] else f"call_{uuid.uuid4().hex[:24]}"

    def result_id(self, part: ToolResultPart) -> str | None:
        return super().result_id(part) if part["call_id"] else f"call_{uuid.uuid4().hex[:24]}"


class NameAsIdForIdlessCalls(OpenAIResponsesCodec):
    """Calls that came without an id are named after their function (brainlid/langchain #620)."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return super().call_id(part) if part["call_id"] else f"call-{part['name']}"

    def result_id(self, part: ToolResultPart) -> str | None:
        return super().result_id(part) if part["call_id"] else f"call-{part.get('name')}"


class FoundryOutputUnderItemId(AzureFoundryCodec):
    """A Foundry tool output is decoded under its own bgo_ item id, apart from the call it answers."""

    def decode_output(self, item: dict[str, Any], kind: Kind) -> ToolResultPart:
        part = super().decode_output(item, kind)
        part["call_id"] = item.get("id", part["call_id"])
        return part


class FoundryItemIdAsCallId(AzureFoundryCodec):
    """A Foundry tool call is decoded with its bg_ item id as the call id."""

    def decode_call(self, item: dict[str, Any], kind: Kind) -> ToolCallPart:
        part = super().decode_call(item, kind)
        if kind.item_id:
            part["call_id"] = item.get("id", part["call_id"])
        return part


class CallItemsSkipped(OpenResponsesCodec):
    """function_call items are left out of the history while their outputs stay (hermes-agent #11435)."""

    def encode_call(self, part: ToolCallPart) -> list[dict[str, Any]]:
        return []


class OpenResponsesOutputsNotSent(OpenResponsesCodec):
    """Outputs are not sent: the calls stand unanswered in the history."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        return [] if message["role"] == "tool" else super().encode_message(message)


CASES = [
    ("roundtrip/ids-swapped", CallIdAsItemId(), "openai-responses/one-call"),
    ("roundtrip/id-altered", ItemIdsMinted(), "openai-responses/three-turn-chain"),
    ("format/id-pattern", ChatIdAsItemId(), "openai-responses/from-chat-history"),
    ("format/id-pattern", CallIdAsItemId(), "openai-responses/one-call"),
    ("stream/id-lost", CallsFromArgumentEvents(), "openai-responses/streamed-function-and-custom"),
    ("pairing/orphan-result", OutputUnderItemId(), "openai-responses/one-call"),
    ("pairing/missing-result", OutputsNotSent(), "openai-responses/one-call"),
    ("pairing/missing-result", OutputsNotSent(), "openai-responses/mcp-approval-flow"),
    ("roundtrip/call-lost", BuiltInItemsDropped(), "openai-responses/hosted-tools-in-history"),
    ("roundtrip/call-lost", BuiltInItemsDropped(), "openai-responses/mcp-approval-flow"),
    ("decode/id-mismatch", ItemIdDecodedAsCallId(), "openai-responses/one-call"),
    ("roundtrip/opaque-dropped", FingerprintDropped(), "openai-responses/program-calls-functions"),
    ("roundtrip/opaque-dropped", NamespaceDropped(), "openai-responses/namespaced-deferred-call"),
    ("pairing/by-position", OutputsByPosition(), "openai-responses/parallel-results-reversed"),
    ("encode/unstable-id", FreshIdsForIdlessCalls(), "openai-responses/from-gemini-idless"),
    ("pairing/duplicate-call-id", NameAsIdForIdlessCalls(), "openai-responses/from-gemini-idless"),
    ("decode/hybrid-id-split", FoundryOutputUnderItemId(), "azure-foundry/bing-grounding-pairs"),
    ("decode/id-mismatch", FoundryItemIdAsCallId(), "azure-foundry/a2a-and-openapi-streamed"),
    ("pairing/call-dropped", CallItemsSkipped(), "openresponses/three-turn-chain"),
    ("pairing/missing-result", OpenResponsesOutputsNotSent(), "openresponses/parallel-results-reversed"),
]


@pytest.mark.parametrize(("code", "codec", "scenario_id"), CASES, ids=[f"{c[0]}-{type(c[1]).__name__}" for c in CASES])
def test_buggy_codec_trips_rule_and_reference_does_not(code: str, codec: Any, scenario_id: str, corpus: Corpus) -> None:
    scenario = corpus.scenarios[scenario_id]
    buggy = run_scenario(adapter(codec), scenario, corpus)
    assert code in {v.code for v in buggy.violations}, buggy.violations
    reference = run_scenario(REFERENCE, scenario, corpus)
    assert reference.outcome == "pass"
    assert reference.violations == []


def test_a_call_id_in_the_item_id_is_swapped_and_quotes_the_prefix_error(corpus: Corpus) -> None:
    result = run_scenario(adapter(CallIdAsItemId()), corpus.scenarios["openai-responses/one-call"], corpus)
    at_id = {v.code: v for v in result.violations if v.location == "request[1].input[1].id"}
    assert set(at_id) == {"roundtrip/ids-swapped", "format/id-pattern"}
    swapped = at_id["roundtrip/ids-swapped"]
    assert swapped.expected.startswith("fc_") and swapped.received.startswith("call_")
    # The prefix error belongs to the id field: OpenAI accepted an fc_ value in call_id (a 2025
    # pydantic-ai recording), so only the format violation on `id` quotes it.
    assert "Expected an ID that begins with 'fc'" in (at_id["format/id-pattern"].provider_error or "")


def test_foreign_call_id_in_the_item_id_is_a_prefix_error(corpus: Corpus) -> None:
    result = run_scenario(adapter(ChatIdAsItemId()), corpus.scenarios["openai-responses/from-chat-history"], corpus)
    assert {v.code for v in result.errors} == {"format/id-pattern"}
    pattern = result.errors[0]
    assert pattern.location == "request[0].input[1].id"
    assert "Expected an ID that begins with 'fc'" in (pattern.provider_error or "")


def test_an_output_under_the_item_id_names_the_provider_errors(corpus: Corpus) -> None:
    result = run_scenario(adapter(OutputUnderItemId()), corpus.scenarios["openai-responses/one-call"], corpus)
    by_code = {v.code: v for v in result.violations}
    assert "No tool call found for function call output" in (by_code["pairing/orphan-result"].provider_error or "")
    assert "No tool output found for function call" in (by_code["pairing/missing-result"].provider_error or "")


def test_output_only_items_expect_no_echo(corpus: Corpus) -> None:
    """Foundry's server tool pairs are not request input: not replaying them is correct, and the
    memory_search_call that is replayed is checked on its own."""
    scenario = corpus.scenarios["azure-foundry/memory-command-then-search"]
    assert run_scenario(REFERENCE, scenario, corpus).violations == []

    class MemorySearchDropped(AzureFoundryCodec):
        def encode_call(self, part: ToolCallPart) -> list[dict[str, Any]]:
            return [] if part.get("wire_type") == "azure-foundry/MemorySearchToolCall" else super().encode_call(part)

    lost = [v for v in run_scenario(adapter(MemorySearchDropped()), scenario, corpus).violations]
    assert [(v.code, v.expected) for v in lost] == [("roundtrip/call-lost", scenario.turns[0].calls[1].id)]


class _Nameless(OpenAIResponsesCodec):
    """What a client does with the call a gateway served without a name (`function_call`):
    `leave` which of it out of the history ("call", "both", "none"), `name` to send it back under."""

    leave = "none"
    name: str | None = None

    def encode(self, conversation: Any) -> dict[str, Any]:
        nameless = {
            p["call_id"]
            for m in conversation["messages"]
            for p in m["parts"]
            if p["type"] == "tool_call" and p["name"] == "function_call"
        }
        for message in conversation["messages"]:
            kept = []
            for part in message["parts"]:
                if part.get("call_id") in nameless:
                    if self.leave == "both" or (self.leave == "call" and part["type"] == "tool_call"):
                        continue
                    if part["type"] == "tool_call" and self.name is not None:
                        part = {**part, "name": self.name}
                kept.append(part)
            message["parts"] = kept
        conversation["messages"] = [m for m in conversation["messages"] if m["parts"]]
        return super().encode(conversation)


class NamelessLeftOutWithItsOutput(_Nameless):
    leave = "both"


class NamelessCallLeftOut(_Nameless):
    leave = "call"


class NamelessNamedAfterItsTool(_Nameless):
    name = "web_extract"


@pytest.mark.parametrize(
    ("codec", "codes"),
    [
        (NamelessLeftOutWithItsOutput(), set()),  # neither: the scenario's notes accept it
        (NamelessNamedAfterItsTool(), set()),  # a name of the client's own: the provider served none
        (NamelessCallLeftOut(), {"pairing/call-dropped"}),
    ],
    ids=lambda c: type(c).__name__ if not isinstance(c, set) else "",
)
def test_a_droppable_call_goes_with_its_output_or_not_at_all(codec: Any, codes: set[str], corpus: Corpus) -> None:
    result = run_scenario(adapter(codec), corpus.scenarios["openai-responses/gateway-nameless-call"], corpus)
    assert {v.code for v in result.violations} >= codes
    if not codes:
        assert result.violations == [], result.violations


def test_a_call_the_scenario_does_not_let_go_is_lost_when_left_out_with_its_output(corpus: Corpus) -> None:
    class BothLeftOut(_Nameless):
        leave = "both"

        def encode(self, conversation: Any) -> dict[str, Any]:
            for message in conversation["messages"]:
                for part in message["parts"]:
                    if part.get("name") == "web_search":
                        part["name"] = "function_call"  # left out like the nameless one
            return super().encode(conversation)

    result = run_scenario(adapter(BothLeftOut()), corpus.scenarios["openai-responses/gateway-nameless-call"], corpus)
    assert "roundtrip/call-lost" in {v.code for v in result.violations}


NAMESPACED = "openai-responses/namespaced-deferred-call"


def test_a_call_sent_back_without_its_namespace_quotes_openais_refusal(corpus: Corpus) -> None:
    result = run_scenario(adapter(NamespaceDropped()), corpus.scenarios[NAMESPACED], corpus)
    dropped = [v for v in result.errors if v.code == "roundtrip/opaque-dropped"]
    assert [v.location for v in dropped] == ["request[2].input[3].namespace"]
    assert dropped[0].expected == "weather" and dropped[0].received is None
    assert "Missing namespace for function_call" in (dropped[0].provider_error or "")
    assert run_scenario(REFERENCE, corpus.scenarios[NAMESPACED], corpus).violations == []


def test_a_dropped_field_no_provider_refuses_quotes_no_error(corpus: Corpus) -> None:
    result = run_scenario(adapter(AsyncDropped()), corpus.scenarios[NAMESPACED], corpus)
    dropped = [v for v in result.violations if v.code == "roundtrip/opaque-dropped"]
    assert [(v.location, v.expected, v.provider_error) for v in dropped] == [("request[2].input[3].async", True, None)]


def test_the_fields_that_must_come_back_are_the_wire_type_cases(corpus: Corpus) -> None:
    """The rule compares what the case lists, not a list of its own: without `namespace` in the case's
    returned_fields, dropping it is not held against the adapter; with another field listed, that one is."""
    case = corpus.wire_types["openai-responses/FunctionToolCall"]
    kept = tuple(f for f in case.returned_fields if f.field != "namespace")
    unlisted = copy.copy(corpus)
    unlisted.wire_types = {**corpus.wire_types, case.id: dataclasses.replace(case, returned_fields=kept)}
    scenario = corpus.scenarios[NAMESPACED]
    assert "roundtrip/opaque-dropped" not in {
        v.code for v in run_scenario(adapter(NamespaceDropped()), scenario, unlisted).violations
    }

    status = dataclasses.replace(case, returned_fields=(*case.returned_fields, ReturnedField("status")))
    listed = copy.copy(corpus)
    listed.wire_types = {**corpus.wire_types, case.id: status}
    lost = [
        v
        for v in run_scenario(adapter(StatusDropped()), scenario, listed).violations
        if v.code == "roundtrip/opaque-dropped"
    ]
    assert [v.location for v in lost] == ["request[2].input[3].status"]
    assert run_scenario(adapter(StatusDropped()), scenario, corpus).violations == []
