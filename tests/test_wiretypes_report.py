"""`conformance matrix --wire-types`: the CallId proposal's tables regenerated from the cases, its figures checked."""

from __future__ import annotations

import itertools
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT, SHARED

from conformance.cli import main
from conformance.corpus.loading import Corpus, build_corpus, read_case_files
from conformance.reports import wiretypes_render as rendering
from conformance.reports import wiretypes_report as report

ROWS = yaml.safe_load((Path(__file__).parent / "data" / "callid-proposal-rows.yaml").read_text())["rows"]
SEED = SHARED / "seeds" / "000_2f8b9a1c8c969deb.txt"
REPORTS = ROOT / "reports"
ROLES = {"call": "call", "output": "output", "call+output": "hybrid"}


@pytest.fixture(scope="module")
def document(corpus: Corpus) -> dict[str, Any]:
    return report.build_document(corpus)


def _rows(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(r, table=t["key"]) for t in document["tables"] for r in t["rows"]]


def _claim(document: dict[str, Any], key: str) -> dict[str, Any]:
    return next(c for c in document["reconciliation"] if c["key"] == key)


def _copy_wire_types(tmp_path: Path) -> Path:
    cases = tmp_path / "cases"
    shutil.copytree(ROOT / "cases" / "wire-types", cases / "wire-types")
    return cases


def _load(cases: Path) -> Corpus:
    files, problems = read_case_files([cases])
    corpus, more = build_corpus(files, [cases], [ROOT / "cassettes"])
    assert problems + more == []
    return corpus


# The tables


def test_the_tables_hold_the_proposal_rows_in_its_order(document: dict[str, Any]) -> None:
    got = [(r["provider"], r["wire_type"], r["table"]) for r in _rows(document)]
    assert got == [(r["provider"], r["wire_type"], r["table"]) for r in ROWS]
    assert all(r["case"] and r["in_proposal_order"] for r in _rows(document))


def test_the_package_keeps_the_proposal_order_itself() -> None:
    # tests/ is not shipped: the order the report uses lives in the package and must equal the test data.
    data = report.proposal_data()
    ordered = [(provider, name, t["key"]) for t in data["tables"] for provider, name in t["rows"]]
    assert ordered == [(r["provider"], r["wire_type"], r["table"]) for r in ROWS]


@pytest.mark.skipif(not SEED.is_file(), reason="the seed documents are not beside this checkout")
def test_every_cell_reads_as_the_proposal_wrote_it(document: dict[str, Any]) -> None:
    pattern = r"^(Anthropic|Azure Foundry|Gemini|OpenAI) (\S+) (call\+output|call|output) (\S+) (.*)$"
    seed = re.findall(pattern, SEED.read_text(encoding="utf-8"), re.MULTILINE)
    assert len(seed) == len(ROWS)
    assert [(r["provider"], r["wire_type"], r["role"], r["family"], r["notes"]) for r in _rows(document)] == seed


def test_the_spec_matches_each_row_except_where_the_case_records_a_correction(corpus: Corpus) -> None:
    for row in report.proposal_rows(corpus):
        assert row.case is not None
        affects = {c.get("affects") for c in row.case.data.get("corrections", ())}
        if ROLES[row.block["role"]] != row.case.role:
            assert "role" in affects, row
        if row.category != row.case.semantics or (row.table == "natural") != (row.case.semantics == "natural"):
            assert "semantics" in affects, row
        assert row.block["family"] == row.case.family or affects, row


def test_corrected_rows_are_marked(document: dict[str, Any]) -> None:
    rows = {r["wire_type"]: r for r in _rows(document)}
    assert (rows["ToolSearchCall"]["semantics"], rows["ToolSearchCall"]["proposal_category"]) == ("nullable", "natural")
    assert "semantics" in rows["ToolSearchCall"]["corrected"]
    assert rows["FunctionToolCall"]["corrections"] == 0 and rows["FunctionToolCall"]["corrected"] == []
    assert rows["MemorySearchToolCallItemParam"]["variant"] == "MemorySearchToolCallItemParam"
    markdown = rendering.render_markdown(document)
    line = next(x for x in markdown.splitlines() if "`ToolSearchCall`" in x and x.startswith("| 42 "))
    assert "nullable (natural)" in line and "1: semantics" in line
    assert "[openai-responses/ToolSearchCall](../cases/wire-types/openai-responses/ToolSearchCall.yaml)" in line


# The counts


