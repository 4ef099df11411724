"""Buggy codecs for the rule tests: each breaks one thing the way real adapters have.

Every rule has at least one of these that trips it, on a scenario where the reference does not.
"""

from __future__ import annotations

import itertools
import json
import uuid
from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import Conversation, Message, ToolCallPart, ToolResultPart
from conformance.reference.mistral_chat import MistralChatCodec
from conformance.reference.openai_chat import OpenAIChatCodec


def adapter(codec: OpenAIChatCodec, name: str = "buggy") -> CodecAdapter:
    return CodecAdapter(name=name, version="0", codecs={"openai-chat": codec})


class ResultIdMangled(OpenAIChatCodec):
    """The call keeps its id, the result gets another one."""

    def result_id(self, part: ToolResultPart) -> str | None:
        return f"result_{part['call_id']}"


class NoResults(OpenAIChatCodec):
    """Tool messages are never sent."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        return [] if message["role"] == "tool" else super().encode_message(message)


class ConstantCallId(OpenAIChatCodec):
    """Every call and result goes out under one fixed id."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return "call_0"

    def result_id(self, part: ToolResultPart) -> str | None:
        return "call_0"


class SessionUniqueIds(OpenAIChatCodec):
    """An id already held by an earlier call of the conversation gets a suffix, on the call and its
    result alike (a session store that keys calls by id: echoVic/orca-agent PR #111's renaming)."""

    def encode(self, conversation: Any) -> dict[str, Any]:
        seen: dict[str, int] = {}
        renamed: dict[int, str] = {}
        for m, message in enumerate(conversation["messages"]):
            for part in message.get("parts", []):
                if part.get("type") == "tool_call" and part.get("call_id"):
                    n = seen[part["call_id"]] = seen.get(part["call_id"], 0) + 1
                    if n > 1:
                        renamed[m] = f"{part['call_id']}_{n}"
                        part["call_id"] = renamed[m]
                elif part.get("type") == "tool_result" and m - 1 in renamed:
                    part["call_id"] = renamed[m - 1]
        return super().encode(conversation)


class OneMessagePerCall(OpenAIChatCodec):
    """A parallel turn sent back as one assistant message per call, each followed by its result
    (langchaingo's history): another shape of the same turn, every call and id still there."""

    def encode(self, conversation: Any) -> dict[str, Any]:
        body = super().encode(conversation)
        out: list[dict[str, Any]] = []
        messages = body["messages"]
        i = 0
        while i < len(messages):
            message = messages[i]
            calls = message.get("tool_calls") or []
            if message.get("role") != "assistant" or len(calls) < 2:
                out.append(message)
                i += 1
                continue
            results = {}
            j = i + 1
            while j < len(messages) and messages[j].get("role") == "tool":
                results[messages[j]["tool_call_id"]] = messages[j]
                j += 1
            for k, call in enumerate(calls):
                out.append({**message, "content": message.get("content") if k == 0 else None, "tool_calls": [call]})
                if call["id"] in results:
                    out.append(results[call["id"]])
            i = j
        return {**body, "messages": out}


class ResultsTwice(OpenAIChatCodec):
    """A replay appends every tool message a second time."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        encoded = super().encode_message(message)
        return encoded * 2 if message["role"] == "tool" else encoded


class CallsDropped(OpenAIChatCodec):
    """The serializer drops the assistant's tool calls but keeps their results."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        encoded = super().encode_message(message)
        for entry in encoded:
            entry.pop("tool_calls", None)
        return encoded


class ResultsByPosition(OpenAIChatCodec):
    """Results take the ids of the preceding calls in order, whatever call they answer."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        body = super().encode(conversation)
        pending: list[str] = []
        for message in body["messages"]:
            if message.get("tool_calls"):
                pending = [c["id"] for c in message["tool_calls"]]
            elif message["role"] == "tool" and pending:
                message["tool_call_id"] = pending.pop(0)
        return body


class CallTypeDropped(OpenAIChatCodec):
    """tool_calls entries go back without `"type": "function"` (a codec that keeps only what it reads)."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        encoded = super().encode_message(message)
        for entry in encoded:
            for call in entry.get("tool_calls") or ():
                call.pop("type", None)
        return encoded


