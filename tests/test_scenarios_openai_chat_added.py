"""Two openai-chat scenarios the other APIs had and openai-chat lacked: two calls streamed whole in one
chunk, and a run cut off before its tool answered. Before them a reader of `delta.tool_calls[0]` and a
codec with the session repair disabled passed every openai-chat scenario; now each fails its scenario,
and only that one, while the reference passes both.
"""

from __future__ import annotations

import pytest
from buggy import FirstCallOfEachChunk, RepairDisabled, adapter

from conformance.corpus.loading import Corpus
from conformance.reference import ADAPTER as REFERENCE
from conformance.reference.openai_chat import OpenAIChatCodec
from conformance.running.runner import run_scenario

ONE_CHUNK = "openai-chat/streamed-two-calls-one-chunk"
REPAIR = "openai-chat/session-repair-interrupted"


@pytest.mark.parametrize("scenario_id", [ONE_CHUNK, REPAIR])
def test_the_reference_passes_the_added_scenarios(scenario_id: str, corpus: Corpus) -> None:
    result = run_scenario(REFERENCE, corpus.scenarios[scenario_id], corpus)
    assert result.outcome == "pass" and result.violations == [], result.summary


def test_the_second_call_of_a_chunk_dropped_is_a_lost_call(corpus: Corpus) -> None:
    result = run_scenario(adapter(FirstCallOfEachChunk()), corpus.scenarios[ONE_CHUNK], corpus)
    assert result.outcome == "fail", result.summary
    lost = [v for v in result.errors if v.code == "roundtrip/call-lost"]
    assert [v.expected for v in lost] == ["call_Pf6Ju2Ns9Ga4Ek7Wq1Mx5Ct8"], result.errors


def test_a_disabled_repair_sends_the_interrupted_call_without_a_tool_message(corpus: Corpus) -> None:
    result = run_scenario(adapter(RepairDisabled()), corpus.scenarios[REPAIR], corpus)
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"pairing/missing-result"}
    (missing,) = result.errors
    assert "call_Tq8Lm2Wx5Rk9Vb3Nd7Hs1Jf4" in missing.message
    assert "must be followed by tool messages responding to each 'tool_call_id'" in str(missing.provider_error)


# The speculative-decoding stream (two entries of one index in its first chunk) already caught a
# `tool_calls[0]` reader, by the argument fragment it loses; no scenario caught the lost call.
ALSO_FAILED = {
    "openai-chat/kimi-k2-first-chunk-duplicate-index": {"roundtrip/arguments-altered", "stream/arguments-garbled"}
}


@pytest.mark.parametrize(
    ("codec", "caught_by", "code"),
    [(FirstCallOfEachChunk(), ONE_CHUNK, "roundtrip/call-lost"), (RepairDisabled(), REPAIR, "pairing/missing-result")],
    ids=["first-call-of-each-chunk", "repair-disabled"],
)
def test_each_buggy_codec_is_caught_on_openai_chat_by_its_scenario_only(
    codec: OpenAIChatCodec, caught_by: str, code: str, corpus: Corpus
) -> None:
    """The gap, measured over every openai-chat scenario: the fault is reported on the added one and
    nowhere else."""
    failed: dict[str, set[str]] = {}
    for scenario in corpus.scenarios.values():
        if scenario.api != "openai-chat":
            continue
        result = run_scenario(adapter(codec), scenario, corpus)
        if result.outcome not in ("pass", "skip"):
            failed[scenario.id] = {v.code for v in result.errors}
    assert code in failed.pop(caught_by)
    expected = ALSO_FAILED if isinstance(codec, FirstCallOfEachChunk) else {}
    assert failed == expected
