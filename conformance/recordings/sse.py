"""Server-sent event streams, as recorded in a cassette body.

Parsed as the WHATWG event-stream algorithm says: lines end with CRLF, LF or CR; a blank line
dispatches the event; `data` lines join with newlines; a line starting with `:` is a comment;
an event without data is not dispatched. Written here rather than with sseclient-py, whose
parser copies the event so far for every line it adds (an event of 100,000 lines took a hundred
times as long as one of 10,000: the square of the size); this one is linear.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from conformance.recordings.bounds import MAX_DEPTH, json_text_depth

_LINE_END = re.compile(r"\r\n|\r|\n")
_FIELDS = frozenset({"event", "data", "id", "retry"})


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


@dataclass(frozen=True)
class _Raw:
    event: str
    data: str


def _raw_events(body: bytes) -> list[_Raw]:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = _LINE_END.split(body[: exc.start].decode("utf-8"))
        raise StreamError(f"line {len(before)} is not UTF-8: {exc.reason} at byte {exc.start}") from None
    events: list[_Raw] = []
    fields: dict[str, str] = {}
    data: list[str] = []
    for line in _LINE_END.split(text):
        if not line:
            if data:
                events.append(_Raw(fields.get("event") or "message", "\n".join(data)))
            fields, data = {}, []
            continue
        if line[0] == ":" or line.isspace():
            continue  # comments and keep-alives
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value[1:] if value[:1] == " " else value)
        elif name in _FIELDS:
            fields[name] = value[1:] if value[:1] == " " else value
    if data:  # a last event with no blank line after it: dispatched, and judged below
        events.append(_Raw(fields.get("event") or "message", "\n".join(data)))
    return events


def parse_events(body: bytes) -> list[Event]:
    """Parse an SSE body into JSON events; a final event cut off mid-way is an error."""
    events: list[Event] = []
    for index, raw in enumerate(_raw_events(body)):
        if raw.data == "[DONE]" or not raw.data:
            continue  # the end marker, and keep-alives
        try:
            parsed = json.loads(raw.data)
            too_deep = json_text_depth(raw.data) > MAX_DEPTH
        except json.JSONDecodeError as exc:
            truncated = not body.rstrip(b" ").endswith((b"\n\n", b"\r\n\r\n", b"\r\r"))
            reason = "stream ends mid-event" if truncated else "event data is not JSON"
            raise StreamError(f"{reason}: {exc.msg} in {raw.data[:80]!r}", index) from None
        except RecursionError:
            too_deep = True
        if too_deep:
            raise StreamError(f"event data nests deeper than {MAX_DEPTH} levels", index)
        name = raw.event if raw.event != "message" else None
        events.append(Event(index=index, event=name, data=parsed))
    return events
