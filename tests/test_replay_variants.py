"""The same scenario, driven by clients that talk differently, gets the same verdict.

For every API and every scenario a client can be handed (not the ones that begin with another
API's history), a reference client over plain HTTP runs the tool loop the plain way, then once per
variant: streaming, not streaming, another API version or path form, side requests (model lookups,
token counts) before every turn, and a history held by the server where the API allows it. Each
runs in process (vcrpy) and against the replay server. A variant may only change the verdict to
`skip`, with the reason, when the recording cannot be served to it.
"""

from __future__ import annotations

import pytest
from http_clients import Variant, adapter, variants_for

from conformance.corpus.loading import Corpus, load_corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import RunOptions, run_scenario

_CORPUS = load_corpus()
# A client can be handed neither a history begun on another API nor a session of several runs.
# Recorded scenarios end where their recording ended, which a generic tool loop may go past; the
# reference judges them (tests/test_recorded_corpus.py).
SCENARIOS = sorted(
    s.id for s in _CORPUS.scenarios.values() if s.history is None and "session" not in s.features and not s.recorded
)


def _run(corpus: Corpus, scenario_id: str, variant: Variant, replay: str) -> CaseResult:
    options = RunOptions(timeout=30, replay=replay)  # type: ignore[arg-type]
    return run_scenario(adapter(variant), corpus.scenarios[scenario_id], corpus, options=options)


def _verdict(result: CaseResult) -> tuple[str, list[tuple[str, str]]]:
    return result.outcome, sorted((v.code, v.location) for v in result.violations)


@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_every_way_of_talking_gets_the_plain_clients_verdict(corpus: Corpus, scenario_id: str) -> None:
    scenario = corpus.scenarios[scenario_id]
    plain = _run(corpus, scenario_id, Variant(), "in-process")
    assert plain.outcome in ("pass", "fail"), plain.summary
    for variant in [Variant(), *variants_for(scenario.api)]:
        for replay in ("in-process", "server"):
            got = _run(corpus, scenario_id, variant, replay)
            where = f"{variant.label()} via {replay}"
            if got.outcome == "skip":
                assert "cannot be served" in got.summary, f"{where}: {got.summary}"
                continue
            assert got.outcome != "error", f"{where}: {got.summary}\n{got.detail}"
            assert _verdict(got) == _verdict(plain), f"{where}: {got.summary} (plain: {plain.summary})"


def test_the_plain_reference_client_passes_what_a_tool_loop_can_play(corpus: Corpus) -> None:
    """Every scenario, the two Foundry ones among them: their recordings go on after a response that
    asks nothing of the client (text, the provider's own items), where a tool loop ends and passes."""
    failing = [i for i in SCENARIOS if _run(corpus, i, Variant(), "server").outcome != "pass"]
    assert failing == []


def test_a_buggy_client_gets_the_same_verdict_however_it_talks(corpus: Corpus) -> None:
    from conformance.reproductions.genkit import GENKIT_3247 as GENKIT  # the tool name sent as the call id

    scenario = corpus.scenarios["openai-chat/parallel-different-tools"]
    verdicts = set()
    for variant in [Variant(), *variants_for("openai-chat")]:
        for replay in ("in-process", "server"):
            options = RunOptions(timeout=30, replay=replay)  # type: ignore[arg-type]
            result = run_scenario(adapter(variant, GENKIT.codecs, "genkit"), scenario, corpus, options=options)
            assert result.outcome == "fail", result.summary
            verdicts.add(frozenset(v.code for v in result.errors))
    assert len(verdicts) == 1, verdicts
    assert "roundtrip/id-altered" in next(iter(verdicts))
