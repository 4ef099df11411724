"""`--show-requests`: every request the adapter sent in a case, pretty-printed beside the recorded one.

The diff a failure shows covers the id-bearing fields only; a user chasing a bug wants the whole
body their library produced. Each turn's body is printed as indented JSON as sent, then the
recorded body as a unified diff against it (the two share most of their lines), with long strings
cut (an adapter may send a megabyte of text).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from typing import Any

from conformance.engine.exchange import Exchange

# A body longer than this many lines is cut: the ids are near the top of every API's request.
MAX_LINES = 400
MAX_STRING = 300


def requests_of(exchange: Exchange) -> list[dict[str, Any]]:
    """Each turn's request as sent, and as recorded (None where the recording is not known)."""
    return [{"turn": t.index, "sent": t.request, "recorded": t.expected_request} for t in exchange.turns]


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_STRING:
        return f"{value[: MAX_STRING // 2]}…[{len(value):,} characters]"
    if isinstance(value, dict):
        return {k: _short(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_short(v) for v in value]
    return value


def _pretty(body: Any, indent: str) -> list[str]:
    if body is None:
        return [f"{indent}(not recorded)"]
    text = json.dumps(_short(body), indent=2, ensure_ascii=False, sort_keys=False, default=repr)
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        lines = [*lines[:MAX_LINES], f"… {len(lines) - MAX_LINES} more lines"]
    return [indent + line for line in lines]


def requests_text(requests: Sequence[dict[str, Any]]) -> str:
    """The requests of one case, sent beside recorded, as plain text for the terminal."""
    if not requests:
        return "  No request was sent."
    lines: list[str] = []
    for entry in requests:
        turn = entry.get("turn")
        lines.append(f"  request[{turn}] as sent:")
        lines += _pretty(entry.get("sent"), "    ")
        recorded = entry.get("recorded")
        if recorded == entry.get("sent"):
            lines.append(f"  request[{turn}] as recorded: the same")
        elif recorded is None:
            lines.append(f"  request[{turn}] as recorded: not known")
        else:
            # The recorded body as the lines it changes: the two bodies share most of their lines.
            lines.append(f"  request[{turn}] as recorded (- as sent, + as recorded):")
            diff = difflib.unified_diff(_pretty(entry.get("sent"), ""), _pretty(recorded, ""), lineterm="", n=2)
            lines += [f"    {line}" for line in _formatting_marked(list(diff)[2:])]
    return "\n".join(lines)


_ARGUMENT_KEYS = frozenset({"arguments", "input", "args"})
FORMATTING = "  (formatting only: the same arguments, spaced otherwise)"


def _arguments_in(line: str) -> Any:
    """The arguments a pretty-printed line holds as a JSON text (`"arguments": "{\"a\": 1}"`), read;
    None for any other line."""
    text = line[1:].strip().removesuffix(",")
    try:
        field = json.loads("{" + text + "}")
    except ValueError:
        return None
    if not isinstance(field, dict) or len(field) != 1:
        return None
    key, value = next(iter(field.items()))
    if key not in _ARGUMENT_KEYS or not isinstance(value, str):
        return None
    try:
        return json.loads(value)
    except ValueError:
        return None


def _formatting_marked(diff: list[str]) -> list[str]:
    """The diff with each removed and added pair of lines that hold the same arguments, spaced
    otherwise (`{"a": 1}` against `{"a":1}`), shown once, marked as formatting: whitespace inside an
    `arguments` string is no change of the call."""
    out: list[str] = []
    i = 0
    while i < len(diff):
        line = diff[i]
        after = diff[i + 1] if i + 1 < len(diff) else ""
        if line.startswith("-") and after.startswith("+"):
            sent = _arguments_in(line)
            if sent is not None and sent == _arguments_in(after):
                out.append(f"~{line[1:]}{FORMATTING}")
                i += 2
                continue
        out.append(line)
        i += 1
    return out
