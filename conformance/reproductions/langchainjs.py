"""LangChain.js (langchain-ai/langchainjs), `@langchain/google-common` as reported in #10196."""

from __future__ import annotations

from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.reference.gemini import GeminiCodec


class FirstPartPerChunk(GeminiCodec):
    """#10196: the streaming path built each chunk's message with
    `partToMessageChunk(responseToParts(response)[0])`, the chunk's first part only, while the
    non-streaming path read every part. A chunk carrying two `functionCall` parts streamed one tool call:
    "invoke() returns 2 tool_calls", "stream() returns only 1 tool_call"."""

    def accumulate(self, collected: dict[Any, dict[str, Any]], key: tuple[int, int], part: dict[str, Any]) -> None:
        if key[1] == 0:  # (chunk, part index within the chunk)
            super().accumulate(collected, key, part)


LANGCHAINJS_10196 = CodecAdapter(
    name="langchainjs-10196",
    version="@langchain/google-common responseToChatGeneration, as reported in #10196",
    codecs={"gemini": FirstPartPerChunk()},
    homepage="https://github.com/langchain-ai/langchainjs/issues/10196",
)
