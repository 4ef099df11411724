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

from conformance.engine.dialects import detect
from conformance.engine.dialects.base import Dialect, DialectError
from conformance.engine.wire import History, Served, WireCall
from conformance.recordings.cassette import Cassette, Interaction
from conformance.recordings.sse import StreamError


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
    """An interaction no dialect reads, or whose bodies cannot be parsed (then `api` is its dialect's)."""

    index: int
    reason: str
    api: str | None = None


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
        return Unread(interaction.index, str(exc), dialect.api)
    return Step(interaction, dialect, body, history, served)


class Splitter:
    """Interactions added one at a time (a proxy's, as they happen), each put in its conversation at once;
    what a cassette's `split` is, in the same order, whatever came after."""

    def __init__(self) -> None:
        self.result = Split()
        self._index = _Index()

    def add(self, interaction: Interaction) -> Conversation | Unread:
        """The conversation the interaction now ends (a new one, or a branch), or why it is unread."""
        step = read_step(interaction)
        if isinstance(step, Unread):
            self.result.unread.append(step)
            return step
        self.result.notes.extend(step.served.notes)
        found = self._index.continued(step)
        if found is None:
            conversation = Conversation(step.dialect.api, step.dialect, [step])
            self.result.conversations.append(conversation)
        else:
            conversation, upto = found
            if upto == len(conversation.steps):
                conversation.steps.append(step)
            else:
                # A request that continues an earlier turn (a retry, a second follow-up) branches: its
                # conversation is that turn's history, then this request.
                conversation = Conversation(conversation.api, conversation.dialect, [*conversation.steps[:upto], step])
                self.result.conversations.append(conversation)
        self._index.add(conversation, len(conversation.steps) - 1)
        return conversation


def split(cassette: Cassette) -> Split:
    splitter = Splitter()
    for interaction in cassette:
        splitter.add(interaction)
    return splitter.result


Where = tuple[Conversation, int]  # a conversation and the position of one of its steps


