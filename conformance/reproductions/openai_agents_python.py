"""OpenAI Agents SDK (openai/openai-agents-python), the run loop before PR #1855."""

from __future__ import annotations

from typing import Any

from conformance.connectors.contract import CodecAdapter
from conformance.engine.neutral import Message
from conformance.reference.openai_responses import OpenAIResponsesCodec

LOCAL_SHELL_OUTPUT = "openai-responses/LocalShellToolCallOutput"


class LocalShellOutputNeverSent(OpenAIResponsesCodec):
    """#1855: "The local command ran, but its output was not returned to the LLM." `execute_tools_and_side_effects`
    gathered the function tool calls and the computer actions of a response, but not its local shell calls,
    so no `local_shell_call_output` joined the next input while the `local_shell_call` went back in the
    history. (The output item, once built, named the call in `id`; the fix also moved it to `call_id`,
    "the server actually expects `call_id`".)"""

    def encode_message(self, message: Message) -> list[dict[str, Any]]:
        if message["role"] == "tool":
            kept = [p for p in message["parts"] if p.get("wire_type") != LOCAL_SHELL_OUTPUT]
            message = {**message, "parts": kept}
        return super().encode_message(message)


OPENAI_AGENTS_PYTHON_1855 = CodecAdapter(
    name="openai-agents-python-1855",
    version="src/agents/_run_impl.py before cfddc7c2 (PR #1855)",
    codecs={"openai-responses": LocalShellOutputNeverSent()},
    homepage="https://github.com/openai/openai-agents-python/pull/1855",
)
