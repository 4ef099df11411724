"""Reference codec for Kimi (Moonshot) chat completions.

OpenAI Chat's steps with Kimi's wire types. Kimi's `functions.{name}:{index}` ids go back
unchanged: the chat template renders them into the prompt and the model imitates them, so a
sanitised id degrades later calls. Ids from a history begun elsewhere become
`functions.{name}:{position in the conversation}` (`IdMap("kimi-chat")`), continuing the count
across turns as Kimi's own servers do.
"""

from __future__ import annotations

from typing import Any

from conformance.engine.neutral import ToolResultPart
from conformance.reference.openai_chat import OpenAIChatCodec

API = "kimi-chat"
CALL = "kimi-chat/ToolCall"
TOOL_MESSAGE = "kimi-chat/ToolMessage"


class KimiChatCodec(OpenAIChatCodec):
    api = API
    call_type = CALL
    custom_call_type = None

    def encode_result(self, part: ToolResultPart) -> dict[str, Any]:
        # Moonshot's tool-call guide sends the function name with every result.
        encoded = super().encode_result(part)
        if part.get("name"):
            encoded["name"] = part["name"]
        return encoded
