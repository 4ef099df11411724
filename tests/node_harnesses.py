"""The JavaScript framework harnesses (harnesses/<name>) as the tests drive them.

The frameworks are not installed in CI (the minimal harnesses hold the protocol there): a test
module asks for its harness with `installed`, which skips the module, with the install command as
the reason, wherever the harness's `npm ci` was not run.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import ROOT

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import RunOptions, run_scenario


def installed(name: str, package: str, label: str) -> Path:
    """The harness's directory; the calling module is skipped when node or its install is missing."""
    harness = ROOT / "harnesses" / name
    if shutil.which("node") is None or not (harness / "node_modules" / package).is_dir():
        pytest.skip(f"the {label} harness is not installed: npm ci --prefix harnesses/{name}", allow_module_level=True)
    return harness


@contextmanager
def started(harness: Path, *options: str) -> Iterator[HarnessAdapter]:
    """The harness running, with its command-line options, until the block ends."""
    adapter = HarnessAdapter(["node", str(harness / "run.mjs"), *options])
    try:
        yield adapter
    finally:
        adapter.close()


def run(adapter: HarnessAdapter, corpus: Corpus, scenario_id: str) -> CaseResult:
    return run_scenario(adapter, corpus.scenarios[scenario_id], corpus, options=RunOptions(timeout=60))


def verdict(adapter: HarnessAdapter, corpus: Corpus, scenario_id: str) -> tuple[str, str, set[str]]:
    """A scenario's outcome, its summary and the codes of its errors."""
    result = run(adapter, corpus, scenario_id)
    return result.outcome, result.summary, {v.code for v in result.errors}