class EmptyIds(OpenAIChatCodec):
    def call_id(self, part: ToolCallPart) -> str | None:
        return ""

    def result_id(self, part: ToolResultPart) -> str | None:
        return ""


class EmptyServedIdsKept(OpenAIChatCodec):
    """A served `""` is read as the call's id and goes back as it came, on the call and its result,
    where a correct client mints one (`toolCall.id ?? generateId()` keeps `""`: vercel/ai#7834)."""

    def accumulate(self, entry: dict[str, Any], by_index: dict[int, Any], calls: list[Any]) -> None:
        super().accumulate(entry, by_index, calls)
        pending = by_index.get(entry.get("index", 0))
        if pending is not None and pending.call_id is None and entry.get("id") == "":
            pending.call_id = ""

    def call_id(self, part: ToolCallPart) -> str | None:
        return "" if part["call_id"] == "" else super().call_id(part)

    def result_id(self, part: ToolResultPart) -> str | None:
        return "" if part["call_id"] == "" else super().result_id(part)


class FirstCallOnly(OpenAIChatCodec):
    """Only the first call of a turn, and its result, go back."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        encoded = super().encode_message(message)
        for entry in encoded:
            if entry.get("tool_calls"):
                entry["tool_calls"] = entry["tool_calls"][:1]
        return encoded[:1] if message["role"] == "tool" else encoded


class LongPrefix(OpenAIChatCodec):
    """Ids are namespaced on the way out, past OpenAI's 64-character limit."""

    PREFIX = "toolcall-conformance-session-0001-agent-0001-"

    def call_id(self, part: ToolCallPart) -> str | None:
        return f"{self.PREFIX}{part['call_id']}"

    def result_id(self, part: ToolResultPart) -> str | None:
        return f"{self.PREFIX}{part['call_id']}"


class DecodeEmptyIds(OpenAIChatCodec):
    """`id or ""`-style decoding that loses the id."""

    def decode_call(self, entry: dict[str, Any]) -> ToolCallPart:
        part = super().decode_call(entry)
        part["call_id"] = ""
        return part


class DecodeRenamed(OpenAIChatCodec):
    """The decoder keeps its own id (e.g. a message id) instead of the wire id."""

    def decode_call(self, entry: dict[str, Any]) -> ToolCallPart:
        part = super().decode_call(entry)
        part["call_id"] = f"msg_{part['call_id']}"
        return part


class DecodeSameId(OpenAIChatCodec):
    def decode(self, response: dict[str, Any]) -> Message:
        message = super().decode(response)
        for part in message["parts"]:
            if part["type"] == "tool_call":
                part["call_id"] = "call_same"
        return message


class DecodeFirstOnly(OpenAIChatCodec):
    def decode(self, response: dict[str, Any]) -> Message:
        message = super().decode(response)
        calls = [p for p in message["parts"] if p["type"] == "tool_call"]
        message["parts"] = [p for p in message["parts"] if p["type"] != "tool_call"] + calls[:1]
        return message


class DecodeFreshUuid(OpenAIChatCodec):
    """Ids made up at every decode."""

    def decode_call(self, entry: dict[str, Any]) -> ToolCallPart:
        part = super().decode_call(entry)
        part["call_id"] = f"call_{uuid.uuid4().hex[:24]}"
        return part


class StreamIdDropped(OpenAIChatCodec):
    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        message = super().decode_stream(events)
        for part in message["parts"]:
            if part["type"] == "tool_call":
                part["call_id"] = None
        return message


