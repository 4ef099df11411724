"""Reference codec for Mistral chat completions.

OpenAI Chat's steps with Mistral's wire types: ids Mistral issued go back byte for byte; ids
from a history begun elsewhere become nine alphanumerics (`IdMap("mistral-chat")`, the same
mapping on the call and on its result); tool messages name their function.
"""

from __future__ import annotations

from typing import Any

from conformance.engine.neutral import Message, ToolResultPart
from conformance.reference.openai_chat import OpenAIChatCodec, _Pending

API = "mistral-chat"
CALL = "mistral-chat/ToolCall"
TOOL_MESSAGE = "mistral-chat/ToolMessage"
NULL_ID = "null"  # mistralai's default for a call built without an id


class MistralChatCodec(OpenAIChatCodec):
    api = API
    call_type = CALL
    custom_call_type = None

    def decode(self, response: dict[str, Any]) -> Message:
        if not response.get("stream"):
            # Mistral may send content as a list of chunks; only its text matters here.
            message = response["body"]["choices"][0]["message"]
            if isinstance(message.get("content"), list):
                text = "".join(c.get("text", "") for c in message["content"] if isinstance(c, dict))
                response = {**response, "body": _with_content(response["body"], text)}
        return super().decode(response)

    def accumulate(self, entry: dict[str, Any], by_index: dict[int, _Pending], calls: list[_Pending]) -> None:
        if entry.get("id") == NULL_ID:
            entry = {k: v for k, v in entry.items() if k != "id"}
        super().accumulate(entry, by_index, calls)

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        encoded = super().encode_message(message)
        for entry in encoded:
            if entry["role"] == "assistant" and entry.get("content") is None:
                entry["content"] = ""
        return encoded

    def encode_result(self, part: ToolResultPart) -> dict[str, Any]:
        encoded = super().encode_result(part)
        if part.get("name"):
            encoded["name"] = part["name"]
        return encoded


def _with_content(body: dict[str, Any], text: str) -> dict[str, Any]:
    choice = body["choices"][0]
    return {**body, "choices": [{**choice, "message": {**choice["message"], "content": text}}, *body["choices"][1:]]}
