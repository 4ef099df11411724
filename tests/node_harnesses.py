"""The JavaScript framework harnesses (harnesses/<name>) as the tests drive them.

A test module asks for its harness with `installed`, which goes through the one gate for harnesses
in other languages (`toolchains.require`): it skips the module, with the install command as the
reason, wherever node or the harness's `npm ci` is missing, and fails it where CI requires harnesses.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from conftest import ROOT
from toolchains import require

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import RunOptions, run_scenario


def installed(name: str, package: str) -> Path:
    """The harness's directory (harnesses/<name>), once `package` is installed in its node_modules."""
    harness = ROOT / "harnesses" / name
    require("node", built=harness / "node_modules" / package, install=f"npm ci --prefix harnesses/{name}", unit=name)
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
