from __future__ import annotations

from pathlib import Path

import pytest

from conformance.corpus import Corpus, load_corpus

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
REAL_TRAFFIC = SHARED / "real-traffic"

pytest_plugins = ["pytester"]


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    return load_corpus()
