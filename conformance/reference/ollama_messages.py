"""Reference codec for Ollama's Anthropic-compatible Messages endpoint: the Anthropic codec, with
Ollama's wire-type names on what it decodes and Anthropic's on what it is given to encode (the
blocks are the same)."""

from __future__ import annotations

import copy
from typing import Any

from conformance.engine.neutral import Conversation, Message
from conformance.reference.anthropic_messages import API as BASE
from conformance.reference.anthropic_messages import AnthropicMessagesCodec

API = "ollama-messages"


def _renamed(parts: list[Any], old: str, new: str) -> None:
    for part in parts:
        wire_type = part.get("wire_type")
        if isinstance(wire_type, str) and wire_type.startswith(f"{old}/"):
            part["wire_type"] = f"{new}/{wire_type[len(old) + 1 :]}"


class OllamaMessagesCodec(AnthropicMessagesCodec):
    api = API

    def decode(self, response: dict[str, Any]) -> Message:
        message = super().decode(response)
        _renamed(list(message["parts"]), BASE, API)
        return message

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        given = copy.deepcopy(conversation)
        for message in given["messages"]:
            _renamed(list(message["parts"]), API, BASE)
        return super().encode(given)
