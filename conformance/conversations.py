"""A cassette's interactions split into independent conversations.

One recorded test often holds several conversations: sync and async variants of one test, a
retry, a sub-agent beside its parent, a request that opens a new chat. Checking them as one
would compare each request with responses served to another conversation. Here a request
continues a conversation only when it carries that conversation's history: the calls (or the
results of the calls) its last response served, or that response's text, or its response id
(OpenAI Responses `previous_response_id`). Requests are grouped by API first, so a conversation
moved to another API begins again there, with the calls served on the first API in its history.

Used by `conformance lint` (one exchange per conversation) and `conformance import` (one
scenario per conversation).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from conformance.cassette import Cassette, Interaction
from conformance.dialects import detect
from conformance.dialects.base import Dialect, DialectError
from conformance.sse import StreamError
from conformance.wire import History, Served, WireCall


@dataclass(frozen=True)
class Step:
    """One interaction of a conversation, parsed by its dialect."""

    interaction: Interaction
    dialect: Dialect
    body: Any  # the request's JSON body
    history: History
    served: Served

    @property
    def index(self) -> int:
        return self.interaction.index

    @property
    def ok(self) -> bool:
        """Whether the provider answered with success (an error response served nothing)."""
        return self.interaction.response.status < 400


@dataclass
class Conversation:
    api: str
    dialect: Dialect
    steps: list[Step] = field(default_factory=list)

    @property
    def tail(self) -> Step | None:
        """The last step the provider answered: what a continuing request must carry."""
        return next((s for s in reversed(self.steps) if s.ok), None)

    @property
    def indices(self) -> list[int]:
        return [s.index for s in self.steps]

    def served_calls(self) -> Iterator[WireCall]:
        for step in self.steps:
            yield from step.served.calls


@dataclass(frozen=True)
class Unread:
    """An interaction no dialect reads, or whose bodies cannot be parsed."""

    index: int
    reason: str


@dataclass
class Split:
    conversations: list[Conversation] = field(default_factory=list)
    unread: list[Unread] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the responses showed: HTTP errors, stream oddities


def served_by(dialect: Dialect, interaction: Interaction) -> Served:
    """The response as its dialect reads it; an HTTP error serves nothing and says so in a note."""
    where = f"response[{interaction.index}]"
    response = interaction.response
    if response.status >= 400:
        detail = response.text()[:300].strip()
        return Served(False, (), "", {}, notes=(f"{where}: HTTP {response.status}: {detail}",))
    return dialect.served(response, where)


def read_step(interaction: Interaction) -> Step | Unread:
    request = interaction.request
    dialect = detect(request)
    if dialect is None:
        return Unread(interaction.index, f"no dialect for {request.method} {request.host}{request.path}")
    try:
        body = request.json()
        history = dialect.history(body, f"request[{interaction.index}]")
        served = served_by(dialect, interaction)
    except (ValueError, StreamError, DialectError) as exc:
        return Unread(interaction.index, str(exc))
    return Step(interaction, dialect, body, history, served)


def split(cassette: Cassette) -> Split:
    result = Split()
    for interaction in cassette:
        step = read_step(interaction)
        if isinstance(step, Unread):
            result.unread.append(step)
            continue
        result.notes.extend(step.served.notes)
        # The most recent conversation first: a second run of the same test carries the same calls
        # as an earlier one, and continues the latest.
        here = sorted(
            (c for c in result.conversations if c.api == step.dialect.api), key=_last_index, reverse=True
        )
        found = _continued(step, here)
        if found is None:
            result.conversations.append(Conversation(step.dialect.api, step.dialect, [step]))
            continue
        conversation, upto = found
        if upto == len(conversation.steps):
            conversation.steps.append(step)
        else:
            # A request that continues an earlier turn (a retry, a second follow-up) branches: its
            # conversation is that turn's history, then this request.
            result.conversations.append(
                Conversation(conversation.api, conversation.dialect, [*conversation.steps[:upto], step])
            )
    return result


def _last_index(conversation: Conversation) -> int:
    return conversation.steps[-1].index


def _continued(step: Step, candidates: list[Conversation]) -> tuple[Conversation, int] | None:
    """The conversation the step continues, and how many of its steps it follows (all of them, or the
    steps up to the turn it branches from)."""
    for conversation in candidates:
        if continues(step, conversation):
            return conversation, len(conversation.steps)
    for conversation in candidates:
        upto = _branch_point(step, conversation)
        if upto:
            return conversation, upto
    if any(_carried_by_id(step, c) for c in candidates):
        return None  # it carries another turn's calls: not this one under new ids
    for conversation in candidates:
        if _reidentified(step, conversation):
            return conversation, len(conversation.steps)
    return None


def continues(step: Step, conversation: Conversation) -> bool:
    """Whether the step's request carries the history of the conversation's last answered response."""
    tail = conversation.tail
    if tail is None:
        return False
    if step.history.continues:
        return step.history.continues == response_id(tail.served)
    sent = step.history.calls()
    answered = {r.call_id for r in step.history.results() if r.call_id}
    if tail.served.calls:
        # Checked by calls, not by length: a client that truncates its history still continues.
        return any(carries(call, sent, answered) for call in tail.served.calls)
    if len(step.history.messages) <= len(tail.history.messages):
        return False  # a continuation adds at least the served turn to what the last request sent
    if tail.served.text.strip() and _mentions(step.body, tail.served.text):
        return True
    # A final text reworded by the client: the request must then carry an earlier served call.
    return any(carries(call, sent, answered) for call in conversation.served_calls())


def _carries_turn(step: Step, turn: Step) -> bool:
    if step.history.continues:
        return step.history.continues == response_id(turn.served)
    sent = step.history.calls()
    answered = {r.call_id for r in step.history.results() if r.call_id}
    return any(call.call_id and carries(call, sent, answered) for call in turn.served.calls)


def _branch_point(step: Step, conversation: Conversation) -> int:
    """How many steps of the conversation the request follows when it continues a turn before the last
    (0: none): the latest turn whose calls it carries by id, and the text-only turns after it that it
    carries too."""
    steps = conversation.steps
    upto = 0
    for j in range(len(steps) - 1, -1, -1):
        if steps[j].ok and _carries_turn(step, steps[j]):
            upto = j + 1
            break
    while upto and upto < len(steps) and not steps[upto].served.calls:
        text = steps[upto].served.text
        if not (steps[upto].ok and text.strip() and _mentions(step.body, text)):
            break
        upto += 1
    return upto


def _carried_by_id(step: Step, conversation: Conversation) -> bool:
    return any(s.ok and _carries_turn(step, s) for s in conversation.steps)


def _reidentified(step: Step, conversation: Conversation) -> bool:
    """A client that replaced the ids still sends the same history, then the served calls by name and
    arguments: the same conversation, which the round-trip rules then judge."""
    tail = conversation.tail
    if tail is None or not tail.served.calls or step.history.continues:
        return False
    sent = step.history.calls()
    return _extends(tail.body, step.body) and any(
        s.name == c.name and same_arguments(s.arguments, c.arguments) for c in tail.served.calls for s in sent
    )


def carries(call: WireCall, sent: list[WireCall], answered: set[str]) -> bool:
    """Whether a request's calls (or the ids its results answer) include a served call."""
    if call.call_id:
        return call.call_id in answered or any(s.call_id == call.call_id for s in sent)
    # Id-less (Gemini before ids): the same function with the same arguments; clients may add ids.
    return any(s.name == call.name and same_arguments(s.arguments, call.arguments) for s in sent)


