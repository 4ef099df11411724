"""A provider's verbatim error, told in the case's own terms.

The corpus quotes each provider error as a public report gave it, with that report's ids
(`toolu_01HqfL...`), positions (`messages.22`) and lengths. Shown beside a violation of another
request, those read as if they were this run's. `adapt` puts the case's own values in their place,
where they can be read off the violation's location in the request the adapter sent, and records
each substitution, so the verbatim quote and its source stay available beside the adapted text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conformance.engine.exchange import Exchange
from conformance.engine.violations import Violation

# Ids as providers quote them: a known prefix and a long body, or the placeholders reports use
# (`call_...`, `call_XXX`, `tooluse_…`); Kimi's positional ids; and Mistral's "id was X but" and
# "tool call id X in", whose ids have no prefix.
# The body's minimum length keeps field names such as `call_id` out.
_ID = re.compile(
    r"(?<![\w.])(?:srvtoolu|toolu|tooluse|call|fc)_(?:\.\.\.|…|XXX\b|[A-Za-z0-9_-]{8,})"
    r"|(?<![\w.])functions\.[A-Za-z0-9_-]+:\d+"
    r"|(?<=\bid was )[^\s,]+(?= but\b)"
    r"|(?<=\btool call id )[^\s,]+(?= in\b)"
)
_ID_LIST = re.compile(rf"(?:{_ID.pattern})(?:, (?:{_ID.pattern}))*")
# A request path as providers write it: `messages.12.content.0`, `messages[2].tool_calls[0].id`, `input[N].id`.
_PATH = re.compile(r"(?<![\w.])(?:messages|input|contents)(?:\.(?:\d+|N)\b|\[(?:\d+|N)\]|\.[A-Za-z_][A-Za-z0-9_]*)+")
_STEP = re.compile(r"(?P<index>\d+|N(?![A-Za-z0-9_]))|(?P<name>[A-Za-z_][A-Za-z0-9_]*)")
_LENGTH = re.compile(r"(?<=got a string with )length \d+")
_LOCATION = re.compile(r"request\[(\d+)\]\.(.+)")


@dataclass(frozen=True)
class Quote:
    """A provider error with the case's values in place of the report's."""

    text: str
    substituted: tuple[tuple[str, str], ...]  # (as the report has it, as this case has it)

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "substituted": [list(pair) for pair in self.substituted]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Quote:
        return cls(str(data["text"]), tuple((str(a), str(b)) for a, b in data.get("substituted", ())))


def _steps(path: str) -> list[str | int]:
    """`messages[1].content[0].id` or `messages.1.content.0` -> ['messages', 1, 'content', 0, 'id']."""
    steps: list[str | int] = []
    for step in _STEP.finditer(path):
        index = step.group("index")
        steps.append(step.group("name") if index is None else -1 if index == "N" else int(index))
    return steps


def _value_at(body: Any, steps: Sequence[str | int]) -> Any:
    node = body
    for step in steps:
        found = (isinstance(step, str) and isinstance(node, dict) and step in node) or (
            isinstance(step, int) and isinstance(node, list) and 0 <= step < len(node)
        )
        if not found:
            return None
        node = node[step]
    return node


def _path_for_case(quoted: str, location: Sequence[str | int]) -> str | None:
    """The quoted path with the case's indices, when it names the same field as the location, or the
    element that holds it (ending on an index); None when it names something else."""
    steps = _steps(quoted)
    if not steps or len(steps) > len(location):
        return None
    same_shape = all(
        (isinstance(q, str) and q == loc) or (isinstance(q, int) and isinstance(loc, int))
        for q, loc in zip(steps, location, strict=False)
    )
    if not same_shape or (len(steps) < len(location) and not isinstance(steps[-1], int)):
        return None
    indices = iter([loc for q, loc in zip(steps, location, strict=False) if isinstance(q, int)])
    return re.sub(r"\d+|N\b", lambda m: str(next(indices)), quoted)


EMPTY = '""'  # how an empty id is told in a quote: the report's id in its place would read as this case's


def adapt(verbatim: str, location: str, sent: Any, received: Any = None) -> Quote | None:
    """`verbatim` with the ids, positions and id length of the location in `sent` (the request body);
    None when nothing differs. `received`: the id the violation reports as sent, for a location
    that holds none (an id field left out)."""
    match = _LOCATION.fullmatch(location)
    if not match:
        return None
    steps = _steps(match.group(2))
    value = _value_at(sent, steps)
    if not isinstance(value, str):
        # A violation's `received` is an id, or a sentence ("the result alone"): only an id stands in.
        value = received if isinstance(received, str) and not any(c.isspace() for c in received) else None
    case_id = value if value is None or value else EMPTY
    substituted: list[tuple[str, str]] = []

    def swap(found: re.Match[str], replacement: str | None) -> str:
        quoted = found.group(0)
        if replacement is None or replacement == quoted:
            return quoted
        substituted.append((quoted, replacement))
        return replacement

    text = verbatim
    if case_id is not None:
        text = _ID_LIST.sub(lambda m: swap(m, case_id), text)
        text = _LENGTH.sub(lambda m: swap(m, f"length {len(value or '')}"), text)
    text = _PATH.sub(lambda m: swap(m, _path_for_case(m.group(0), steps)), text)
    return Quote(text, tuple(substituted)) if substituted else None


def request_of(exchange: Exchange, location: str) -> Any:
    match = _LOCATION.fullmatch(location)
    if not match:
        return None
    index = int(match.group(1))
    return next((t.request for t in exchange.turns if t.index == index), None)


def quotes_for(violations: Sequence[Violation], exchange: Exchange) -> dict[int, Quote]:
    """Violation index -> its provider error in the case's terms, for those that differ from the quote."""
    found: dict[int, Quote] = {}
    for i, violation in enumerate(violations):
        if not violation.provider_error:
            continue
        sent = request_of(exchange, violation.location)
        quote = adapt(violation.provider_error, violation.location, sent, violation.received)
        if quote is not None:
            found[i] = quote
    return found


def told_for(violation: Violation, sent: Any) -> str:
    """The violation's provider error as the provider would word it to this request: with the
    request's own ids and positions where the quoted report had its own."""
    verbatim = violation.provider_error or ""
    quote = adapt(verbatim, violation.location, sent, violation.received)
    return quote.text if quote is not None else verbatim
