"""The guide covers what the code has: a page per API, every id semantics defined, the neutral model."""

from __future__ import annotations

import re

from conftest import ROOT

from conformance.corpus.caseschema import vocabulary

DOCS = ROOT / "docs"


def test_every_api_has_its_page() -> None:
    assert {p.stem for p in (DOCS / "apis").glob("*.md")} == set(vocabulary("api"))


def test_the_glossary_defines_every_id_semantics() -> None:
    glossary = (DOCS / "glossary.md").read_text(encoding="utf-8")
    for name in vocabulary("semantics"):
        assert re.search(rf"^- \*\*{name}\*\*: ", glossary, re.M), name


def test_the_neutral_model_reference_covers_the_model() -> None:
    text = (DOCS / "neutral-model.md").read_text(encoding="utf-8")
    for needle in ('"type": "custom"', "provider_executed", "extra", "IdMap", "mint the id in `decode`", "`tool`"):
        assert needle in text, needle
    neutral = (ROOT / "conformance" / "engine" / "neutral.py").read_text(encoding="utf-8")
    for field in re.findall(r"^    (\w+): ", neutral, re.M):  # every field of every TypedDict
        assert f"`{field}`" in text or f'"{field}"' in text, field
