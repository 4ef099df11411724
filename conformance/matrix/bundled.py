"""The bundled adapters run for the matrix: the reference over every scenario, and each bug reproduction
over every scenario of its bug's API.

A reproduction is expected to fail its own bug's scenario with exactly the bug's violation codes: that
case is an `xfail` linked to the bug's report when it does, an `xpass` when no violation appears, and
a `fail` naming the missing and unexpected codes otherwise. Its other cases are run as for any adapter,
so the column shows how far the bug reaches beyond the scenario it was reported on.

Every adapter runs isolated, in one shared worker process: nothing an adapter does ends the run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.adapters import AdapterSpecError
from conformance.corpus import BugCase, Corpus
from conformance.isolation import IsolatedAdapter, Worker
from conformance.outcomes import CaseResult
from conformance.results import results_document
from conformance.runner import reproduce, run_scenario, select

PROFILE = "default"


def reference_document(corpus: Corpus, revision: str, worker: Worker) -> dict[str, Any]:
    adapter = IsolatedAdapter("reference", worker)
    results = [run_scenario(adapter, s, corpus, PROFILE) for s in select(corpus)]
    return results_document(results, adapter=adapter.identity(), corpus_revision=revision, profile=PROFILE)


def expected_failure(bug: BugCase, corpus: Corpus, adapter: IsolatedAdapter) -> CaseResult:
    """The bug's own scenario through its reproduction: xfail when the bug reproduces exactly."""
    result = reproduce(bug, corpus, PROFILE, adapter)
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


def reproduction_document(bug: BugCase, corpus: Corpus, revision: str, worker: Worker) -> dict[str, Any]:
    api = corpus.scenarios[bug.scenario].api
    scenarios = select(corpus, [api])
    try:
        adapter = IsolatedAdapter(bug.reproduction, worker)
    except AdapterSpecError as exc:
        identity = {"name": bug.id, "version": "", "connector": "codec", "homepage": bug.report}
        results = [
            CaseResult(s.id, s.api, "crash", summary=f"the reproduction could not be loaded: {exc}") for s in scenarios
        ]
        return results_document(results, adapter=identity, corpus_revision=revision, profile=PROFILE, apis=[api])
    results = [
        expected_failure(bug, corpus, adapter) if s.id == bug.scenario else run_scenario(adapter, s, corpus, PROFILE)
        for s in scenarios
    ]
    identity = {**adapter.identity(), "name": bug.id, "homepage": bug.report}
    return results_document(results, adapter=identity, corpus_revision=revision, profile=PROFILE, apis=[api])


def run_bundled(corpus: Corpus, revision: str, progress: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Results documents: the reference's, then each bug's reproduction in bug id order."""
    worker = Worker(corpus.case_roots[:-1], corpus.cassette_roots[:-1])  # the bundled roots come by themselves
    try:
        documents = [reference_document(corpus, revision, worker)]
        for bug in sorted(corpus.bugs.values(), key=lambda b: b.id):
            documents.append(reproduction_document(bug, corpus, revision, worker))
            if progress and documents[-1]["counts"]["crash"]:
                progress(f"{bug.id}: {documents[-1]['cases'][0]['summary']}")
    finally:
        worker.close()
    return documents