class _Index:
    """What each answered turn served, by what a later request would carry of it: call ids, id-less
    calls by name and arguments, final texts, response ids. The latest turn wins a key, so a request
    continues the most recent conversation that served what it carries (a second run of a test
    carries the same calls as the first). Lookups keep splitting linear in the cassette's size."""

    def __init__(self) -> None:
        self.calls: dict[tuple[str, str], Where] = {}  # (api, call id)
        self.idless: dict[tuple[str, str, str], Where] = {}  # (api, name, arguments as JSON)
        self.texts: dict[tuple[str, str], Where] = {}  # (api, the text's first 200 characters)
        self.responses: dict[tuple[str, str], Where] = {}  # (api, response id)
        self.named: dict[tuple[str, str], list[Conversation]] = {}  # (api, call name) -> conversations

    def add(self, conversation: Conversation, position: int) -> None:
        step = conversation.steps[position]
        if not step.ok:
            return
        api = conversation.api
        where = (conversation, position)
        for call in step.served.calls:
            if call.call_id:
                self.calls[(api, call.call_id)] = where
            else:
                self.idless[(api, call.name or "", _canonical(call.arguments))] = where
            self.named.setdefault((api, call.name or ""), []).append(conversation)
        if step.served.text.strip():
            self.texts[(api, _text_key(step.served.text))] = where
        found = response_id(step.served)
        if found:
            self.responses[(api, found)] = where

    def continued(self, step: Step) -> Where | None:
        """The conversation the step continues, and how many of its steps it follows."""
        api = step.dialect.api
        if step.history.continues:
            where = self.responses.get((api, step.history.continues))
            return (where[0], where[1] + 1) if where else None
        carried = [w for w in self._carried(step) if w[0].api == api]
        if carried:
            conversation, position = max(carried, key=lambda w: w[0].steps[w[1]].index)
            return conversation, self._upto(step, conversation, position)
        return self._reidentified(step)

    def _carried(self, step: Step) -> list[Where]:
        api = step.dialect.api
        found: list[Where] = []
        for call in step.history.calls():
            if call.call_id and (api, call.call_id) in self.calls:
                found.append(self.calls[(api, call.call_id)])
            # Id-less on the wire: clients may add ids of their own when they send the call back.
            idless = self.idless.get((api, call.name or "", _canonical(call.arguments)))
            if idless:
                found.append(idless)
        for result in step.history.results():
            if result.call_id and (api, result.call_id) in self.calls:
                found.append(self.calls[(api, result.call_id)])
        for message in _messages(step.body):
            if isinstance(message, dict) and message.get("role") in ("assistant", "model"):
                text = _texts(message).strip()
                where = self.texts.get((api, _text_key(text))) if text else None
                if where and len(step.history.messages) > len(where[0].steps[where[1]].history.messages):
                    found.append(where)
        return found

    @staticmethod
    def _upto(step: Step, conversation: Conversation, position: int) -> int:
        """All the conversation's steps when the request carries its last answered turn, or when only
        final texts follow the turn it carries and it is longer than the last request (a client that
        reworded a final text); else the steps up to the carried turn, for a branch."""
        steps = conversation.steps
        tail = conversation.tail
        rest = steps[position + 1 :]
        if tail is None or steps[position] is tail or all(not s.ok for s in rest):
            return len(steps)
        if all(not s.served.calls for s in rest) and len(step.history.messages) > len(tail.history.messages):
            return len(steps)
        if _reidentifies(step, tail):
            # It carries an earlier turn by id, and the last one under other ids: a client that
            # re-ids the newest calls continues, and the round-trip rules judge the ids it sent.
            return len(steps)
        return position + 1

    def _reidentified(self, step: Step) -> Where | None:
        """A client that replaced the ids still sends the same history as the last request, then the
        served calls by name and arguments: the same conversation, which the round-trip rules judge."""
        api = step.dialect.api
        candidates: dict[int, Conversation] = {}
        for call in step.history.calls():
            candidates.update((id(c), c) for c in self.named.get((api, call.name or ""), []))
        for conversation in sorted(candidates.values(), key=lambda c: -c.steps[-1].index):
            tail = conversation.tail
            if tail is not None and _reidentifies(step, tail):
                return conversation, len(conversation.steps)
        return None


def _reidentifies(step: Step, tail: Step) -> bool:
    """Whether a request sends the history of `tail`'s request, then `tail`'s served calls by name
    and arguments (under ids of its own)."""
    if not tail.served.calls or not _extends(tail.body, step.body):
        return False
    sent = step.history.calls()
    return any(s.name == c.name and same_arguments(s.arguments, c.arguments) for c in tail.served.calls for s in sent)


def _canonical(arguments: Any) -> str:
    return json.dumps(parsed_arguments(arguments), sort_keys=True, separators=(",", ":"))


def _text_key(text: str) -> str:
    return text.strip()[:200]


def carries(call: WireCall, sent: list[WireCall], answered: set[str]) -> bool:
    """Whether a request's calls (or the ids its results answer) include a served call."""
    if call.call_id:
        return call.call_id in answered or any(s.call_id == call.call_id for s in sent)
    # Id-less (Gemini before ids): the same function with the same arguments; clients may add ids.
    return any(s.name == call.name and same_arguments(s.arguments, call.arguments) for s in sent)


def same_arguments(a: Any, b: Any) -> bool:
    """Arguments as data: a JSON string and the object it encodes are the same arguments."""
    return bool(parsed_arguments(a) == parsed_arguments(b))


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
    """The id a Responses-style response is stored under (what `previous_response_id` names), or an
    interaction's (what Gemini Interactions' `previous_interaction_id` names)."""
    payload = served.payload
    if not payload:
        return None
    if not payload.get("stream"):
        body = payload.get("body")
        found = body.get("id") if isinstance(body, dict) else None
        return found if isinstance(found, str) else None
    for event in payload.get("events", ()):
        data = event.get("data")
        for key in ("response", "interaction"):
            response = data.get(key) if isinstance(data, dict) else None
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
