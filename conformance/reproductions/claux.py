"""claux (ducks/claux): the Chat Completions reader and history of issue #40."""

from __future__ import annotations

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import ToolCallPart, ToolResultPart
from conformance.reference.openai_chat import OpenAIChatCodec


class OmittedIdKeptEmpty(OpenAIChatCodec):
    """#40: `src/api/openai_compat.rs` "keys tool calls by `index`, so two indexes with the same `id`, or an
    omitted id (left as `""`), pass through"; `src/query.rs` pushes every `ToolUse` "with no id check", and the
    assistant blocks and the results are emitted one per entry with the id stored. A call streamed without an
    id therefore goes back with `""` on the call and on its result."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"] or ""

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"] or ""


CLAUX_40 = CodecAdapter(
    name="claux-40",
    version="claux as reported in #40",
    codecs={"openai-chat": OmittedIdKeptEmpty()},
    homepage="https://github.com/ducks/claux/issues/40",
)
