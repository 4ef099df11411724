"""Kimi (Moonshot) chat completions (`POST https://api.moonshot.ai/v1/chat/completions`).

The OpenAI Chat wire, with ids the model itself writes: `functions.{name}:{index}`, where the
index counts calls over the whole conversation (vLLM and sglang number them so; Fireworks'
kimi-k3 restarts it every turn). The chat template renders earlier ids into the prompt, so they
must come back unchanged. Streams join deltas by index as in OpenAI Chat.
"""

from __future__ import annotations

from conformance.engine.dialects.openai_chat import OpenAIChat
from conformance.recordings.cassette import HttpRequest

API = "kimi-chat"
CALL = f"{API}/ToolCall"
TOOL_MESSAGE = f"{API}/ToolMessage"

HOSTS = ("api.moonshot.ai", "api.moonshot.cn")


class KimiChat(OpenAIChat):
    api = API
    call_type = CALL
    custom_call_type = CALL  # Kimi has no custom tools; a stray entry is still a call
    chunk_type = CALL
    tool_message_type = TOOL_MESSAGE

    def handles(self, request: HttpRequest) -> bool:
        return request.host in HOSTS and request.path.endswith("/chat/completions")