def test_totals_are_counted_from_the_cases(corpus: Corpus, document: dict[str, Any]) -> None:
    variants = {c.id: [v.get("proposal") for v in c.data.get("variants", ())] for c in corpus.wire_types.values()}
    held = [c for c in corpus.wire_types.values() if c.data.get("proposal") or any(variants[c.id])]
    totals = document["totals"]
    assert totals["proposal"]["rows"] == len(ROWS)
    assert totals["proposal"]["wire_types"] == len(held)
    assert totals["corpus"]["beyond_proposal"] == len(corpus.wire_types) - len(held)
    by = {s["semantics"]: s for s in totals["by_semantics"]}
    for semantics, counts in by.items():
        assert counts["wire_types"] == sum(c.semantics == semantics for c in held)
        assert counts["corpus_wire_types"] == sum(c.semantics == semantics for c in corpus.wire_types.values())
    assert sum(s["rows"] for s in by.values()) == sum(s["proposal_rows"] for s in by.values()) == len(ROWS)
    assert sum(s["rows_at_proposal"] for s in by.values()) == len(ROWS)
    # Figures count rows, by the spec of the proposal's date.
    assert _claim(document, "natural")["actual"] == by["natural"]["rows_at_proposal"]
    assert _claim(document, "conflated")["actual"] == by["conflated"]["rows_at_proposal"]
    assert _claim(document, "natural")["actual_today"] == by["natural"]["rows"]
    assert _claim(document, "deduplicated")["actual"] == totals["proposal"]["wire_types"]


def test_each_step_of_a_reconciliation_adds_up(document: dict[str, Any]) -> None:
    for claim in document["reconciliation"]:
        steps = claim["steps"]
        assert steps[0]["count"] == claim["figure"] and steps[-1]["count"] == claim["actual"], claim["key"]
        for before, step in itertools.pairwise(steps):
            assert before["count"] + (step["change"] or 0) == step["count"], (claim["key"], step["label"])
            if step["label"].startswith(("rows the spec", "rows the proposal files", "rows that name")):
                assert len(step["rows"]) == abs(step["change"]), (claim["key"], step["label"])


def test_the_proposal_figures_that_no_reading_of_its_tables_gives(document: dict[str, Any]) -> None:
    verdicts = {c["key"]: c["verdict"] for c in document["reconciliation"]}
    assert verdicts["deduplicated"] == verdicts["natural"] == verdicts["with-variants"] == "irreconcilable"
    assert verdicts["remaining-natural"] == "arithmetic"  # 64 - 15, while the natural table lists 43 rows
    assert verdicts["without-natural-id"] == verdicts["fabricated"] == "counts-own-tables"
    addends = next(r for r in _claim(document, "deduplicated")["readings"] if r["kind"] == "arithmetic")
    assert addends["value"] == 42 + 3 + 6 + 6 != 55


def test_changing_a_case_changes_the_counts(tmp_path: Path, document: dict[str, Any]) -> None:
    cases = _copy_wire_types(tmp_path)
    path = cases / "wire-types" / "openai-responses" / "ToolSearchCall.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count("\nsemantics: nullable\n") == 1
    path.write_text(text.replace("\nsemantics: nullable\n", "\nsemantics: natural\n"), encoding="utf-8")
    changed = report.build_document(_load(cases))
    before = {s["semantics"]: s for s in document["totals"]["by_semantics"]}
    after = {s["semantics"]: s for s in changed["totals"]["by_semantics"]}
    assert after["natural"]["wire_types"] == before["natural"]["wire_types"] + 1
    assert after["nullable"]["wire_types"] == before["nullable"]["wire_types"] - 1
    assert after["natural"]["proposal_rows"] == before["natural"]["proposal_rows"]  # the proposal's own view
    assert _claim(changed, "natural")["actual"] == _claim(document, "natural")["actual"] + 1
    assert _claim(changed, "without-natural-id")["actual"] == _claim(document, "without-natural-id")["actual"] - 1
    moved = [s for s in _claim(changed, "natural")["steps"] if s["label"] == "rows the spec of its date puts elsewhere"]
    # FunctionToolCallOutput was natural on the proposal's date: it is not moved, but listed as changed since.
    assert [r["wire_type"] for r in moved[0]["rows"]] == ["ToolSearchOutput"]
    assert [r["wire_type"] for r in _claim(changed, "natural")["since"]] == ["FunctionToolCallOutput"]


def test_a_row_held_nowhere_is_shown_and_not_counted(tmp_path: Path, document: dict[str, Any]) -> None:
    cases = _copy_wire_types(tmp_path)
    (cases / "wire-types" / "gemini" / "ToolResponse.yaml").unlink()
    changed = report.build_document(_load(cases))
    row = next(r for r in _rows(changed) if r["wire_type"] == "ToolResponse")
    assert row["case"] is None and row["position"] == 7
    assert changed["totals"]["rows_without_case"] == 1
    assert _claim(changed, "synthetic")["actual"] == _claim(document, "synthetic")["actual"] - 1
    assert "no case" in rendering.render_markdown(changed)


