"""Hermes Agent (NousResearch/hermes-agent): the Responses serializer before PR #11435, the native Gemini
adapter's stream translation before PR #111686, and the Bedrock sidecar replay of issue #108584."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import Conversation, Message, Part, ToolCallPart
from conformance.reference.bedrock_converse import BedrockConverseCodec
from conformance.reference.gemini import CALL, GeminiCodec
from conformance.reference.openai_responses import Kind, OpenAIResponsesCodec


class NamelessCallSkipped(OpenAIResponsesCodec):
    """#11435: "When serializing chat history to Responses API input items, a `function_call` with an
    empty/missing `name` is silently skipped. However the paired `function_call_output` was still emitted,
    creating an orphan item." The stored tool call kept the empty name it was served with; the output,
    which names its call only by `call_id`, went out. #11435 proposed skipping the outputs of skipped calls;
    PR #55922, merged instead, repairs the empty name so that the call and its output both go out."""

    def decode_call(self, item: dict[str, Any], kind: Kind) -> ToolCallPart:
        part = super().decode_call(item, kind)
        part["name"] = item.get("name") or ""  # stored as served: function.name ""
        return part

    def encode_call(self, part: ToolCallPart) -> list[dict[str, Any]]:
        if not part["name"]:
            return []  # _chat_messages_to_responses_input: no name, no function_call item
        return super().encode_call(part)


@dataclass
class _Slot:
    call_id: str | None  # the id of the call that opened the slot
    name: str
    extra: dict[str, Any]
    arguments: str = ""  # the deltas emitted onto the slot, appended
    last: str = ""  # the arguments last seen for the slot's key


class SlotByPartIndexNameSignature(GeminiCodec):
    """#111686 (#102953): `translate_stream_event` correlated streamed `functionCall` parts across events by
    `call_key = (part_index, name, thought_signature)`. `part_index` is the position within the event, 0 when
    each call comes in an event of its own, so several calls to one tool without signatures share the key and
    are "treated as the same call growing incrementally": the new call's arguments, not an extension of the
    slot's, are re-emitted whole onto the first call's slot, the accumulator appends them, and the
    "Unrepairable tool_call arguments ... (was: {...}{...})" are replaced with an empty object. The slot keeps
    the id of the call that opened it."""

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        slots: dict[tuple[Any, ...], _Slot] = {}
        text: list[str] = []
        for event in events:
            for part_index, part in enumerate(self.candidate_parts(event.get("data"))):
                call = part.get("functionCall")
                if call is None:
                    if isinstance(part.get("text"), str) and not part.get("thought"):
                        text.append(part["text"])
                    continue
                key = (part_index, call["name"], part.get("thoughtSignature") or "")
                arguments = json.dumps(call.get("args") or {}, sort_keys=True)
                slot = slots.setdefault(key, _Slot(call.get("id"), call["name"], self.extra(part)))
                slot.arguments += arguments[len(slot.last) :] if arguments.startswith(slot.last) else arguments
                slot.last = arguments
        parts: list[Part] = [{"type": "text", "text": "".join(text)}] if text else []
        for slot in slots.values():
            try:
                parsed = json.loads(slot.arguments)
            except json.JSONDecodeError:
                parsed = {}  # "Unrepairable tool_call arguments ... replaced with empty object"
            call_part: ToolCallPart = {
                "type": "tool_call",
                "call_id": slot.call_id,
                "name": slot.name,
                "arguments": parsed,
                "wire_type": CALL,
            }
            if slot.extra:
                call_part["extra"] = slot.extra
            parts.append(call_part)
        return {"role": "assistant", "parts": parts}


HERMES_AGENT_11435 = CodecAdapter(
    name="hermes-agent-11435",
    version="_chat_messages_to_responses_input before PR #11435",
    codecs={"openai-responses": NamelessCallSkipped()},
    homepage="https://github.com/NousResearch/hermes-agent/pull/11435",
)

HERMES_AGENT_111686 = CodecAdapter(
    name="hermes-agent-111686",
    version="agent/gemini_native_adapter.py translate_stream_event before PR #111686",
    codecs={"gemini": SlotByPartIndexNameSignature()},
    homepage="https://github.com/NousResearch/hermes-agent/pull/111686",
)


class DeduplicatedCallReplayedFromSidecar(BedrockConverseCodec):
    """#108584: on Bedrock, the assistant turn is replayed from `bedrock_content_blocks`, the blocks as Bedrock
    produced them, kept beside the turn's `tool_calls`. When the model emits the same call twice in one turn (same
    name and input, another toolUseId), the post-call dedup ("run_agent: Removed duplicate tool call") drops the copy
    from `tool_calls`, so it is never run and no toolResult answers it; `_replay_ordered_blocks` still sends every
    toolUse of the sidecar. The codec encodes each assistant turn whole, as the sidecar holds it, and leaves out the
    result of every call that repeats an earlier call of its turn."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        self.deduplicated: set[str | None] = set()
        for message in conversation["messages"]:
            if message["role"] != "assistant":
                continue
            seen: set[str] = set()
            for part in message["parts"]:
                if part["type"] == "tool_call":
                    key = json.dumps([part["name"], part["arguments"]], sort_keys=True)
                    if key in seen:
                        self.deduplicated.add(part["call_id"])
                    seen.add(key)
        return super().encode(conversation)

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        if message["role"] == "tool":
            parts = [p for p in message["parts"] if p.get("call_id") not in self.deduplicated]
            return super().encode_message({**message, "parts": parts})
        return super().encode_message(message)


HERMES_AGENT_108584 = CodecAdapter(
    name="hermes-agent-108584",
    version="agent/bedrock_adapter.py _replay_ordered_blocks on main d15ed44 (2026-09-11)",
    codecs={"bedrock-converse": DeduplicatedCallReplayedFromSidecar()},
    homepage="https://github.com/NousResearch/hermes-agent/issues/108584",
)
