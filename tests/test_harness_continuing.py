"""Harnesses handed conversations to continue (docs/harness.md): a restored history, a session's runs,
and a hand-off across providers played as legs, each leg judged on its own API."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from conftest import ROOT

from conformance.connectors.handoff import first_leg, with_first_leg
from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.engine.violations import Violation
from conformance.running.runner import RunOptions, run_scenario

HARNESS = ROOT / "tests" / "harnesses" / "continuing.py"
CROSS = "openai-chat/from-anthropic"


@pytest.fixture
def harness(request: pytest.FixtureRequest) -> Iterator[HarnessAdapter]:
    adapter = HarnessAdapter([sys.executable, str(HARNESS), *getattr(request, "param", ())])
    try:
        yield adapter
    finally:
        adapter.close()


def _run(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> CaseResult:
    return run_scenario(harness, corpus.scenarios[scenario_id], corpus, options=RunOptions(timeout=60))


@pytest.mark.parametrize(
    "scenario_id",
    ["openai-chat/recorded/openllmetry-chat-tool-calls-history", "openai-chat/session-memory-window", CROSS],
)
def test_a_harness_that_continues_conversations_passes(
    harness: HarnessAdapter, corpus: Corpus, scenario_id: str
) -> None:
    result = _run(harness, corpus, scenario_id)
    assert result.outcome == "pass", result.summary


@pytest.mark.parametrize("harness", [("--no-handoffs",)], indirect=True)
def test_without_handoffs_a_cross_provider_history_is_restored(harness: HarnessAdapter, corpus: Corpus) -> None:
    assert "handoffs" not in harness.continues
    result = _run(harness, corpus, CROSS)
    assert result.outcome == "pass", result.summary


@pytest.mark.parametrize("harness", [("--ignore-legs",)], indirect=True)
def test_a_harness_that_skips_the_first_leg_it_was_handed_fails(harness: HarnessAdapter, corpus: Corpus) -> None:
    result = _run(harness, corpus, CROSS)
    assert result.outcome == "fail"
    assert result.summary.startswith("the first leg, on anthropic-messages: fail"), result.summary
    assert "never requested" in result.summary


@pytest.mark.parametrize("harness", [("--first-run-only",)], indirect=True)
def test_a_harness_that_plays_only_the_first_run_fails(harness: HarnessAdapter, corpus: Corpus) -> None:
    result = _run(harness, corpus, "openai-chat/session-memory-window")
    assert result.outcome == "fail" and "never requested" in result.summary


def test_the_first_leg_is_the_historys_api_served_from_its_cassette(corpus: Corpus) -> None:
    scenario = corpus.scenarios[CROSS]
    leg = first_leg(scenario)
    assert leg is not None and scenario.history is not None
    assert (leg.api, leg.cassette, leg.turns) == (
        scenario.history.api,
        scenario.history.cassette,
        scenario.history.turns,
    )
    assert first_leg(corpus.scenarios["openai-chat/recorded/openllmetry-chat-tool-calls-history"]) is None


def test_an_id_the_first_api_issued_is_not_held_to_its_own_format_limits(corpus: Corpus) -> None:
    leg = first_leg(corpus.scenarios["bedrock-converse/from-openai-chat"])
    assert leg is not None
    issued = next(c.id for t in leg.turns for c in t.calls if c.id and len(c.id) > 64)

    def failed(received: str) -> CaseResult:
        v = Violation(
            code="format/id-length", severity="error", location="request[2].x", message="m", received=received
        )
        return CaseResult(leg.id, leg.api, "fail", violations=[v], summary="1 violation(s): format/id-length")

    main = with_first_leg(CaseResult("x", "bedrock-converse", "pass"), failed(issued), leg)
    assert main.outcome == "pass" and main.violations == []
    main = with_first_leg(CaseResult("x", "bedrock-converse", "pass"), failed("x" * 80), leg)
    assert main.outcome == "fail" and main.violations[0].location == "history.request[2].x"
