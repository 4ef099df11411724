"""Token.js (token-js/token.js), the Gemini handler before PR #36."""

from __future__ import annotations

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import ToolResultPart
from conformance.reference.gemini import GeminiCodec, Paired, SentCalls


class ResultsInGivenOrder(GeminiCodec):
    """#36: "our Gemini integration assumes that the user is supplying the tool result messages in the same
    order that they appear in the preceding assistant message". `convertMessagesToContents` mapped the
    OpenAI-format messages one by one (`clonedMessages.map(convertMessageToContent)`), each tool message
    becoming a `functionResponse` named after its `tool_call_id`, in the order the caller appended them.
    Gemini pairs id-less responses with the calls by order."""

    def order_results(self, results: list[ToolResultPart], calls: SentCalls) -> Paired:
        return [(result, None, None) for result in results]


TOKEN_JS_36 = CodecAdapter(
    name="token-js-36",
    version="src/handlers/gemini.ts before PR #36",
    codecs={"gemini": ResultsInGivenOrder()},
    homepage="https://github.com/token-js/token.js/pull/36",
)
