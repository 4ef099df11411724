"""Genkit Go `compat_oai` (genkit-ai/genkit): before PR #3248, before PR #3536, and before PR #4112."""

from __future__ import annotations

from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import Message, Part, ToolCallPart, ToolResultPart
from conformance.reference.openai_chat import OpenAIChatCodec, parse_arguments


class NameAsId(OpenAIChatCodec):
    """The tool's name where the call's id belongs, on the call and on its tool message: #3247's
    `convertToolCall` set `ID: part.ToolRequest.Name`, and the tool message named the call by
    `p.ToolResponse.Name`."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return part["name"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part.get("name")


class NameAsIdOutputAsResultId(NameAsId):
    """#3247 as it shipped: the tool message was built with `openai.ToolMessage(p.ToolResponse.Name,
    anyToJSONString(p.ToolResponse.Output))`, but openai-go's `ToolMessage` takes `(content, toolCallID)`:
    the tool's name went out as the content and its output, as JSON text, as `tool_call_id`, a tool message
    naming no call. PR #3248 sent `Ref` instead of the name but kept the order; PR #3501 fixed the order."""

    def encode_result(self, part: ToolResultPart) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": part["output"], "content": part.get("name") or ""}


class RefOrName(OpenAIChatCodec):
    """#2224, after #3248 and #3501: `convertToolCall` and the tool message send `Ref`, the provider's id stored on
    parse, "otherwise fall back to tool name". A call served with an empty id has an empty `Ref`, so two
    such calls to one tool go out under one id, the tool's name, and so do their tool messages. Nothing
    filled in a missing `Ref` until #4112 (`ensureToolRequestRefs`)."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"] or part["name"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"] or part.get("name")


class SingleStreamedCall(RefOrName):
    """#3536: the streaming path kept one `currentToolCall` with no `Ref`: each delta's name
    overwrote it and every delta's arguments were appended to it, so several streamed calls
    collapsed into the last one, id-less. Encoding used #3248's `Ref`, falling back to `Name`."""

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        name, arguments = "", ""
        for event in events:
            for choice in (event.get("data") or {}).get("choices") or []:
                for entry in (choice.get("delta") or {}).get("tool_calls") or []:
                    function = entry.get("function") or {}
                    name = function.get("name") or name
                    arguments += function.get("arguments") or ""
        parts: list[Part] = []
        if name:
            parts.append({"type": "tool_call", "call_id": None, "name": name, "arguments": parse_arguments(arguments)})
        return {"role": "assistant", "parts": parts}


GENKIT_3247 = CodecAdapter(
    name="genkit-3247",
    version="go/plugins/compat_oai before 46594d26 (PR #3248)",
    codecs={"openai-chat": NameAsIdOutputAsResultId()},
    homepage="https://github.com/genkit-ai/genkit/issues/3247",
)

GENKIT_2224 = CodecAdapter(
    name="genkit-2224",
    version="go/plugins/compat_oai from 02ffc200 (PR #3501), before PR #4112",
    codecs={"openai-chat": RefOrName()},
    homepage="https://github.com/genkit-ai/genkit/issues/2224",
)

GENKIT_3536 = CodecAdapter(
    name="genkit-3536",
    version="go/plugins/compat_oai from 02ffc200 (PR #3501), before cd264f4c",
    codecs={"openai-chat": SingleStreamedCall()},
    homepage="https://github.com/genkit-ai/genkit/pull/3536",
)
