"""NodeTool (nodetool-ai/nodetool), the OpenAI provider's Responses input before PR #4252."""

from __future__ import annotations

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import ToolCallPart
from conformance.reference.openai_responses import OpenAIResponsesCodec


class CallIdAsItemId(OpenAIResponsesCodec):
    """#4252: the provider's message history kept one id per tool call, the `call_id`, and converting it
    to Responses input wrote that id into the `function_call` item's `id` as well as its `call_id`. The
    API rejected the item: "Invalid 'input[N].id': 'call_...'. Expected an ID that begins with 'fc'." The
    fix leaves `id` out."""

    def item_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"]  # the one id the history kept


NODETOOL_4252 = CodecAdapter(
    name="nodetool-4252",
    version="OpenAI provider Responses conversion before PR #4252",
    codecs={"openai-responses": CallIdAsItemId()},
    homepage="https://github.com/nodetool-ai/nodetool/pull/4252",
)
