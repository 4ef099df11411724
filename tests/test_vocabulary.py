"""The closed vocabularies agree: code registry, schema and documentation."""

from __future__ import annotations

import re

from conftest import ROOT

from conformance.corpus.caseschema import vocabulary
from conformance.engine.violations import CODES


def test_schema_lists_exactly_the_engine_codes() -> None:
    assert set(vocabulary("violationCode")) == set(CODES)


def test_every_code_is_documented_and_nothing_else() -> None:
    text = (ROOT / "docs" / "violations.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^### `([a-z]+/[a-z-]+)`", text, flags=re.M))
    assert documented == set(CODES)


def test_every_api_has_a_dialect_and_a_reference_codec() -> None:
    from conformance.engine.dialects import dialect_for, supported_apis
    from conformance.reference import ADAPTER

    apis = set(vocabulary("api"))
    assert set(supported_apis()) == apis
    assert set(ADAPTER.codecs) == apis
    for api in sorted(apis):
        assert dialect_for(api).api == api
        assert ADAPTER.codec(api) is not None
