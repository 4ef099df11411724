"""A conversation that begins with a history: a client that sends only the newest user turn drops the
history's calls and results, and is told so (`roundtrip/call-lost` at the first request)."""

from __future__ import annotations

import pytest
from buggy import HistoryDropped

from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus, load_corpus
from conformance.reference import ADAPTER as REFERENCE
from conformance.running.runner import run_scenario

CASES = [("roundtrip/call-lost", HistoryDropped(REFERENCE.codec("kimi-chat")), "kimi-chat/from-openai-chat")]
WITH_HISTORY = sorted(
    s.id for s in load_corpus().scenarios.values() if s.history is not None and any(t.calls for t in s.history.turns)
)


@pytest.mark.parametrize("scenario_id", WITH_HISTORY)
def test_a_dropped_history_is_reported(scenario_id: str, corpus: Corpus) -> None:
    scenario = corpus.scenarios[scenario_id]
    adapter = CodecAdapter(
        name="buggy", version="0", codecs={scenario.api: HistoryDropped(REFERENCE.codec(scenario.api))}
    )
    result = run_scenario(adapter, scenario, corpus)
    assert result.outcome == "fail", result.summary
    lost = [v for v in result.errors if v.code == "roundtrip/call-lost" and v.location == "request[0]"]
    assert lost and "began with a history" in lost[0].message


def test_the_reference_keeps_every_history(corpus: Corpus) -> None:
    for scenario_id in WITH_HISTORY:
        result = run_scenario(REFERENCE, corpus.scenarios[scenario_id], corpus, profile="strict")
        assert result.outcome == "pass", (scenario_id, result.summary)