class StreamEveryDeltaNewCall(OpenAIChatCodec):
    """Each delta opens a call of its own: the arguments of one call are split."""

    def accumulate(self, entry: dict[str, Any], by_index: dict[int, Any], calls: list[Any]) -> None:
        counter = itertools.count(len(calls) + 1000)
        super().accumulate({**entry, "index": next(counter)}, by_index, calls)
        if calls and calls[-1].call_id is None and len(calls) > 1:
            calls[-1].call_id = calls[-2].call_id
        if calls and calls[-1].name is None and len(calls) > 1:
            calls[-1].name = calls[-2].name


class OutputAsResultId(OpenAIChatCodec):
    """The result's id is the tool's output (the variant the Genkit write-ups describe)."""

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["output"]


class NarrationBeforeResults(OpenAIChatCodec):
    """An assistant text message slipped between the tool calls and their results."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        encoded = super().encode_message(message)
        if message["role"] == "assistant" and any(p["type"] == "tool_call" for p in message["parts"]):
            encoded.append({"role": "assistant", "content": "Looking that up."})
        return encoded


class FreshIdsPerEncode(OpenAIChatCodec):
    """Every encode mints new ids for every call and result (a counter that never resets)."""

    def __init__(self) -> None:
        self._counter = itertools.count()
        self._current: dict[str, str] = {}

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        self._current = {}
        return super().encode(conversation)

    def call_id(self, part: ToolCallPart) -> str | None:
        key = str(part["call_id"])
        self._current[key] = f"call_{next(self._counter)}"
        return self._current[key]

    def result_id(self, part: ToolResultPart) -> str | None:
        return self._current.get(str(part["call_id"]))


# --- Any API: mutants of the neutral model ------------------------------------------------------
# Each wraps the reference codec of any API and does one thing wrong to what it decodes or to the
# conversation it is asked to encode, the way real adapters have: a family of bugs checked on
# every API at once, not one wire at a time.


class Wrapped:
    """A codec over another, changing what it decodes or what it is given to encode."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def decode(self, response: dict[str, Any]) -> Message:
        return self.decoded(self.inner.decode(response))

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        return dict(self.inner.encode(self.given(conversation)))

    def decoded(self, message: Message) -> Message:
        return message

    def given(self, conversation: Conversation) -> Conversation:
        return conversation


def client_results(conversation: Conversation) -> list[list[ToolResultPart]]:
    """The client results of each tool message."""
    return [
        [p for p in m["parts"] if p["type"] == "tool_result" and not p.get("provider_executed")]
        for m in conversation["messages"]
        if m["role"] == "tool"
    ]


def client_calls(message: Message) -> list[ToolCallPart]:
    return [p for p in message["parts"] if p["type"] == "tool_call" and not p.get("provider_executed")]


class PlaceholderOutputs(Wrapped):
    """History repair fills every result with a placeholder, under the right id, though the tool
    answered (pi's transformMessages when a user message lands mid-cycle)."""

    def given(self, conversation: Conversation) -> Conversation:
        for results in client_results(conversation):
            for part in results:
                part["output"] = "No result provided"
        return conversation


class OutputsInJsonText(Wrapped):
    """Each output goes inside a JSON text of the client's own, `json.dumps({"result": output})`
    (cohere-haystack's tool messages): correct, the output is all there, escaped. `lost` replaces
    the output inside it, the bug the wrapping must not hide."""

    lost: str | None = None

    def given(self, conversation: Conversation) -> Conversation:
        for results in client_results(conversation):
            for part in results:
                output = part["output"] if self.lost is None else self.lost
                text = output if isinstance(output, str) else json.dumps(output)
                part["output"] = json.dumps({"result": text})
        return conversation


class PlaceholderInJsonText(OutputsInJsonText):
    lost = "No result provided"


class EmptyOutputs(Wrapped):
    """Outputs that are not plain text are serialized to nothing."""

    def given(self, conversation: Conversation) -> Conversation:
        for results in client_results(conversation):
            for part in results:
                part["output"] = ""
        return conversation


