"""The recorded corpus: real traffic, each with its source, and what it proves about the rules.

Where a recording shows the real provider answering a request with success, no rule may report
that request as one the provider rejects (an error-severity violation quoting a provider error).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cassette import load_cassette
from conformance.corpus import Corpus, load_corpus
from conformance.lint import lint
from conformance.reference import ADAPTER as REFERENCE
from conformance.runner import run_scenario

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "cassettes" / "recorded" / "SOURCES.md"
_CORPUS = load_corpus()
RECORDED = sorted(s.id for s in _CORPUS.scenarios.values() if s.recorded)


def test_the_corpus_holds_real_traffic_of_many_apis(corpus: Corpus) -> None:
    recorded = [corpus.scenarios[i] for i in RECORDED]
    assert len(recorded) >= 60
    assert len({s.api for s in recorded}) >= 6
    features = {f for s in recorded for f in s.features}
    assert {"parallel-calls", "streaming", "server-tool", "multi-turn", "cross-provider"} <= features


@pytest.mark.parametrize("profile", ["default", "strict"])
@pytest.mark.parametrize("scenario_id", RECORDED)
def test_no_rule_says_the_provider_rejects_a_request_it_answered(
    scenario_id: str, profile: str, corpus: Corpus
) -> None:
    scenario = corpus.scenarios[scenario_id]
    cassette = load_cassette(corpus.cassette_path(scenario))
    answered = {i.index for i in cassette if i.response.status < 400}
    report = lint(cassette, corpus, profile)
    assert not report.unchecked, report.unchecked
    claimed = [
        v
        for _, v in report.violations
        if v.severity == "error" and v.provider_error and _request(v.location) in answered
    ]
    assert claimed == [], [f"{v.code} at {v.location}: {v.provider_error}" for v in claimed]


def _request(location: str) -> int:
    return int(location.split("]", 1)[0].removeprefix("request["))


@pytest.mark.parametrize("scenario_id", RECORDED)
def test_the_reference_passes_each_recording_in_the_default_profile(scenario_id: str, corpus: Corpus) -> None:
    # test_mutations runs every scenario in the strict profile.
    result = run_scenario(REFERENCE, corpus.scenarios[scenario_id], corpus, profile="default")
    assert result.outcome == "pass", result.summary


def test_every_recording_names_its_source_and_the_sources_file_lists_it(corpus: Corpus) -> None:
    listed = SOURCES.read_text(encoding="utf-8")
    for scenario_id in RECORDED:
        scenario = corpus.scenarios[scenario_id]
        source = scenario.source
        assert source is not None and source.repository and source.commit and source.licence, scenario_id
        provenance = load_cassette(corpus.cassette_path(scenario)).provenance
        assert provenance["kind"] == "recorded" and provenance["scenario"] == scenario_id
        assert provenance["source"]["commit"] == source.commit and provenance["source"]["path"] == source.path
        assert f"`{scenario_id}`" in listed and source.commit[:12] in listed, scenario_id
        assert scenario.cassette.startswith("recorded/")


def test_the_sources_file_is_current() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "recorded_sources.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout
