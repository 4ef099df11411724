"""One scenario played to one client: every request matched, answered and judged in one place.

Both replay paths (vcrpy inside the Python process, and the HTTP server any client can reach) hand
each request to `ReplaySession.handle` and send back what it answers. The session:

- routes the request with the API's transport: a turn of the conversation, a side request real
  SDKs make (model lookups, token counts: answered as the provider would, spending no turn), or a
  request the recording does not hold (answered locally with a 404, and reported);
- resolves a history the server holds (Responses `previous_response_id` or `conversation`, an
  Anthropic message thread) into the full request, which is what the rules judge;
- judges the request with the rules before answering it, and answers one the provider would reject
  with the provider's own error, in its shape;
- answers a turn from the recording in the form the request asks for (streamed or not, in any
  framing), re-framed where the recorded form differs.

Nothing is ever forwarded: a replay answers everything itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.corpus.loading import Scenario
from conformance.engine.declarations import unserved_reason
from conformance.engine.dialects.base import Dialect, DialectError
from conformance.engine.exchange import Exchange, Turn
from conformance.engine.forced_choice import forced_after_end, forced_past
from conformance.engine.quoting import told_for
from conformance.engine.violations import Violation
from conformance.engine.wire import Served
from conformance.recordings.bounds import json_or_none
from conformance.recordings.cassette import Cassette
from conformance.replay.closing import closing_interaction
from conformance.replay.renaming import renamed_turn
from conformance.replay.render import render
from conformance.replay.transports.base import Answer, Earlier, ReframeError, Rejected, Request, Transport

Judge = Callable[[Exchange], list[Violation]]


@dataclass
class ClientRun:
    """What happened: the exchange, whether the replay refused a request, and how the client ended."""

    exchange: Exchange
    refused: list[Violation]  # violations that made the replay serve the provider's error
    recorded: int  # interactions in the cassette
    sent: int  # turns the client sent
    fault: BaseException | None = None  # what the client raised, if it raised
    side: list[str] = field(default_factory=list)  # side requests answered ("GET /v1beta/models/m: model")
    # bodies that were no request of the API, answered with a 400 at once: what the dialect said of each
    malformed: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)  # requests the recording does not hold
    unservable: str | None = None  # why the recording cannot be served to this client's transport
    unsupported: str | None = None  # why the client declared the scenario unsupported
    # Why the client's own request could not have been served the recorded turn (a server tool or a
    # caller it did not declare); the replay answered an error instead.
    undeclared: str | None = None
    # Why the conversation ended at a request that forces a tool call the recorded final answer does not
    # make (tool_choice "required" where the recording answers in text); the replay answered an error.
    forced_end: str | None = None
    # What the client's tools were called with (name, arguments), when its tools are the suite's;
    # None when the suite cannot see them (a client answering calls with outputs of its own).
    tools_ran: list[tuple[str | None, Any]] | None = None
    # Turns the replay serves past the recording, its own (conformance.replay.closing): 1 where the
    # recording ends on calls for the client, whose results the client then sends; else 0.
    closing: int = 0
    # Turns served with their calls under the names the client declared its tools by (a prefix of its
    # own: `tools-get_weather` for `get_weather`), each as "response[i]: get_weather as tools-get_weather".
    renamed: list[str] = field(default_factory=list)
    # The first request sent past the turns the replay holds (a loop asking again), as sent; None if none.
    past_end: Any = None


@dataclass
class _Turn:
    raw: Any  # the body as sent
    body: Any  # the body in full (a server-held history resolved)


class ReplaySession:
    def __init__(
        self,
        scenario: Scenario,
        recorded: Cassette,
        dialect: Dialect,
        transport: Transport,
        judge: Judge,
        *,
        authoritative: bool = True,
        closing: bool = True,
    ) -> None:
        self.scenario = scenario
        self.recorded = recorded
        self.dialect = dialect
        self.transport = transport
        self.judge = judge
        # The error texts the corpus holds are the providers' own: served only for recordings made
        # against the provider itself.
        self.authoritative = authoritative
        self.turns: list[_Turn] = []  # the turns the recording holds; those past it are only counted
        self.sent = 0
        self.refused: list[Violation] = []
        self.side: list[str] = []
        self.extra: list[str] = []
        self.unservable: str | None = None
        self.undeclared: str | None = None
        self.forced_end: str | None = None
        self.malformed: list[str] = []
        self.renamed: list[str] = []
        self.past_end: Any = None  # the first request past the last turn, as sent
        self._served: dict[int, Served] = {}
        self._lock = threading.Lock()
        # What is played: the recording, then the suite's closing answer where it ends on calls (not
        # after a hand-off's first leg, whose calls' results go to the next API: closing=False).
        answer = closing_interaction(scenario.id, recorded, dialect, transport) if closing else None
        self.interactions = [*recorded.interactions, *((answer,) if answer is not None else ())]

    @classmethod
    def of(cls, scenario: Scenario, recorded: Cassette, judge: Judge, *, closing: bool = True) -> ReplaySession:
        """A session with the scenario's dialect and transport. The provider's own error texts are
        served only when every recorded request went to the provider's own hosts; `closing` False
        plays the recording alone, never the suite's closing answer."""
        from conformance.engine.dialects import dialect_for
        from conformance.replay.transports import transport_for

        transport = transport_for(scenario.api)
        authoritative = is_authoritative(recorded, scenario.api)
        return cls(
            scenario,
            recorded,
            dialect_for(scenario.api),
            transport,
            judge,
            authoritative=authoritative,
            closing=closing,
        )

    # --- answering ---------------------------------------------------------------------------
    def handle(self, request: Request) -> Answer:
        with self._lock:
            return self._handle(request)

    def _handle(self, request: Request) -> Answer:
        route = self.transport.route(request)
        what = f"{request.method} {request.path}"
        if route is None:
            _note(self.extra, what)
            return self.transport.error(404, f"The replay of {self.scenario.id} holds no {what}.")
        if route.kind == "side":
            _note(self.side, f"{what} ({route.side})")
            return self.transport.side_answer(route, request, self.scenario.model, self._earlier())
        if self.undeclared is not None:  # the conversation cannot go on past a turn the client could not get
            return self._undeclared_answer()
        if self.forced_end is not None:
            return self._forced_answer()
        raw = request.json()
        try:
            body = self.transport.reconstruct(raw, self._earlier())
        except Rejected as rejected:
            _note(self.side, f"{what} (refused: {rejected.reason})")
            return rejected.answer
        index = self.sent
        self.sent += 1
        if index >= len(self.interactions):
            if index == len(self.interactions):
                self.past_end = body
            self.forced_end = self._forced_after_end(index, body)
            if self.forced_end is not None:
                return self._forced_answer()
            message = (
                f"The replay of {self.scenario.id} holds {len(self.interactions)} turn(s); this is turn {index + 1}."
            )
            return self.transport.error(400, message)
        self.turns.append(_Turn(raw=raw, body=body))
        try:
            refusal = self._refusal(index)
        except DialectError as exc:
            # Not a request of the API (curl sent the wrong file, a client of another API): answered at
            # once, as the provider answers a malformed request, and no turn spent, so that the client
            # can send the request again.
            self.turns.pop()
            self.sent -= 1
            self.side.append(f"{what} (refused: not {_an(self.scenario.api)} request)")
            self.malformed.append(f"{what}: not {_an(self.scenario.api)} request: {exc}")
            return self.transport.error(400, f"The request body is not {_an(self.scenario.api)} request: {exc}")
        if refusal is not None:
            return refusal
        self.undeclared = self._unserved(index, body)
        if self.undeclared is not None and self._serve_renamed(index, body):
            self.undeclared = None
        if self.undeclared is not None:
            return self._undeclared_answer()
        self.forced_end = self._forced(index, body)
        if self.forced_end is not None:
            return self._forced_answer()
        interaction = self.interactions[index]
        try:
            response = self.transport.as_asked(request, interaction)
            return render(self.transport, response, self.served(index), route)
        except ReframeError as exc:
            form = f"a {route.framing} stream" if route.stream else "one JSON body"
            self.unservable = f"response[{index}] cannot be served as {form}: {exc}"
            return self.transport.error(501, f"The replay cannot serve this response as {form}: {exc}")

    def _refusal(self, index: int) -> Answer | None:
        """The provider's error, when the provider would reject the request just sent. Raises DialectError
        for a body that is no request of the API at all (whoever recorded the traffic)."""
        found = self.judge(self.exchange(expected=False))
        if not self.authoritative or self.refused:
            return None
        here = [
            v
            for v in found
            if v.severity == "error" and v.provider_error and v.location.startswith(f"request[{index}]")
        ]
        if not here:
            return None
        self.refused.extend(here)
        return self.transport.error(400, told_for(here[0], self.turns[index].body))

    def _unserved(self, index: int, body: Any) -> str | None:
        """Why the request just sent could not have been served the recorded turn, if it could not."""
        recorded = json_or_none(self.interactions[index].request.body)  # none for the suite's closing answer
        return unserved_reason(self.scenario.api, self.served(index), body, recorded, f"response[{index}]")

    def _serve_renamed(self, index: int, body: Any) -> bool:
        """Whether turn `index` is now served with its calls under the names the request declares them
        by: every tool it lacks is declared under a prefix of the client's own, and nothing else lacks."""
        recorded = json_or_none(self.interactions[index].request.body)
        turn = renamed_turn(
            self.scenario.api, self.interactions[index], self.served(index), body, recorded, self.transport, index
        )
        if turn is None:
            return False
        self.interactions[index], notes = turn
        self._served.pop(index, None)
        self.renamed.extend(notes)
        return True

    def _forced(self, index: int, body: Any) -> str | None:
        """Why the recorded turn cannot answer a request that forces a tool call, if it cannot."""
        recorded = json_or_none(self.interactions[index].request.body)  # none for the suite's closing answer
        return forced_past(self.scenario.api, self.served(index), body, recorded, f"response[{index}]")

    def _forced_after_end(self, index: int, body: Any) -> str | None:
        """Why the first request past the last turn ends the conversation, when it forces a tool call
        after a final answer."""
        if index != len(self.interactions) or not self.interactions:
            return None
        return forced_after_end(self.scenario.api, self.served(index - 1), body, f"response[{index - 1}]")

    def _forced_answer(self) -> Answer:
        # No provider text either: under a forced choice the provider answers with a call, not an error.
        return self.transport.error(400, f"The replay cannot serve the recorded turn: {self.forced_end}.")

    def _undeclared_answer(self) -> Answer:
        # Not the provider's own text: no provider serves a tool the request did not declare, and what
        # it answers instead (an error, or a turn without the tool) is not recorded.
        return self.transport.error(400, f"The replay cannot serve the recorded turn: {self.undeclared}.")

    # --- what was played ---------------------------------------------------------------------
    def served(self, index: int) -> Served:
        """Response `index` as the dialect reads it; each is parsed once."""
        if index not in self._served:
            self._served[index] = self.dialect.served(self.interactions[index].response, f"response[{index}]")
        return self._served[index]

    def _earlier(self) -> list[Earlier]:
        out = []
        for i, turn in enumerate(self.turns[: len(self.interactions)]):
            response = self.transport.body_of(self.served(i).payload)
            out.append(Earlier(request=turn.body, response=response, raw=turn.raw))
        return out

    def exchange(self, *, expected: bool = True) -> Exchange:
        turns = []
        for i, turn in enumerate(self.turns[: len(self.interactions)]):
            recorded = self.interactions[i].request
            wanted = json_or_none(recorded.body) if expected else None
            turns.append(Turn(index=i, request=turn.body, served=self.served(i), expected_request=wanted))
        return Exchange(api=self.scenario.api, turns=tuple(turns))

    def finish(self, fault: BaseException | None = None, unsupported: str | None = None) -> ClientRun:
        with self._lock:
            return ClientRun(
                exchange=self.exchange(),
                refused=list(self.refused),
                recorded=len(self.recorded.interactions),
                sent=self.sent,
                fault=fault,
                side=list(self.side),
                malformed=list(self.malformed),
                extra=list(self.extra),
                unservable=self.unservable,
                unsupported=unsupported,
                undeclared=self.undeclared,
                forced_end=self.forced_end,
                closing=len(self.interactions) - len(self.recorded.interactions),
                renamed=list(self.renamed),
                past_end=self.past_end,
            )


def is_authoritative(recorded: Cassette, api: str) -> bool:
    """Whether every recorded request went to the provider's own hosts, so that the provider's own
    error texts, which the corpus holds, may be served for this recording."""
    from conformance.replay.transports import transport_for
    from conformance.replay.transports.base import is_provider_host

    transport = transport_for(api)
    return all(is_provider_host(transport, i.request.host) for i in recorded.interactions)


MAX_NOTED = 1000  # side and unknown requests kept for the report; a client looping on them adds no memory


def _note(requests: list[str], what: str) -> None:
    if len(requests) < MAX_NOTED:
        requests.append(what)


def _an(api: str) -> str:
    from conformance.engine.wording import a

    return a(api)


def listed(requests: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(requests[:limit])
    return shown + (f" and {len(requests) - limit} more" if len(requests) > limit else "")