class OutputsRotated(Wrapped):
    """A turn's outputs are attached to its results in the order the tools finished, not by call:
    each result keeps its id and carries the next call's output."""

    def given(self, conversation: Conversation) -> Conversation:
        for results in client_results(conversation):
            if len(results) > 1:
                outputs = [p["output"] for p in results]
                for part, output in zip(results, outputs[1:] + outputs[:1], strict=True):
                    part["output"] = output
        return conversation


class ArgumentsEmptied(Wrapped):
    """Arguments the decoder cannot map to its own schema become an empty object."""

    def decoded(self, message: Message) -> Message:
        for part in client_calls(message):
            part["arguments"] = {}
        return message


class NamesEmptied(Wrapped):
    """A stream accumulator keeps the name of each call's last delta, which has none: `""`."""

    def decoded(self, message: Message) -> Message:
        for part in client_calls(message):
            part["name"] = ""
        return message


class CallInserted(Wrapped):
    """A call the model never made is added to the last calling turn, answered like the others (a
    memory that restores calls from another session, a phantom left by stream reassembly)."""

    def given(self, conversation: Conversation) -> Conversation:
        calling = [m for m in conversation["messages"] if client_calls(m)]
        if not calling:
            return conversation
        model = client_calls(calling[-1])[0]
        phantom: ToolCallPart = {**model, "call_id": "call_phantom0000000000000000", "arguments": {"city": "Atlantis"}}
        calling[-1]["parts"].append(phantom)
        at = conversation["messages"].index(calling[-1])
        for message in conversation["messages"][at + 1 :]:
            if message["role"] == "tool":
                result = next(p for p in message["parts"] if p["type"] == "tool_result")
                message["parts"].append({**result, "call_id": phantom["call_id"], "output": "unknown city"})
                break
        return conversation


class ArgumentsSwapped(Wrapped):
    """Two calls of a response trade arguments (the decoder looks them up by tool name and position)."""

    def decoded(self, message: Message) -> Message:
        calls = client_calls(message)
        if len(calls) > 1:
            calls[0]["arguments"], calls[1]["arguments"] = calls[1]["arguments"], calls[0]["arguments"]
        return message


class FragmentsMisjoined(Wrapped):
    """A stream accumulator that appends every argument fragment to the last call it opened: the first
    calls keep `{}` and the last gets every call's JSON glued together; one call alone loses its
    last fragment."""

    def decoded(self, message: Message) -> Message:
        calls = client_calls(message)
        if len(calls) > 1:
            texts = [a if isinstance(a, str) else json.dumps(a) for a in (c["arguments"] for c in calls)]
            for part in calls[:-1]:
                part["arguments"] = {}
            calls[-1]["arguments"] = "".join(texts)
        elif calls:
            text = json.dumps(calls[0]["arguments"])
            calls[0]["arguments"] = text[:-2] if len(text) > 2 else "{"
        return message


class CallsEndAtText(Wrapped):
    """A reader that takes the first text after a call for the final answer: calls after it are dropped
    (a turn's calls are assumed to come together, after any text)."""

    def decoded(self, message: Message) -> Message:
        kept: list[Any] = []
        called = answered = False
        for part in message["parts"]:
            if part["type"] == "text" and called:
                answered = True
            elif part["type"] == "tool_call":
                called = True
                if answered:
                    continue
            kept.append(part)
        return {**message, "parts": kept}


# Where the reference codecs keep the thinking that came before a call (Anthropic, Bedrock).
THINKING_EXTRAS = ("thinking", "reasoningContent")


class ThinkingDropped(Wrapped):
    """Thinking blocks are read for display and never stored: the history goes back without them (the
    provider refuses a last assistant message with tool_use and no thinking while thinking is on)."""

    def given(self, conversation: Conversation) -> Conversation:
        for message in conversation["messages"]:
            for part in client_calls(message) if message["role"] == "assistant" else ():
                for key in THINKING_EXTRAS:
                    (part.get("extra") or {}).pop(key, None)
        return conversation


