"""CLIProxyAPI (router-for-me/CLIProxyAPI): the stateless Responses to Chat Completions translation
of issue #5735."""

from __future__ import annotations

from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import Conversation
from conformance.reference.openai_chat import OpenAIChatCodec


class StandaloneOutputTranslated(OpenAIChatCodec):
    """#5735: GitHub Copilot's follow-up to a tool call is a `/v1/responses` request whose `input` holds
    only the `function_call_output`, "without replaying the preceding `function_call`" (the client relies on
    the server's stored context). CLIProxyAPI's HTTP Responses endpoint keeps no state, so its translation
    to Chat Completions turns that input into `messages` of the tool message alone: the assistant message
    carrying the call, and everything before it, are not in the upstream request. The codec plays the
    translated upstream request: after a tool round, only the tool messages since the last assistant
    message go out."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        body = dict(super().encode(conversation))
        messages = list(body.get("messages") or [])
        last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=None)
        if last is not None and any(m.get("role") == "tool" for m in messages[last + 1 :]):
            body["messages"] = messages[last + 1 :]
        return body


CLIPROXYAPI_5735 = CodecAdapter(
    name="cliproxyapi-5735",
    version="HTTP /v1/responses to openai-compatibility, v7.2.157",
    codecs={"openai-chat": StandaloneOutputTranslated()},
    homepage="https://github.com/router-for-me/CLIProxyAPI/issues/5735",
)
