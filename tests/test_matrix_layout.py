"""The matrix's first screen: libraries grouped by language, versions side by side, the grid's cells,
the scenarios whose outcome changes between versions, and the Markdown file leading with the grid."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conformance.cli import main
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult, Outcome
from conformance.reports.matrix import HTML_FILE, JSON_FILE, MARKDOWN_FILE
from conformance.reports.matrix.document import slug
from conformance.reports.matrix.layout import share, version_key
from conformance.running.results import results_document, write_results


def _write(
    path: Path, corpus: Corpus, outcomes: list[Outcome], *, name: str, version: str, language: str | None
) -> Path:
    scenarios = sorted((s for s in corpus.scenarios.values() if s.api == "openai-chat"), key=lambda s: s.id)
    results = [
        CaseResult(s.id, s.api, o, summary="" if o == "pass" else f"{o}s as the others do")
        for s, o in zip(scenarios, outcomes, strict=False)
    ]
    adapter: dict[str, Any] = {"name": name, "version": version, "apis": ["openai-chat"]}
    adapter["connector"] = "client" if language is None else "harness"
    if language is not None:
        adapter["language"] = language
    document = results_document(results, adapter=adapter, corpus_revision=corpus.revision(), profile="default")
    write_results(path, document)
    return path


def _matrix(corpus: Corpus, tmp_path: Path) -> tuple[dict[str, Any], str, str]:
    files = [
        _write(tmp_path / "g12.json", corpus, ["pass", "pass", "pass"], name="gk", version="1.12.0", language="go"),
        _write(tmp_path / "g4.json", corpus, ["pass", "fail", "pass"], name="gk", version="1.4.0", language="go"),
        _write(tmp_path / "g0.json", corpus, ["fail", "error", "pass"], name="gk", version="0.6.2", language="go"),
        _write(tmp_path / "v7.json", corpus, ["pass"], name="vx", version="7.0.1", language="javascript"),
        _write(tmp_path / "v5.json", corpus, ["fail", "skip"], name="vx-v5", version="5.0.2", language="javascript"),
        _write(tmp_path / "py.json", corpus, ["pass"], name="pylib", version="2.0", language=None),
    ]
    out = tmp_path / "out"
    assert main(["matrix", *map(str, files), "--output", str(out)]) == 0
    doc = json.loads((out / JSON_FILE).read_text(encoding="utf-8"))
    html = (out / HTML_FILE).read_text(encoding="utf-8")
    return doc["groups"][0], (out / MARKDOWN_FILE).read_text(encoding="utf-8"), html


def test_versions_sort_by_their_numbers() -> None:
    assert sorted(["1.12.0", "v0.7.0", "1.4.0", "0.6.2"], key=version_key) == ["0.6.2", "v0.7.0", "1.4.0", "1.12.0"]


def test_a_grid_cell_is_the_pass_share_of_the_cases_run() -> None:
    counts = {"pass": 6, "fail": 1, "skip": 2, "error": 1, "timeout": 1, "not-run": 1, "total": 12}
    assert share(counts) == {"pass": 6, "ran": 9, "percent": 66, "fail": 1, "error": 2}
    assert share({"skip": 3, "total": 3}) == {"pass": 0, "ran": 0, "percent": None, "fail": 0, "error": 0}
    assert share({"total": 0}) is None


def test_libraries_are_grouped_by_language_with_their_versions_side_by_side(corpus: Corpus, tmp_path: Path) -> None:
    group, _, _ = _matrix(corpus, tmp_path)
    columns = {c["key"]: c for c in group["columns"]}
    layout = [
        (s["title"], [(lib["library"], [columns[k]["version"] for k in lib["columns"]]) for lib in s["libraries"]])
        for s in group["sections"]
    ]
    assert layout == [
        ("go", [("gk", ["0.6.2", "1.4.0", "1.12.0"])]),
        ("javascript", [("vx", ["5.0.2", "7.0.1"])]),  # vx-v5 is a version of vx
        ("python", [("pylib", ["2.0"])]),  # a client adapter that names no language runs in Python
    ]
    # the columns themselves in the same order, so that every table shows versions as neighbours
    assert [c["version"] for c in group["columns"]] == ["0.6.2", "1.4.0", "1.12.0", "5.0.2", "7.0.1", "2.0"]
    (row,) = group["grid"]
    gk = [row["cells"][k] for k in group["sections"][0]["libraries"][0]["columns"]]
    assert [(c["percent"], c["fail"], c["error"]) for c in gk] == [(33, 1, 1), (66, 1, 0), (100, 0, 0)]


def test_the_cases_whose_outcome_changes_between_versions_come_first(corpus: Corpus, tmp_path: Path) -> None:
    group, _, _ = _matrix(corpus, tmp_path)
    gk, vx = group["versions"]  # pylib has one version: no table
    assert (gk["library"], gk["versions"], gk["differ"]) == ("gk", ["0.6.2", "1.4.0", "1.12.0"], 2)
    assert [r["differs"] for r in gk["cases"]] == [True, True, False]
    assert [[r["outcomes"][k] for k in gk["columns"]] for r in gk["cases"]][:2] == [
        ["fail", "pass", "pass"],
        ["error", "fail", "pass"],
    ]
    assert (vx["library"], vx["differ"], len(vx["cases"])) == ("vx", 1, 2)
    # a case only one version holds does not differ: the grid shows which APIs a version serves
    assert [[r["outcomes"][k] for k in vx["columns"]] for r in vx["cases"]] == [["fail", "pass"], ["skip", None]]
    assert [r["differs"] for r in vx["cases"]] == [True, False]


def test_the_markdown_file_leads_with_the_grid(corpus: Corpus, tmp_path: Path) -> None:
    _, markdown, _ = _matrix(corpus, tmp_path)
    first_table = next(line for line in markdown.splitlines() if line.startswith("|"))
    assert first_table.startswith("|  | library | openai-chat |")
    assert markdown.index("API by library") < markdown.index("Versions side by side") < markdown.index("Summary")
    assert "| go | gk 0.6.2 | 🟥 33% · 1f 1e |" in markdown
    assert "| go | gk 1.12.0 | 🟩 100% |" in markdown


def test_a_detail_two_cells_share_is_held_once(corpus: Corpus, tmp_path: Path) -> None:
    group, _, html = _matrix(corpus, tmp_path)
    first_case = group["versions"][0]["cases"][0]["id"]  # gk 0.6.2 and vx 5.0.2 both fail it alike
    case = slug(first_case)
    assert html.count("fails as the others do") == 1
    held = f'id="cell-g1-gk-0.6.2-{case}"><details>'
    assert held in html
    shared = html[html.index(f'id="cell-g1-vx-v5-{case}"') :]
    assert shared[: shared.index("</td>")].count(f'data-same="cell-g1-gk-0.6.2-{case}"') == 1
