"""openai-python (openai/openai-python), `accumulate_delta` before PR #3425."""

from __future__ import annotations

import copy
from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import Message, Part, ToolCallPart
from conformance.reference.openai_chat import CALL, OpenAIChatCodec, parse_arguments


def _accumulate(acc: dict[str, Any], delta: dict[str, Any]) -> None:
    for key, value in delta.items():
        if key in ("index", "type") or acc.get(key) is None:
            acc[key] = value
        elif isinstance(value, str):
            acc[key] += value
        elif isinstance(value, dict):
            _accumulate(acc[key], value)


class AccumulateDelta(OpenAIChatCodec):
    """#3201: `accumulate_delta` stored the first `tool_calls` list it met as it was (`if key not
    in acc: acc[key] = delta_value`) and merged later entries into the list position their `index`
    names. Two entries with index 0 in the first chunk stayed two: later fragments joined the
    first, the second kept the fragment it came with, and neither held valid JSON."""

    def decode_stream(self, events: list[dict[str, Any]]) -> Message:
        slots: list[dict[str, Any]] | None = None
        for event in events:
            for choice in (event.get("data") or {}).get("choices") or []:
                entries = (choice.get("delta") or {}).get("tool_calls")
                if not entries:
                    continue
                if slots is None:
                    slots = copy.deepcopy(entries)
                    continue
                for entry in entries:
                    if entry["index"] < len(slots):
                        _accumulate(slots[entry["index"]], entry)
                    else:
                        slots.insert(entry["index"], copy.deepcopy(entry))
        message = super().decode_stream(events)
        parts: list[Part] = [p for p in message["parts"] if p["type"] == "text"]
        for slot in slots or []:
            function = slot.get("function") or {}
            call: ToolCallPart = {
                "type": "tool_call",
                "call_id": slot.get("id"),
                "name": function.get("name") or "",
                "arguments": parse_arguments(function.get("arguments", "")),
                "wire_type": CALL,
            }
            parts.append(call)
        return {"role": "assistant", "parts": parts}


OPENAI_PYTHON_3201 = CodecAdapter(
    name="openai-python-3201",
    version="src/openai/lib/streaming/_deltas.py before PR #3425",
    codecs={"openai-chat": AccumulateDelta()},
    homepage="https://github.com/openai/openai-python/issues/3201",
)
