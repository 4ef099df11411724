"""Server-sent event streams, as recorded in a cassette body."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import sseclient


class StreamError(ValueError):
    """A stream that cannot be read, with the index of the event at fault."""

    def __init__(self, message: str, event_index: int | None = None) -> None:
        self.event_index = event_index
        where = f"event[{event_index}]: " if event_index is not None else ""
        super().__init__(f"{where}{message}")


@dataclass(frozen=True)
class Event:
    index: int
    event: str | None
    data: Any  # parsed JSON; the terminal `[DONE]` marker is dropped


def parse_events(body: bytes) -> list[Event]:
    """Parse an SSE body into JSON events; a final event cut off mid-way is an error."""
    events: list[Event] = []
    for index, raw in enumerate(sseclient.SSEClient(iter([body])).events()):
        data = raw.data
        if data == "[DONE]":
            continue
        if not data:
            continue  # keep-alives and comments
        try:
            parsed = json.loads(data)
        except json.JSONDecodeError as exc:
            truncated = not body.rstrip(b" ").endswith((b"\n\n", b"\r\n\r\n", b"\r\r"))
            reason = "stream ends mid-event" if truncated else "event data is not JSON"
            raise StreamError(f"{reason}: {exc.msg} in {data[:80]!r}", index) from None
        name = raw.event if raw.event and raw.event != "message" else None
        events.append(Event(index=index, event=name, data=parsed))
    return events