def same_arguments(a: Any, b: Any) -> bool:
    """Arguments as data: a JSON string and the object it encodes are the same arguments."""
    return parsed_arguments(a) == parsed_arguments(b)


def parsed_arguments(value: Any) -> Any:
    if isinstance(value, str):
        if not value.strip():
            return {}
        try:
            return json.loads(value)
        except ValueError:
            return value
    return {} if value is None else value


def response_id(served: Served) -> str | None:
    """The id a Responses-style response is stored under (what `previous_response_id` names)."""
    payload = served.payload
    if not payload:
        return None
    if not payload.get("stream"):
        body = payload.get("body")
        found = body.get("id") if isinstance(body, dict) else None
        return found if isinstance(found, str) else None
    for event in payload.get("events", ()):
        data = event.get("data")
        response = data.get("response") if isinstance(data, dict) else None
        if isinstance(response, dict) and isinstance(response.get("id"), str):
            return str(response["id"])
    return None


def _messages(body: Any) -> list[Any]:
    if not isinstance(body, dict):
        return []
    for key in ("messages", "contents", "input"):
        if isinstance(body.get(key), list):
            return list(body[key])
    return []


def _texts(value: Any) -> str:
    """The text a message holds, however its API nests it."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(_texts(v) for v in value)
    if isinstance(value, dict):
        return "".join(_texts(v) for k, v in value.items() if k in ("text", "content", "parts"))
    return ""


def _extends(earlier: Any, later: Any) -> bool:
    """Whether a later request begins with the messages of an earlier one (by role and text)."""
    before, after = _messages(earlier), _messages(later)
    if not before or len(after) <= len(before):
        return False

    def key(message: Any) -> tuple[Any, str]:
        return (message.get("role") if isinstance(message, dict) else None, _texts(message).strip())

    return all(key(a) == key(b) for a, b in zip(before, after, strict=False))


def _mentions(body: Any, text: str) -> bool:
    """Whether a request body carries a served text (its first 200 characters, as JSON would)."""
    needle = json.dumps(text.strip()[:200], ensure_ascii=False)[1:-1]
    return needle in json.dumps(body, ensure_ascii=False)