class OlderThinkingDropped(Wrapped):
    """Only the latest assistant message keeps its thinking blocks (the provider takes earlier ones
    without theirs, but the model loses that reasoning)."""

    def given(self, conversation: Conversation) -> Conversation:
        assistant = [m for m in conversation["messages"] if m["role"] == "assistant"]
        for message in assistant[:-1]:
            for part in client_calls(message):
                for key in THINKING_EXTRAS:
                    (part.get("extra") or {}).pop(key, None)
        return conversation


class HistoryArgumentsDropped(Wrapped):
    """Calls are stored without their arguments and go back in the history with `{}`."""

    def given(self, conversation: Conversation) -> Conversation:
        for message in conversation["messages"]:
            if message["role"] == "assistant":
                for part in client_calls(message):
                    part["arguments"] = {}
        return conversation


class SecondIdInChunkDropped(MistralChatCodec):
    """A stream reader that takes the id from a chunk's first tool-call entry only: the second of two
    calls that arrive in one chunk (as Mistral sends a turn's calls) decodes without its id."""

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        trimmed = []
        for event in events:
            data = event.get("data")
            if isinstance(data, dict):
                data = json.loads(json.dumps(data))
                for choice in data.get("choices") or []:
                    for entry in ((choice.get("delta") or {}).get("tool_calls") or [])[1:]:
                        entry.pop("id", None)
                event = {**event, "data": data}
            trimmed.append(event)
        return super().decode_stream(trimmed)


class HistoryDropped(Wrapped):
    """The conversation handed in (calls made and answered before this run) never reaches the provider:
    the first request holds only its user and system turns, and later ones add what this run said."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.handed: int | None = None  # how many messages the first request was given

    def given(self, conversation: Conversation) -> Conversation:
        messages = conversation["messages"]
        if self.handed is None:
            self.handed = len(messages)
        kept = [m for m in messages[: self.handed] if m["role"] in ("user", "system")]
        conversation["messages"] = [*kept, *messages[self.handed :]]
        return conversation


class ToolsDropped(OpenAIChatCodec):
    """The request goes out without the tools the application was given."""

    def encode(self, conversation: Any) -> dict[str, Any]:
        body = dict(super().encode(conversation))
        body.pop("tools", None)
        return body


class StreamCallsDropped(OpenAIChatCodec):
    """A streamed response's calls are never reassembled: only its text comes out."""

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        message = super().decode_stream(events)
        message["parts"] = [p for p in message["parts"] if p["type"] != "tool_call"]
        return message


class OutputsQuotesStripped(Wrapped):
    """Every `"` is stripped from each output (LlamaIndex.TS's tool messages): the output is all
    there, altered in form, under its own call's id."""

    def given(self, conversation: Conversation) -> Conversation:
        for results in client_results(conversation):
            for part in results:
                output = part["output"]
                part["output"] = (output if isinstance(output, str) else json.dumps(output)).replace('"', "")
        return conversation


class FirstCallOfEachChunk(OpenAIChatCodec):
    """Only a chunk's first tool-call entry is read (`delta.tool_calls[0]`, as LlamaIndex.TS 0.12 reads a
    stream): two calls that arrive whole in one chunk come out as one, and the second is silently lost."""

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        trimmed = []
        for event in events:
            data = event.get("data")
            if isinstance(data, dict):
                data = json.loads(json.dumps(data))
                for choice in data.get("choices") or []:
                    delta = choice.get("delta") or {}
                    if delta.get("tool_calls"):
                        delta["tool_calls"] = delta["tool_calls"][:1]
                event = {**event, "data": data}
            trimmed.append(event)
        return super().decode_stream(trimmed)


class RepairDisabled(OpenAIChatCodec):
    """The stored history goes out as it was: a run cut off before its tool answered leaves the call
    without a tool message in the next run's request."""

    def repair(self, conversation: Conversation) -> Conversation:
        return conversation
