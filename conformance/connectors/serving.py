"""Serving scenarios to clients in any language: the library behind `conformance serve` and harnesses.

A `ScenarioServer` plays any number of scenarios on one replay server, each at its own base URL,
and judges each one from what its client sent, with the same verdict as an in-process client run.
It never forwards anything: every answer comes from the scenario's recording.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from conformance.corpus.loading import Corpus, Scenario
from conformance.engine.outcomes import CaseResult
from conformance.recordings.cassette import load_cassette
from conformance.replay.server import ReplayServer
from conformance.replay.session import ReplaySession

if TYPE_CHECKING:
    from conformance.connectors.client import ToolLoop


@dataclass(frozen=True)
class Listing:
    scenario: str
    api: str
    base_url: str
    tools_url: str


class ScenarioServer:
    def __init__(
        self, corpus: Corpus | None = None, profile: str = "default", host: str = "127.0.0.1", port: int = 0
    ) -> None:
        self._corpus = corpus
        self.profile = profile
        self.server = ReplayServer(host, port)
        self._order: list[str] = []
        self.loops: dict[str, ToolLoop] = {}  # what a client of each scenario is handed

    def start(self) -> ScenarioServer:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    def __enter__(self) -> ScenarioServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def corpus(self) -> Corpus:
        if self._corpus is None:
            raise RuntimeError("the server has no corpus to serve yet")
        return self._corpus

    @corpus.setter
    def corpus(self, corpus: Corpus) -> None:
        self._corpus = corpus

    def add(self, scenario: Scenario, *, closing: bool = True) -> Listing:
        """Serve a scenario (again, from its first turn, if it was served before); `closing` False
        serves its recording alone, without the suite's closing answer after calls it ends on."""
        from conformance.connectors.client import recorded_base_path, tool_loop
        from conformance.engine.rules import check
        from conformance.replay.verdicts import scenario_context

        recorded = load_cassette(self.corpus.cassette_path(scenario))
        ctx = scenario_context(self.corpus, scenario, self.profile)
        session = ReplaySession.of(scenario, recorded, lambda exchange: check(exchange, ctx), closing=closing)
        loop = tool_loop(scenario, None, recorded)
        base_url = self.server.add(session, recorded_base_path(recorded, scenario.api), loop.call_tool)
        loop.base_url = base_url
        self.loops[scenario.id] = loop
        if scenario.id not in self._order:
            self._order.append(scenario.id)
        return Listing(scenario.id, scenario.api, base_url, self.server.tools_url(scenario.id))

    def add_first_leg(self, scenario: Scenario) -> tuple[Listing, ToolLoop, Scenario] | None:
        """Serve the first leg of a hand-off across providers (connectors/handoff.py) beside the scenario,
        at a base URL of its own; None where the scenario has no recorded first leg."""
        from conformance.connectors.handoff import first_leg

        leg = first_leg(scenario)
        if leg is None:
            return None
        # The leg ends on calls whose results the next API's requests carry, never this one's.
        listing = self.add(leg, closing=False)
        return listing, self.loops[leg.id], leg

    def add_all(self, scenarios: Iterable[Scenario]) -> list[Listing]:
        return [self.add(s) for s in scenarios]

    def verdict(
        self,
        scenario_id: str,
        fault: BaseException | None = None,
        *,
        ran: bool = False,
        show_requests: bool = False,
        timed_out: str | None = None,
    ) -> CaseResult:
        """The case's outcome from what its client sent so far; `not-run` when no client came (unless
        one is known to have `ran`: then sending nothing fails). `timed_out` says how the client ran out
        of time: the outcome is then `timeout`, with what it sent until then judged."""
        from conformance.replay import verdicts
        from conformance.replay.verdicts import client_verdict, scenario_context

        session = next((s for s in self.server.sessions() if s.scenario.id == scenario_id), None)
        if session is None:
            raise KeyError(f"{scenario_id} is not served")
        scenario = session.scenario
        run = session.finish(fault)
        loop = self.loops.get(scenario_id)
        run.tools_ran = list(loop.calls) if loop is not None else None
        if not ran and not run.sent and not run.side and fault is None:
            return CaseResult(scenario.id, scenario.api, "not-run", summary="no client sent a request to this scenario")
        ctx = scenario_context(self.corpus, scenario, self.profile)
        if timed_out is not None:
            result = verdicts.timed_out(scenario, run, ctx, session.dialect, timed_out)
        else:
            result = client_verdict(scenario, run, ctx, session.dialect)
        if not show_requests:
            result.requests = None  # kept by the judging; the results file holds them only when asked
        return result

    def verdicts(self, *, show_requests: bool = False) -> list[CaseResult]:
        return [self.verdict(i, show_requests=show_requests) for i in self._order]
