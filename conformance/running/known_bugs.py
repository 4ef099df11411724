"""A bug reproduction run as an adapter: one meaning wherever it runs over scenarios.

`--conformance-adapter=BUG-ID`, `conformance run --adapter BUG-ID` and the matrix's reproduction
columns all run the reproduction over the scenarios, and on the bug's own scenario expect it to
fail exactly as the bug does: that case is `xfail`, linked to the bug's report, when exactly the
bug's violation codes appear; `xpass` when no violation appears (the bug no longer reproduces,
which fails the run); and `fail` naming the missing and unexpected codes otherwise. Every other
scenario is judged as for any adapter, which shows how far the bug's mechanism reaches.
`conformance reproduce BUG-ID` asks the narrower question (does the bug reproduce?) and exits 0
when it does.
"""

from __future__ import annotations

from conformance.connectors.adapters import Adapter
from conformance.corpus.loading import BugCase, Corpus, Scenario
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import RunOptions, reproduce, run_scenario


def expected_failure(
    bug: BugCase, corpus: Corpus, profile: str = "default", adapter: Adapter | None = None
) -> CaseResult:
    """The bug's own scenario through its reproduction (the adapter given, e.g. isolated, or resolved
    here): xfail when the bug reproduces exactly."""
    result = reproduce(bug, corpus, profile, adapter)
    result.case_id = bug.scenario
    result.link = bug.report
    if result.outcome == "pass":
        result.outcome = "xfail"
        result.summary = f"expected to fail (known bug {bug.id}): {result.summary}"
    elif result.outcome == "fail" and not result.errors:
        result.outcome = "xpass"
        result.summary = f"expected to fail (known bug {bug.id}) but passed: {result.summary}"
    elif result.outcome == "fail":
        result.summary = f"fails, but not as known bug {bug.id} does: {result.summary}"
    return result


def run_case(
    adapter: Adapter,
    scenario: Scenario,
    corpus: Corpus,
    options: RunOptions,
    bug: BugCase | None = None,
) -> CaseResult:
    """One case: through a bug's reproduction, its own scenario is an expected failure."""
    if bug is not None and scenario.id == bug.scenario:
        return expected_failure(bug, corpus, options.profile, adapter)
    return run_scenario(adapter, scenario, corpus, options=options)
