"""The bundled adapters run for the matrix: the reference over every scenario, and each bug reproduction
over every scenario of its bug's API.

A reproduction's own bug's scenario is an expected failure, as everywhere a reproduction runs as an
adapter (`conformance.known_bugs`); its other cases are run as for any adapter, so the column shows how
far the bug reaches beyond the scenario it was reported on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.adapters import AdapterSpecError, describe, resolve_adapter, resolve_reproduction
from conformance.corpus import BugCase, Corpus
from conformance.known_bugs import run_case
from conformance.outcomes import CaseResult
from conformance.results import results_document
from conformance.runner import RunOptions, run_scenario, select

PROFILE = "default"


def reference_document(corpus: Corpus, revision: str) -> dict[str, Any]:
    adapter = resolve_adapter("reference")
    results = [run_scenario(adapter, s, corpus, PROFILE) for s in select(corpus)]
    return results_document(results, adapter=describe(adapter), corpus_revision=revision, profile=PROFILE)


def reproduction_document(bug: BugCase, corpus: Corpus, revision: str) -> dict[str, Any]:
    api = corpus.scenarios[bug.scenario].api
    scenarios = select(corpus, [api])
    try:
        adapter = resolve_reproduction(bug.reproduction)
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
    documents = [reference_document(corpus, revision)]
    for bug in sorted(corpus.bugs.values(), key=lambda b: b.id):
        documents.append(reproduction_document(bug, corpus, revision))
        if progress and documents[-1]["counts"]["crash"]:
            progress(f"{bug.id}: {documents[-1]['cases'][0]['summary']}")
    return documents
