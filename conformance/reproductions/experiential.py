"""Experiential (experientiallabs/experiential): the gateway's Responses path before PR #797."""

from __future__ import annotations

from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import ToolCallPart
from conformance.reference.openai_responses import Kind, OpenAIResponsesCodec


class CallerStripped(OpenAIResponsesCodec):
    """#797: `caller`, the programmatic tool-calling attribution (`{"type": "program", "caller_id": ...}`) on
    `function_call` and `custom_tool_call` items, was "stripped from provider output by the Rust encoder": the
    gateway synthesizes the client-bound items from parsed events, and the parse kept no `caller`. The client
    stores the item as served to it and echoes it without the field on the next turn. The codec plays the
    gateway and its client as one: a call item is decoded as if it had come without `caller`."""

    def decode_call(self, item: dict[str, Any], kind: Kind) -> ToolCallPart:
        return super().decode_call({key: value for key, value in item.items() if key != "caller"}, kind)


EXPERIENTIAL_797 = CodecAdapter(
    name="experiential-797",
    version="gateway before PR #797 (native 0.3.32)",
    codecs={"openai-responses": CallerStripped()},
    homepage="https://github.com/experientiallabs/experiential/pull/797",
)
