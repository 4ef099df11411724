"""smolagents (huggingface/smolagents), `agglomerate_stream_deltas` before PR #1958."""

from __future__ import annotations

from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.reference.openai_chat import OpenAIChatCodec, _Pending


class OneCallPerIndex(OpenAIChatCodec):
    """#1569: `agglomerate_stream_deltas` kept one call per `index` (`accumulated_tool_calls[index]`);
    each delta's id and name replaced the call's (`if tool_call_delta.id: tool_call.id = ...`) and
    its arguments were appended. Ollama gives every parallel call index 0, so they merged into one
    call with the last id and arguments such as `{"query": "Emma Bull"}{"query": "Virginia Woolf"}`."""

    def accumulate(self, entry: dict[str, Any], by_index: dict[int, _Pending], calls: list[_Pending]) -> None:
        pending = by_index.get(entry.get("index", 0))
        if pending is None:
            pending = by_index[entry.get("index", 0)] = _Pending()
            calls.append(pending)
        function = entry.get("function") or {}
        pending.call_id = entry.get("id") or pending.call_id
        pending.name = function.get("name") or pending.name
        if function.get("arguments"):
            pending.arguments.append(function["arguments"])


SMOLAGENTS_1569 = CodecAdapter(
    name="smolagents-1569",
    version="src/smolagents/models.py agglomerate_stream_deltas before PR #1958",
    codecs={"openai-chat": OneCallPerIndex()},
    homepage="https://github.com/huggingface/smolagents/issues/1569",
)
