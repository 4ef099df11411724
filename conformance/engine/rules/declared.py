"""format/tools-dropped: a request leaves out a tool the client was given, which the response calls.

The provider calls only the tools a request declares; a client that was handed its tools and sends
a request without one (no `tools` at all, a loop that forgets them after the first turn) could never
have been served the recorded call, and its application's tool never runs. What the recorded request
declared says which tools the response needed (engine.called_tools); a tool declared under another
name is no fault of the client's, and a built-in the client does not offer is a scenario it does not
support, not a fault either.
"""

from __future__ import annotations

from conformance.engine.called_tools import declared_tools, needed
from conformance.engine.exchange import Turn
from conformance.engine.rules.context import CheckContext
from conformance.engine.violations import Violation

CODE = "format/tools-dropped"


def check_turn(ctx: CheckContext, turn: Turn) -> list[Violation]:
    api = ctx.dialect.api
    missing = [
        n
        for n in needed(api, turn.served, turn.request, turn.expected_request)
        if n.name is not None and n.renamed is None and n.name in ctx.tool_names
    ]
    if not missing:
        return []
    names = ", ".join(n.name or "" for n in missing)
    where = "toolConfig.tools" if api == "bedrock-converse" else "tools"
    return [
        ctx.violation(
            CODE,
            f"request[{turn.index}].{where}",
            f"The request does not declare {names}, which the client was given and response[{turn.index}] "
            f"calls ({missing[0].path}); the provider calls only the tools a request declares.",
            expected=sorted(n.name or "" for n in missing),
            received=sorted(declared_tools(api, turn.request).names),
        )
    ]
