"""A column that could not run (its harness did not build) stands in the matrix as failed, never left out.

The workflow's fan-out (scripts/columns.py) writes such a column's results file with no cases and a
`failure` holding the stage and the end of its log; `conformance matrix` shows it in the summary, the
grid, the outcome table, the badge and the page, with the log.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from conformance.cli import main
from conformance.corpus.loading import Corpus
from conformance.reports.matrix import HTML_FILE, JSON_FILE, MARKDOWN_FILE

sys.path.insert(0, str(ROOT / "scripts"))
import columns  # a script of the repository, not a package

LOG = "error[E0433]: failed to resolve: use of undeclared crate `rig_core`\nerror: could not compile `rig-harness`"


def _failed(tmp_path: Path, corpus: Corpus) -> Path:
    document = columns.failure_document("rig", "build", "Compiling ...\n" * 2000 + LOG)
    path = tmp_path / "rig.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def merged(tmp_path_factory: pytest.TempPathFactory, corpus: Corpus) -> Path:
    """The committed results of one column beside a failed build of another."""
    out = tmp_path_factory.mktemp("failed")
    failed = _failed(out, corpus)
    ran = ROOT / "reports" / "results" / "async-openai.json"
    assert main(["matrix", str(ran), str(failed), "--output", str(out)]) == 0
    return out


def _column(out: Path, name: str) -> dict[str, Any]:
    document = json.loads((out / JSON_FILE).read_text(encoding="utf-8"))
    found: dict[str, Any] = next(c for g in document["groups"] for c in g["columns"] if c["name"] == name)
    return found


def test_the_failure_document_keeps_the_committed_adapter_and_the_log_tail(tmp_path: Path, corpus: Corpus) -> None:
    document = json.loads(_failed(tmp_path, corpus).read_text(encoding="utf-8"))
    assert document["adapter"]["version"] == "0.44.0" and document["adapter"]["language"] == "rust"
    assert document["corpus_revision"] == corpus.revision()
    assert document["cases"] == [] and document["complete"] is False
    assert document["failure"]["stage"] == "build"
    assert document["failure"]["log"].endswith("could not compile `rig-harness`")
    assert len(document["failure"]["log"]) <= columns.LOG_TAIL


def test_a_failed_build_is_a_column_of_its_own_with_its_log(merged: Path) -> None:
    rig = _column(merged, "rig")
    assert rig["summary"].startswith("rig 0.44.0: build failed, no case ran")
    assert rig["failure"]["stage"] == "build" and "could not compile" in rig["failure"]["log"]
    # the column that ran keeps its shape: no failure key
    assert "failure" not in _column(merged, "async-openai")


def test_the_grid_shows_the_failure_on_every_api_row(merged: Path) -> None:
    document = json.loads((merged / JSON_FILE).read_text(encoding="utf-8"))
    group = document["groups"][0]
    key = _column(merged, "rig")["key"]
    assert group["grid"] and all(row["cells"][key] == {"failed": "build"} for row in group["grid"])


def test_markdown_page_and_badge_say_build_failed(merged: Path) -> None:
    markdown = (merged / MARKDOWN_FILE).read_text(encoding="utf-8")
    assert "| rust | rig | ⛔ build failed |" in markdown
    assert "rig: build failed; the end of its log:" in markdown and "could not compile `rig-harness`" in markdown
    assert "| rig (build failed) |" in markdown
    page = (merged / HTML_FILE).read_text(encoding="utf-8")
    assert 'class="g g-failed' in page and "build failed</a>" in page
    assert "could not compile `rig-harness`" in page
    badge = (merged / "badges" / "rig.svg").read_text(encoding="utf-8")
    assert "build failed" in badge and "#e05d44" in badge


def test_a_malformed_failure_is_an_input_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = json.loads((ROOT / "reports" / "results" / "rig.json").read_text(encoding="utf-8"))
    document["failure"] = "it broke"
    (tmp_path / "rig.json").write_text(json.dumps(document), encoding="utf-8")
    assert main(["matrix", str(tmp_path / "rig.json"), "--output", str(tmp_path)]) == 2
    assert "failure is not {stage, log}" in capsys.readouterr().err
