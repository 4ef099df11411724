"""Recorded traffic as evidence about the rules.

Where a recording shows the real provider answering a request with success, no rule may report
that request as one the provider rejects (an error-severity violation quoting a provider error), and
the reference adapter passes the scenario the recording makes.

The bundled recorded scenarios (re-voiced imports of public test suites' recordings, listed in
cassettes/recorded/SOURCES.md) are checked here, and beside them, imported with `conformance import`
into a temporary corpus: every recording of the shared real traffic beside the checkout (as in CI),
and the corpora named by CONFORMANCE_RECORDED (directories holding `cases/` and `cassettes/`,
separated by the path separator).
"""

from __future__ import annotations

import importlib.util
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REAL_TRAFFIC, ROOT

from conformance.corpus.loading import Corpus, Scenario, load_corpus
from conformance.importer import Options, import_cassette, slug
from conformance.lint import lint
from conformance.recordings.cassette import load_cassette
from conformance.reference import ADAPTER as REFERENCE
from conformance.running.runner import run_scenario

MORE = [Path(p) for p in os.environ.get("CONFORMANCE_RECORDED", "").split(os.pathsep) if p]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Corpus, list[Scenario]]]:
    bundled = load_corpus()
    cases, cassettes = [p / "cases" for p in MORE], [p / "cassettes" for p in MORE]
    if REAL_TRAFFIC.is_dir():
        out = tmp_path_factory.mktemp("imported")
        for path in sorted(REAL_TRAFFIC.rglob("*.yaml")):
            name = slug(f"{path.parent.name}-{path.stem}")
            import_cassette(path, bundled, Options(output=out, case_id=name))
        cases.append(out / "cases")
        cassettes.append(out / "cassettes")
    corpus = load_corpus(cases, cassettes)
    scenarios = sorted((s for s in corpus.scenarios.values() if s.recorded), key=lambda s: s.id)
    yield corpus, scenarios


def test_the_bundled_recorded_corpus_covers_the_apis_and_shapes() -> None:
    recorded = [s for s in load_corpus().scenarios.values() if s.recorded]
    apis = Counter(s.api for s in recorded)
    assert len(recorded) >= 100 and len(apis) >= 8, apis
    features = {f for s in recorded for f in s.features}
    assert {"parallel-calls", "streaming", "server-tool", "multi-turn", "cross-provider"} <= features, features
    for scenario in recorded:
        source = scenario.source
        assert source is not None and source.repository and source.commit and source.revoiced, scenario.id
        assert source.repository.split("/")[0].lower() not in ("pydantic", "simonw") or source.repository == (
            "pydantic/logfire"
        ), f"{scenario.id}: pydantic-ai's and llm's recordings validate the suite and stay out of it"


def test_the_sources_table_is_current() -> None:
    # cassettes/recorded/SOURCES.md is generated from the case files; regenerate it with
    # `python scripts/recorded_sources.py . --output cassettes/recorded/SOURCES.md`.
    spec = importlib.util.spec_from_file_location("recorded_sources", ROOT / "scripts" / "recorded_sources.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (ROOT / "cassettes" / "recorded" / "SOURCES.md").read_text(encoding="utf-8") == module.render(load_corpus())


def test_the_cases_doc_counts_recorded_and_constructed_apart() -> None:
    scenarios = load_corpus().scenarios.values()
    text = (ROOT / "docs" / "cases.md").read_text(encoding="utf-8")
    for api in {s.api for s in scenarios}:
        constructed = sum(1 for s in scenarios if s.api == api and not s.recorded)
        recorded = sum(1 for s in scenarios if s.api == api and s.recorded)
        assert f"| `{api}` | {constructed} | {recorded} |" in text, api


def test_recorded_traffic_of_several_apis_becomes_scenarios(recorded: tuple[Corpus, list[Scenario]]) -> None:
    _, scenarios = recorded
    assert len({s.api for s in scenarios}) >= 5, sorted({s.api for s in scenarios})
    features = {f for s in scenarios for f in s.features}
    assert {"streaming", "server-tool", "multi-turn"} <= features, features


def test_no_rule_says_the_provider_rejects_a_request_it_answered(recorded: tuple[Corpus, list[Scenario]]) -> None:
    # A claim of rejection is an error-severity violation quoting a provider's error, in the default
    # profile: the strict profile makes every code an error by the user's choice, not the provider's.
    corpus, scenarios = recorded
    claimed = []
    for scenario in scenarios:
        cassette = load_cassette(corpus.cassette_path(scenario))
        answered = {i.index for i in cassette if i.response.status < 400}
        report = lint(cassette, corpus, "default")
        assert not report.unreadable, (scenario.id, report.unreadable)
        claimed += [
            f"{scenario.id}: {v.code} at {v.location}: {v.provider_error}"
            for _, v in report.violations
            if v.severity == "error" and v.provider_error and _request(v.location) in answered
        ]
    assert claimed == []


def test_lint_finds_nothing_wrong_in_the_recordings(recorded: tuple[Corpus, list[Scenario]]) -> None:
    """The recordings are public test suites' traffic the provider answered: lint, which knows no
    scenario, reports no error in them (a session's later run may forget an earlier run's server calls,
    as mirascope's web-search recording does). A recording that holds a client's real fault would be
    named here, with the fault, rather than left to fail."""
    corpus, scenarios = recorded
    found = []
    for scenario in scenarios:
        report = lint(load_cassette(corpus.cassette_path(scenario)), corpus, "default")
        found += [f"{scenario.id}: {v.code} at {v.location}" for _, v in report.errors]
    assert found == []


def _request(location: str) -> int:
    return int(location.split("]", 1)[0].removeprefix("request["))


@pytest.mark.parametrize("profile", ["default", "strict"])
def test_the_reference_passes_each_recording(profile: str, recorded: tuple[Corpus, list[Scenario]]) -> None:
    corpus, scenarios = recorded
    failing = {}
    for scenario in scenarios:
        result = run_scenario(REFERENCE, scenario, corpus, profile=profile)
        if result.outcome != "pass":
            failing[scenario.id] = result.summary
    assert failing == {}


def test_each_recording_keeps_its_provenance(recorded: tuple[Corpus, list[Scenario]]) -> None:
    corpus, scenarios = recorded
    for scenario in scenarios:
        provenance = load_cassette(corpus.cassette_path(scenario)).provenance
        assert provenance["kind"] == "recorded" and provenance["scenario"] == scenario.id, scenario.id