def test_the_verdicts_compare_against_the_spec_of_the_proposals_date(document: dict[str, Any]) -> None:
    row = next(r for r in _rows(document) if r["wire_type"] == "FunctionToolCallOutput")
    assert (row["semantics_at_proposal"], row["semantics"], row["semantics_since"]) == (
        "natural",
        "nullable",
        "2026-08-05",
    )
    assert row["semantics_since"] > report.proposal_date()
    claim = _claim(document, "without-natural-id")
    moved = [ref["wire_type"] for step in claim["steps"] for ref in step["rows"]]
    assert "FunctionToolCallOutput" not in moved
    assert [r["wire_type"] for r in claim["since"]] == ["FunctionToolCallOutput"]
    assert (claim["actual"], claim["actual_today"]) == (claim["actual_today"] - 1, claim["actual_today"])
    markdown = rendering.render_markdown(document)
    assert "natural; nullable since 2026-08-05" in markdown
    assert "wrong per the spec of its date" in markdown


def test_a_change_before_the_proposals_date_counts_against_it(tmp_path: Path, document: dict[str, Any]) -> None:
    cases = _copy_wire_types(tmp_path)
    path = cases / "wire-types" / "openai-responses" / "FunctionToolCallOutput.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count("    since: 2026-08-05\n") == 1
    path.write_text(text.replace("    since: 2026-08-05\n", "    since: 2026-03-01\n"), encoding="utf-8")
    claim = _claim(report.build_document(_load(cases)), "without-natural-id")
    assert claim["actual"] == _claim(document, "without-natural-id")["actual"] + 1 == claim["actual_today"]
    assert claim["since"] == []


def test_fabricated_is_counted_by_row(document: dict[str, Any]) -> None:
    rows = {r["wire_type"]: r for r in _rows(document)}
    assert rows["MemorySearchToolCallItemParam"]["semantics"] == "fabricated"  # the request form has no id
    assert rows["MemorySearchToolCallItemResource"]["semantics"] == "conflated"
    claim = _claim(document, "fabricated")
    assert (claim["figure"], claim["actual"], claim["unit"]) == (3, 1, "rows")
    moved = [ref["wire_type"] for step in claim["steps"] for ref in step["rows"]]
    assert moved == ["MemorySearchToolCallItemResource", "WorkflowActionOutputItem"]


def test_the_gemini_rows_are_classified_alike(document: dict[str, Any]) -> None:
    gemini = [r for r in _rows(document) if r["provider"] == "Gemini"]
    assert len(gemini) == 6 and {r["semantics"] for r in gemini} == {"nullable"}


# The files and the command


def test_the_json_twin_is_sorted_versioned_and_ends_with_a_newline(corpus: Corpus) -> None:
    text = rendering.render(corpus)[report.JSON_FILE]
    data = json.loads(text)
    assert (data["format"], data["version"]) == ("toolcall-conformance/wire-types", 2)
    assert data["wire_types_revision"].startswith("sha256:")
    assert data["wire_types_revision"] != corpus.revision()  # scenarios and cassettes do not stale it
    assert text == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_the_markdown_says_it_is_generated_and_by_what(corpus: Corpus) -> None:
    text = rendering.render(corpus)[report.MARKDOWN_FILE]
    assert "Generated by `conformance matrix --wire-types`" in text.split("\n## ")[0]
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_two_runs_write_the_same_bytes(tmp_path: Path) -> None:
    for run in ("a", "b"):
        assert main(["matrix", "--wire-types", "--output", str(tmp_path / run)]) == 0
    for name in (report.MARKDOWN_FILE, report.JSON_FILE):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_the_committed_report_is_current(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["matrix", "--wire-types", "--check", "--output", str(REPORTS)]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("change", ["edit", "delete"])
def test_check_names_a_stale_file_and_writes_nothing(
    change: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["matrix", "--wire-types", "--output", str(tmp_path)]) == 0
    stale = tmp_path / (report.MARKDOWN_FILE if change == "edit" else report.JSON_FILE)
    if change == "edit":
        stale.write_text(stale.read_text(encoding="utf-8").replace("| 58 |", "| 57 |", 1), encoding="utf-8")
    else:
        stale.unlink()
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    capsys.readouterr()
    assert main(["matrix", "--wire-types", "--check", "--output", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert str(stale) in out
    other = tmp_path / (report.JSON_FILE if change == "edit" else report.MARKDOWN_FILE)
    assert str(other) not in out
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
