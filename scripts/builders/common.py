"""Shared pieces of the cassette builders: deterministic seeds, compact JSON, interactions."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from conformance.corpus.loading import ExpectedTurn, Scenario

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


@dataclass(frozen=True)
class StreamShape:
    """How a constructed stream delivers each response's calls (the scenario's `stream_shape`).

    Real servers of one wire differ: some repeat a call's id on every delta, send `""` after the
    first, or none at all; number calls from 1; send the name after the first argument fragment;
    interleave parallel calls; split arguments token by token. Each scenario that uses a shape
    cites where a server emits it. Builders honour the options their wire has.
    """

    fragments: int = 3  # argument fragments per call
    interleave: bool = False  # parallel calls' deltas alternate instead of following one another
    indices: tuple[int, ...] = ()  # the stream index of each call of a turn, in order (default 0, 1, ...)
    id: str = "first"  # on which deltas the call id appears: first, every, empty-after-first, absent
    name: str = "first"  # first: with the opening delta; late: after the first argument fragment
    calls_per_event: str = "one"  # one: each call in an event of its own; all: a response's calls in one event
    thought: bool = False  # a thought summary streams before the calls

    def index(self, k: int) -> int:
        return self.indices[k] if k < len(self.indices) else k


def stream_shape(scenario: Scenario) -> StreamShape:
    raw = scenario.data.get("stream_shape") or {}
    return StreamShape(
        fragments=int(raw.get("fragments", 3)),
        interleave=bool(raw.get("interleave", False)),
        indices=tuple(raw.get("indices", ())),
        id=str(raw.get("id", "first")),
        name=str(raw.get("name", "first")),
        calls_per_event=str(raw.get("calls_per_event", "one")),
        thought=bool(raw.get("thought", False)),
    )


def text_before(turn: ExpectedTurn, default: str = "before-calls") -> int:
    """Before which of the turn's calls its text is served: 0 before them all, 1 after the first,
    len(calls) after the last (its `text_position`, else the builder's own place)."""
    return {"before-calls": 0, "between-calls": 1}.get(turn.text_position or default, len(turn.calls))


def history_scenario(scenario: Scenario) -> Scenario:
    """A cross-provider scenario's history as a scenario of its own API: the turns its history
    cassette serves, with the requests a client of that API sent before each."""
    history = scenario.history
    if history is None or not history.cassette:
        raise ValueError(f"{scenario.id} has no history cassette")
    return dataclasses.replace(
        scenario,
        id=f"{scenario.id}.history",
        api=history.api,
        model=history.model or scenario.model,
        cassette=history.cassette,
        stream=False,
        turns=history.turns,
        history=None,
        data={k: v for k, v in scenario.data.items() if k not in ("stream_shape", "history")},
    )
