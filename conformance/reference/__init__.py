"""The reference adapter: codecs that translate every API correctly, sharing one neutral model."""

from __future__ import annotations

from conformance.adapters import CodecAdapter
from conformance.reference.openai_chat import OpenAIChatCodec

ADAPTER = CodecAdapter(
    name="reference",
    version="0.1.0",
    codecs={"openai-chat": OpenAIChatCodec()},
    notes="Bundled with the suite; passes every scenario.",
)

__all__ = ["ADAPTER", "OpenAIChatCodec"]
