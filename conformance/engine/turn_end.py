"""Whether a served response asks the client for another request, or ends its tool loop.

A tool loop sends again when a response holds a call for the client to answer. A response that
holds only text and the provider's own tool items (a web search with its results, code the
provider ran) asks nothing of the client, and a correct loop ends there; only where the provider's
protocol says the turn is unfinished must the client send it back (Anthropic `stop_reason:
pause_turn`, when a server tool's loop hit its iteration limit).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.engine.wire import Served

# The stop reasons with which a provider says: send the conversation back, the turn goes on.
_CONTINUE = {"anthropic-messages": frozenset({"pause_turn"}), "ollama-messages": frozenset({"pause_turn"})}


def asks_client(api: str, served: Served) -> str | None:
    """Why the client must send another request after this response; None when its loop ends here."""
    calls = [c.name or "(unnamed)" for c in served.calls if not c.provider_executed]
    if calls:
        return f"it calls the client's {', '.join(dict.fromkeys(calls))}"
    reason = _stop_reason(served.payload)
    if reason is not None and reason in _CONTINUE.get(api, frozenset()):
        return f"it stops with {reason}, which the client sends back to continue the turn"
    return None


def _stop_reason(payload: Mapping[str, Any]) -> str | None:
    """Anthropic's stop_reason, from one body or from a stream's message_delta."""
    if not payload.get("stream"):
        body = payload.get("body")
        reason = body.get("stop_reason") if isinstance(body, Mapping) else None
        return reason if isinstance(reason, str) else None
    found: str | None = None
    for event in payload.get("events") or ():
        data = event.get("data") if isinstance(event, Mapping) else None
        delta = data.get("delta") if isinstance(data, Mapping) and data.get("type") == "message_delta" else None
        reason = delta.get("stop_reason") if isinstance(delta, Mapping) else None
        found = reason if isinstance(reason, str) else found
    return found
