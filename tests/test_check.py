"""`conformance check` fails on each deliberately broken case file, at the right file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance.check import check_corpus

BROKEN = Path(__file__).parent / "fixtures" / "broken"
FIXTURES = sorted(p for p in BROKEN.iterdir() if p.is_dir())


def test_bundled_corpus_is_clean() -> None:
    report = check_corpus()
    assert [str(p) for p in report.problems] == []
    assert report.corpus is not None and report.corpus.scenarios and report.corpus.bugs


@pytest.mark.parametrize("fixture", FIXTURES, ids=[p.name for p in FIXTURES])
def test_broken_fixture_is_reported_at_its_line(fixture: Path) -> None:
    expect = yaml.safe_load((fixture / "expect.yaml").read_text())
    report = check_corpus([fixture / "cases"])
    target = str(fixture / expect["file"])
    mine = [p for p in report.problems if p.path == target]
    assert mine, f"no problem reported for {target}: {report.problems}"
    assert (expect["rule"], expect["line"]) in {(p.rule, p.line) for p in mine}, mine
    others = [p for p in report.problems if not p.path.startswith(str(fixture))]
    assert others == []


def test_problems_print_as_file_line_rule() -> None:
    report = check_corpus([BROKEN / "unknown-api" / "cases"])
    text = str(report.problems[0])
    assert text.startswith(
        str(BROKEN / "unknown-api" / "cases" / "scenarios" / "openai-chat" / "unknown-api.yaml") + ":3: [schema:enum]"
    )
