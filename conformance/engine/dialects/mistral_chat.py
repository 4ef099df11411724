"""Mistral chat completions (`POST https://api.mistral.ai/v1/chat/completions`).

The OpenAI Chat wire with Mistral's own id grammar: `tool_calls[].id` is exactly nine
alphanumerics (checked by mistral-common's validator from tokenizer v3 on), echoed by
`tool_call_id` on each tool message, which also carries the function `name`. Streams send each
call whole in one delta; the SDK fills a delta without an id with the literal sentinel "null".
"""

from __future__ import annotations

from typing import Any

from conformance.engine.dialects.openai_chat import OpenAIChat
from conformance.recordings.cassette import HttpRequest

API = "mistral-chat"
CALL = f"{API}/ToolCall"
TOOL_MESSAGE = f"{API}/ToolMessage"

# mistralai's ToolCall.id defaults to this string; on a delta it means "no id".
NULL_ID = "null"


class MistralChat(OpenAIChat):
    api = API
    call_type = CALL
    custom_call_type = CALL  # Mistral has no custom tools; a stray entry is still a call
    chunk_type = CALL
    tool_message_type = TOOL_MESSAGE

    def handles(self, request: HttpRequest) -> bool:
        return request.host.endswith("mistral.ai") and request.path.endswith("/chat/completions")

    def delta_id(self, entry: dict[str, Any]) -> str | None:
        call_id = super().delta_id(entry)
        return None if call_id == NULL_ID else call_id
