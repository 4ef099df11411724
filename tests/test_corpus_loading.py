"""Loading the corpus: a wheel's own cases are trusted, everything else is schema-checked."""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

from conformance.corpus import loading as corpus_module
from conformance.corpus.loading import build_corpus, read_case_files
from conformance.corpus.problems import Problem


def _broken_copy(tmp_path: Path) -> Path:
    cases = tmp_path / "cases"
    (cases / "bugs").mkdir(parents=True)
    case = yaml.safe_load((ROOT / "cases" / "bugs" / "genkit-3247.yaml").read_text())
    case["surprise"] = "a field the schema does not allow"
    (cases / "bugs" / "genkit-3247.yaml").write_text(yaml.safe_dump(case))
    return cases


def _schema_rules(problems: list[Problem]) -> set[str]:
    return {p.rule for p in problems if p.rule.startswith("schema:")}


def test_a_wheels_cases_skip_schema_validation_when_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cases = _broken_copy(tmp_path)
    monkeypatch.setattr(corpus_module, "shipped_cases", lambda: cases)
    files, _ = read_case_files([cases])
    _, trusted = build_corpus(files, [cases], [ROOT / "cassettes"], trust_shipped=True)
    _, checked = build_corpus(files, [cases], [ROOT / "cassettes"])
    assert _schema_rules(trusted) == set()
    assert _schema_rules(checked) == {"schema:additionalProperties"}


def test_a_source_checkout_is_always_validated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cases = _broken_copy(tmp_path)
    monkeypatch.setattr(corpus_module, "shipped_cases", lambda: None)
    files, _ = read_case_files([cases])
    _, problems = build_corpus(files, [cases], [ROOT / "cassettes"], trust_shipped=True)
    assert _schema_rules(problems) == {"schema:additionalProperties"}


def test_every_thought_signature_in_the_scenarios_and_their_histories_is_base64() -> None:
    """Gemini's thoughtSignature is bytes, sent as base64; the google-genai SDK decodes it strictly
    (Jackson's byte[]), so a signature that is not valid base64 makes a real client's read of the
    response fail, and the scenario judges the corpus rather than the client."""
    bad = []
    paths = [*(ROOT / "cases" / "scenarios").rglob("*.yaml"), *(ROOT / "cassettes" / "histories").rglob("*.yaml")]
    for path in sorted(paths):
        text = path.read_text(encoding="utf-8")
        for signature in re.findall(r"thoughtSignature\W{1,6}([A-Za-z0-9+/=_-]{16,})", text):
            try:
                base64.b64decode(signature, validate=True)
                valid = len(signature) % 4 == 0
            except binascii.Error:
                valid = False
            if not valid:
                bad.append(f"{path.relative_to(ROOT)}: {signature[:24]}...")
    assert not bad, bad
