"""Shared pieces of the cassette builders: deterministic seeds, compact JSON, interactions."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from conformance.corpus import ExpectedTurn, Scenario

JSON = "application/json"
SSE = "text/event-stream; charset=utf-8"


def seed(scenario: Scenario, turn: int) -> str:
    return hashlib.sha256(f"{scenario.id}#{turn}".encode()).hexdigest()


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def split(text: str, parts: int = 3) -> list[str]:
    if len(text) < parts:
        return [text]
    step = -(-len(text) // parts)
    return [text[i : i + step] for i in range(0, len(text), step)]


def interaction(
    uri: str, request: dict[str, Any], content_type: str, body: str, *, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    """One vcrpy interaction: a JSON POST and the response the provider served."""
    host = uri.split("/")[2]
    extra = {k: [v] for k, v in (headers or {}).items()}
    return {
        "request": {
            "body": compact(request),
            "headers": {"accept": [JSON], "content-type": [JSON], "host": [host], **extra},
            "method": "POST",
            "uri": uri,
        },
        "response": {
            "body": {"string": body},
            "headers": {"content-type": [content_type]},
            "status": {"code": 200, "message": "OK"},
        },
    }


def sse(data: Any, event: str | None = None) -> str:
    """One server-sent event carrying JSON data."""
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {compact(data)}\n\n"


def prior_turns(scenario: Scenario) -> tuple[ExpectedTurn, ...]:
    """The turns of a history begun on another API (cross-provider scenarios), else none."""
    return scenario.history.turns if scenario.history else ()
