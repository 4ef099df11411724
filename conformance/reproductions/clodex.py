"""clodex (bman654/clodex): the Anthropic to Responses translation before PR #252."""

from __future__ import annotations

from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import Conversation
from conformance.reference.openai_responses import OpenAIResponsesCodec


class ThreadContinuationForwarded(OpenAIResponsesCodec):
    """#252: clodex gave the replies it translated `msg_` ids. Claude Code takes an assistant message whose
    id starts with `msg_` as one the server holds, and after a tool call sends only the new messages (the
    tool result) as a continuation of it. The upstream keeps no conversation, and clodex translated the
    partial request as it came: the upstream Responses request holds the function_call_output and nothing
    before it. The codec plays that upstream request: after a tool round, only the items since the last
    function call go out."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        body = dict(super().encode(conversation))
        items = list(body.get("input") or [])
        last = max((i for i, item in enumerate(items) if item.get("type") == "function_call"), default=None)
        if last is not None and any(item.get("type") == "function_call_output" for item in items[last + 1 :]):
            body["input"] = items[last + 1 :]
        return body


CLODEX_252 = CodecAdapter(
    name="clodex-252",
    version="clodex before PR #252, with Claude Code 2.1.274",
    codecs={"openai-responses": ThreadContinuationForwarded()},
    homepage="https://github.com/bman654/clodex/pull/252",
)
