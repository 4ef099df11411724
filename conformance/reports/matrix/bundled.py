"""The bundled adapters run for the matrix: the reference over every scenario, and each bug reproduction
over every scenario of its bug's API.

A reproduction's own bug's scenario is an expected failure, as everywhere a reproduction runs as an
adapter (`conformance.running.known_bugs`); its other cases are run as for any adapter, so the column shows how
far the bug reaches beyond the scenario it was reported on.

Every adapter runs isolated, in one shared worker process: nothing an adapter does ends the run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.connectors.adapters import AdapterSpecError, describe, resolve_reproduction
from conformance.corpus.loading import BugCase, Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.isolation import IsolatedAdapter
from conformance.running.known_bugs import run_case
from conformance.running.results import results_document
from conformance.running.runner import RunOptions, run_scenario, select
from conformance.running.worker_process import Worker

PROFILE = "default"


def reference_document(corpus: Corpus, revision: str, worker: Worker) -> dict[str, Any]:
    adapter = IsolatedAdapter("reference", worker)
    results = [run_scenario(adapter, s, corpus, PROFILE) for s in select(corpus)]
    return results_document(results, adapter=describe(adapter), corpus_revision=revision, profile=PROFILE)


def reproduction_document(bug: BugCase, corpus: Corpus, revision: str, worker: Worker) -> dict[str, Any]:
    api = corpus.scenarios[bug.scenario].api
    scenarios = select(corpus, [api])
    try:
        resolve_reproduction(bug.reproduction)  # only the project's own reproductions are run
        adapter = IsolatedAdapter(bug.reproduction, worker)
    except AdapterSpecError as exc:
        identity = {"name": bug.id, "version": "", "connector": "codec", "homepage": bug.report, "apis": [api]}
        results = [
            CaseResult(s.id, s.api, "crash", summary=f"the reproduction could not be loaded: {exc}") for s in scenarios
        ]
        return results_document(results, adapter=identity, corpus_revision=revision, profile=PROFILE, apis=[api])
    options = RunOptions(profile=PROFILE)
    results = [run_case(adapter, s, corpus, options, bug) for s in scenarios]
    identity = describe(adapter, bug)
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
