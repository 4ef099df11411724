"""Mutation self-test: every bug reproduction yields exactly its expected codes, and the reference
codec of every API yields none on the same scenario.

A bug case is a known mutant of the reference; if the rules stop catching it, or start reporting
more than the real bug did, this fails.
"""

from __future__ import annotations

import pytest

from conformance.corpus.loading import Corpus, load_corpus
from conformance.reference import ADAPTER as REFERENCE
from conformance.running.runner import reproduce, run_scenario

_CORPUS = load_corpus()
BUGS = sorted(_CORPUS.bugs)
SCENARIOS = sorted(_CORPUS.scenarios)


@pytest.mark.parametrize("bug_id", BUGS)
def test_bug_reproduction_yields_exactly_its_codes(bug_id: str, corpus: Corpus) -> None:
    result = reproduce(corpus.bugs[bug_id], corpus)
    assert result.outcome == "pass", result.summary


@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_reference_yields_no_violation(scenario_id: str, corpus: Corpus) -> None:
    scenario = corpus.scenarios[scenario_id]
    result = run_scenario(REFERENCE, scenario, corpus, profile="strict")
    assert result.outcome == "pass", result.summary
    assert result.violations == []


def test_bug_library_covers_every_class(corpus: Corpus) -> None:
    from conformance.corpus.caseschema import vocabulary

    covered = {c for bug in corpus.bugs.values() for c in bug.classes}
    assert covered == set(vocabulary("bugClass"))
    assert len(corpus.bugs) >= 22
