"""The parts of the docs generated from data (`conformance docs`) are current, and go stale when the
data changes: the scenario lists, the option tables, and the official SDKs' failures."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import ROOT

from conformance.cli import main, run_parser
from conformance.corpus.loading import Corpus
from conformance.docgen import SDK_DIGEST, sdk_digest, stale


def test_the_generated_parts_of_the_docs_are_current(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", "--check", "--docs", str(ROOT / "docs")]) == 0, capsys.readouterr().out


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    copy = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", copy)
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")  # its API table is generated too
    shutil.copytree(ROOT / "reports" / "results", tmp_path / "reports" / "results")  # findings' tables
    return copy


def test_every_scenario_of_an_api_is_listed_on_its_page(corpus: Corpus) -> None:
    for api in {s.api for s in corpus.scenarios.values()}:
        page = (ROOT / "docs" / "apis" / f"{api}.md").read_text(encoding="utf-8")
        for scenario in (s for s in corpus.scenarios.values() if s.api == api):
            assert f"| `{scenario.id.split('/', 1)[1]}` |" in page, scenario.id


def test_a_scenario_list_edited_by_hand_is_stale(
    docs: Path, corpus: Corpus, capsys: pytest.CaptureFixture[str]
) -> None:
    page = docs / "apis" / "openai-chat.md"
    page.write_text(page.read_text(encoding="utf-8").replace("| `one-call` |", "| `one-call-renamed` |"), "utf-8")
    assert stale(docs, corpus, run_parser()) == [page]
    assert main(["docs", "--check", "--docs", str(docs)]) == 1
    assert f"{page}: differs from what `conformance docs` generates" in capsys.readouterr().out
    assert main(["docs", "--docs", str(docs)]) == 0
    assert stale(docs, corpus, run_parser()) == []


def test_every_registered_option_is_in_the_options_table() -> None:
    from conformance import plugin

    text = (ROOT / "docs" / "plugin.md").read_text(encoding="utf-8")
    for name in plugin.SETTINGS:
        assert f"`--conformance-{name}" in text, name
    for flag in ("--conformance-replay", "--conformance-harness", "--conformance-isolate", "--show-requests"):
        assert f"`{flag}" in text
    for flag in ("--baseline FILE", "--junitxml PATH", "--summary-md PATH", "--update-baseline"):
        assert f"`{flag}" in text


def test_a_new_sdk_failure_makes_the_adapters_page_stale(docs: Path, corpus: Corpus) -> None:
    digest = json.loads((docs / SDK_DIGEST).read_text(encoding="utf-8"))
    digest["failures"].append({"id": "openai-chat/one-call", "outcome": "fail", "codes": ["x/y"], "summary": ""})
    (docs / SDK_DIGEST).write_text(json.dumps(digest), encoding="utf-8")
    assert stale(docs, corpus, run_parser()) == [docs / "adapters.md"]


def test_the_sdk_digest_keeps_failures_and_drops_tracebacks() -> None:
    results = {
        "adapter": {"name": "official-sdks", "version": "openai 9"},
        "corpus_revision": "sha256:x",
        "cases": [
            {"id": "a/pass", "api": "a", "outcome": "pass", "violations": []},
            {"id": "a/err", "api": "a", "outcome": "error", "violations": [], "summary": "raised", "detail": "/x/y.py"},
            {
                "id": "a/fail",
                "api": "a",
                "outcome": "fail",
                "violations": [{"code": "w", "severity": "warning"}, {"code": "e", "severity": "error"}],
            },
        ],
    }
    digest = sdk_digest(results)
    assert [f["id"] for f in digest["failures"]] == ["a/err", "a/fail"]
    assert digest["failures"][1]["codes"] == ["e"]
    assert "/x/y.py" not in json.dumps(digest)


def test_the_committed_sdk_failures_are_what_the_installed_sdks_fail(corpus: Corpus) -> None:
    """The digest the adapters page is made from, against a run of the installed SDKs: a new SDK release
    that fails (or fixes) a case makes this fail until `conformance docs --sdk-results` is re-run."""
    for module in ("openai", "anthropic", "google.genai", "mistralai", "cohere", "ollama", "botocore"):
        pytest.importorskip(module)
    from conformance.connectors.adapters import resolve_adapter
    from conformance.engine.outcomes import FAILING
    from conformance.running.runner import RunOptions, run_suite

    adapter = resolve_adapter("conformance.clients.official_sdks:ADAPTER")
    committed = json.loads((ROOT / "docs" / SDK_DIGEST).read_text(encoding="utf-8"))
    if committed["adapter"]["version"] != adapter.version:
        pytest.skip(f"the digest is of {committed['adapter']['version']}; installed: {adapter.version}")
    results = run_suite(adapter, corpus, options=RunOptions(timeout=60))
    failing = sorted(r.case_id for r in results if r.outcome in FAILING)
    assert failing == [f["id"] for f in committed["failures"]]


def test_the_readmes_api_table_counts_the_corpus(corpus: Corpus) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for api in {s.api for s in corpus.scenarios.values()}:
        own = [s for s in corpus.scenarios.values() if s.api == api]
        recorded = sum(1 for s in own if s.recorded)
        assert f"| {len(own) - recorded} | {recorded} |" in next(
            line for line in text.splitlines() if line.startswith(f"| `{api}`")
        )


def test_a_new_genkit_go_result_makes_the_findings_stale(docs: Path, corpus: Corpus) -> None:
    results = docs.parent / "reports" / "results" / "genkit-go-v1.12.0.json"
    data = json.loads(results.read_text(encoding="utf-8"))
    data["counts"]["pass"] += 1
    data["counts"]["fail"] -= 1
    results.write_text(json.dumps(data), encoding="utf-8")
    assert stale(docs, corpus, run_parser()) == [docs / "findings.md"]
    assert main(["docs", "--docs", str(docs)]) == 0
    row = f"| 1.12.0 | {data['counts']['pass']} | {data['counts']['fail']} |"
    assert row in (docs / "findings.md").read_text(encoding="utf-8")


def test_the_findings_genkit_go_table_is_the_results_files() -> None:
    text = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    section = text.split("## Genkit (Go)", 1)[1].split("\n## ", 1)[0]
    for path in sorted((ROOT / "reports" / "results").glob("genkit-go-v*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        c = data["counts"]
        row = f"| {data['adapter']['version']} | {c['pass']} | {c['fail']} |"
        assert row in section, row


def test_the_adapters_page_names_no_sdk_release_below_the_floor_the_sdk_extra_sets() -> None:
    import tomllib

    from packaging.requirements import Requirement
    from packaging.version import Version

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    floors = {}
    for line in extra["sdk"]:
        requirement = Requirement(line)
        lows = [s.version for s in requirement.specifier if s.operator == ">="]
        if lows:
            floors[requirement.name] = Version(lows[0])
    text = (ROOT / "docs" / "adapters.md").read_text(encoding="utf-8")
    below = [
        (name, found)
        for name, floor in floors.items()
        for found in re.findall(rf"\b{re.escape(name)}\W{{1,3}}(\d+\.\d+(?:\.\d+)?)\b", text)
        if Version(found) < floor
    ]
    assert below == []
