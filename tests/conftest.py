from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from conformance.corpus.loading import Corpus, load_corpus

ROOT = Path(__file__).resolve().parents[1]


def _shared() -> Path:
    """The project's shared material (seeds, real third-party recordings) beside the checkout, or
    beside any directory above it (a worktree sits deeper); absent, tests that need it skip."""
    for parent in ROOT.parents:
        if (parent / "shared" / "real-traffic").is_dir():
            return parent / "shared"
    return ROOT.parent / "shared"


SHARED = _shared()
REAL_TRAFFIC = SHARED / "real-traffic"

pytest_plugins = ["pytester"]

# Corpus snapshots (conformance/corpus/snapshot.py) of the project's own test runs stay out of the user's
# cache; they are kept between runs, which is what makes the second run fast.
os.environ.setdefault("CONFORMANCE_CACHE_DIR", str(Path(tempfile.gettempdir()) / f"conformance-tests-{os.getuid()}"))


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    return load_corpus()


# Scenarios the generator found a failure with and shrank (docs/generated.md), kept as it wrote them
# (case and cassette) so that the finding or fix they show is held by a test.
GENERATED = ROOT / "tests" / "data" / "generated"


@pytest.fixture(scope="session")
def generated_corpus() -> Corpus:
    """The corpus with the kept generated scenarios (tests/data/generated) beside its own."""
    return load_corpus([GENERATED / "cases"])


# Fuzz test sizes (tests/test_fuzz_*.py): a small, repeatable run by default (CI), and a nightly
# one of more than 10,000 inputs with `--hypothesis-profile=nightly` (docs/robustness.md).
try:
    from hypothesis import HealthCheck, Phase, settings

    _FUZZ = {
        "deadline": None,  # each test bounds its own time, with a margin for a shared machine
        "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    }
    # CI reports a failing input as found, without minimising it: each input costs tens of
    # milliseconds, and minimising can take minutes; the printed draws reproduce it.
    _FOUND = [Phase.explicit, Phase.reuse, Phase.generate]
    settings.register_profile("ci", max_examples=40, derandomize=True, print_blob=True, phases=_FOUND, **_FUZZ)
    settings.register_profile("nightly", max_examples=2_000, print_blob=True, **_FUZZ)
    settings.load_profile("ci")
except ImportError:  # pragma: no cover - the test extra installs hypothesis
    pass


class Planted:
    """What an attacker pickles: unpickling it calls a function of their choosing."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (exec, (f"open({str(self.marker)!r}, 'w').write('ran')",))
