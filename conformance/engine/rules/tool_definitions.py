"""format/tools-undeclared: a request whose history holds tool calls or results declares its tools.

Some providers refuse such a request outright (Anthropic: "Requests which include tool_use or
tool_result blocks must define tools."; Bedrock: "The toolConfig field must be defined when using
toolUse and toolResult content blocks."), a fault clients hit when they leave the tools off a
summarising or final turn. Which APIs refuse, and in which field the tools must be, is data: the
call's wire-type case quotes the refusal under this code, with the `field` it is about.
"""

from __future__ import annotations

from typing import Any

from conformance.engine.rules.context import CheckContext
from conformance.engine.violations import Violation
from conformance.engine.wire import History

CODE = "format/tools-undeclared"


def check_request(ctx: CheckContext, body: Any, history: History, where: str) -> list[Violation]:
    kinds = {c.wire_type for m in history.messages for c in m.calls}
    kinds.update(r.wire_type for m in history.messages for r in m.results)
    for wire_type in sorted(kinds):
        known = ctx.corpus.error_text(ctx.dialect.api, CODE, wire_type)
        if known is None or not known.field:
            continue
        tools = _value(body, known.field)
        if isinstance(tools, list) and tools:
            continue
        return [
            ctx.violation(
                CODE,
                f"{where}.{known.field}",
                f"The request sends tool calls or results back but declares no tools in {known.field}; "
                f"{ctx.dialect.api} refuses it.",
                wire_type=wire_type,
                expected="the tool definitions",
                received="none" if tools is None else tools,
            )
        ]
    return []


def _value(body: Any, field: str) -> Any:
    for step in field.split("."):
        body = body.get(step) if isinstance(body, dict) else None
    return body
