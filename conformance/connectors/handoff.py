"""Hand-offs across providers played as legs in one client process.

A cross-provider scenario whose first API's turns are recorded (`history.cassette`) is played in two
legs to a client that says it `continues` "handoffs": the first leg against that API's replay (the
prompt, then the history's responses, each holding calls the client runs), then, without sending
their results there, the same conversation continued against the scenario's own API. The first leg's
recording ends on a response of calls whose results no request of that API carries: a client's leg is
its loop stopped after running the calls of its last recorded step (`steps`). Each leg is judged with
its own API's rules and provider errors; the first leg's violations are located under `history.`.
"""

from __future__ import annotations

import re
from dataclasses import replace

from conformance.corpus.loading import Scenario
from conformance.engine.outcomes import CaseResult
from conformance.replay.continued import FIRST_LEG


def first_leg(scenario: Scenario) -> Scenario | None:
    """The first leg as a scenario of its own API, served from the history's cassette; None where the
    scenario has no recorded first leg (a history only declared, or one on the scenario's own API)."""
    history = scenario.history
    if history is None or history.cassette is None or history.api == scenario.api:
        return None
    return replace(
        scenario,
        id=f"{scenario.id}{FIRST_LEG}",
        api=history.api,
        model=history.model or scenario.model,
        cassette=history.cassette,
        turns=history.turns,
        history=None,
        server_tools=(),
        data={},
        source=None,
    )


def with_first_leg(main: CaseResult, leg: CaseResult, scenario: Scenario) -> CaseResult:
    """The case's outcome from both legs: the first leg's violations under `history.`, and a first leg
    that failed fails the case, its summary first. An id the first API issued is one that API takes
    back as it is: a format limit it breaks (a constructed history through a gateway that issues longer
    ids) is not the client's to keep on that leg, only on the next API's."""
    issued = {c.id for t in scenario.turns for c in t.calls if c.id}
    kept = [v for v in leg.violations if not (v.code.startswith("format/") and v.received in issued)]
    if leg.outcome == "fail" and not [v for v in kept if v.severity == "error"] and _violations_only(leg):
        leg.outcome, leg.summary = "pass", ""
    main.violations = [*(replace(v, location=f"history.{v.location}") for v in kept), *main.violations]
    if leg.outcome in ("pass", "skip"):
        return main
    api = scenario.api
    said = f"the first leg, on {api}: {leg.outcome}: {leg.summary}" if leg.summary else f"the first leg, on {api}"
    main.summary = "; ".join(p for p in (said, main.summary) if p)
    if main.outcome in ("pass", "fail"):
        main.outcome = "fail" if leg.outcome == "fail" else leg.outcome
    return main


def _violations_only(result: CaseResult) -> bool:
    """Whether a failed case failed on its violations alone (its summary counts them, and says no more)."""
    return re.fullmatch(r"\d+ violation\(s\): [a-z0-9/_, -]+", result.summary) is not None
