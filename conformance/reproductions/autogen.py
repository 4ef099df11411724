"""AutoGen (microsoft/autogen), as reported in #6377."""

from __future__ import annotations

import json
import uuid
from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import ToolCallPart
from conformance.reference.openai_chat import OpenAIChatCodec


class UuidCallIds(OpenAIChatCodec):
    """#6377: "The tool id is too long ... It is length 41 but max length 40 causing
    openai.BadRequestError". The report does not say which component made the id; this adapter makes
    it the way that yields exactly 41 characters: `call_` and a hyphenated UUID, for a call served
    without a usable id."""

    def decode_call(self, entry: dict[str, Any]) -> ToolCallPart:
        part = super().decode_call(entry)
        if not part["call_id"]:
            part["call_id"] = f"call_{uuid.uuid5(uuid.NAMESPACE_URL, json.dumps(entry, sort_keys=True))}"
        return part


AUTOGEN_6377 = CodecAdapter(
    name="autogen-6377",
    version="as reported in #6377 (2025-04-23)",
    codecs={"openai-chat": UuidCallIds()},
    homepage="https://github.com/microsoft/autogen/issues/6377",
)
