"""PI-Desktop (vastsa/PI-Desktop): the history replay of issue #718, as the thread diagnosed it."""

from __future__ import annotations

from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import Message
from conformance.reference.anthropic_messages import AnthropicMessagesCodec


class EverySnapshotReplayed(AnthropicMessagesCodec):
    """#718: the session transcript is an append-only stream of snapshots, and "the same tool_call appears as
    several records" (pending, then complete); the thread's diagnosis is that the replay put more than one
    snapshot of a call into `messages`. The codec replays each call's complete snapshot twice, with its id,
    in the assistant message that carried it."""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        encoded = super().encode_message(message)
        for entry in encoded:
            if entry["role"] == "assistant":
                entry["content"] = [
                    copy
                    for block in entry["content"]
                    for copy in ([block, dict(block)] if block.get("type") == "tool_use" else [block])
                ]
        return encoded


PI_DESKTOP_718 = CodecAdapter(
    name="pi-desktop-718",
    version="PI-Desktop 0.15.1, as diagnosed in #718",
    codecs={"anthropic-messages": EverySnapshotReplayed()},
    homepage="https://github.com/vastsa/PI-Desktop/issues/718",
)
