"""The two ways into the matrix, put together: results files given on the command line, or the bundled run.

`from_results` merges the files it is given. `from_bundled` runs the bundled adapters (the reference,
and each bug reproduction over its API's scenarios) and adds the committed results files of client
adapters found under `<output>/results/`, which need optional extras to re-run and so are read as they
are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.corpus.loading import Corpus, load_corpus
from conformance.reports.matrix import COMMAND, RESULTS_DIR
from conformance.reports.matrix.bundled import run_bundled
from conformance.reports.matrix.document import build_document
from conformance.reports.matrix.merge import Column, column, group_by_revision, load
from conformance.reports.matrix.outputs import render_files


@dataclass(frozen=True)
class Report:
    document: dict[str, Any]
    files: dict[str, str]  # relative path -> content

    @property
    def summaries(self) -> list[str]:
        return [c["summary"] for g in self.document["groups"] for c in g["columns"]]


def committed_results(output: Path) -> list[Path]:
    return sorted((output / RESULTS_DIR).glob("*.json"))


def _report(columns: Sequence[Column], corpus: Corpus, revision: str, generated_by: str, inputs: str) -> Report:
    groups = group_by_revision(columns, revision)
    document = build_document(groups, corpus, revision, generated_by=generated_by, inputs=inputs)
    return Report(document, render_files(document))


def from_results(paths: Sequence[Path]) -> Report:
    """The matrix of the results files given."""
    corpus = load_corpus()
    columns = load(paths)
    inputs = f"{len(paths)} results file{'s' if len(paths) != 1 else ''}"
    return _report(columns, corpus, corpus.revision(), COMMAND + " RESULTS.json...", inputs)


def from_bundled(output: Path, progress: Callable[[str], None] | None = None) -> Report:
    """The matrix of the bundled adapters, run now, and of the committed results under `<output>/results/`."""
    corpus = load_corpus()
    revision = corpus.revision()
    committed = committed_results(output)
    columns = [column(d, "bundled") for d in run_bundled(corpus, revision, progress)]
    # Named relative to the report, so that the report does not depend on where the checkout is.
    columns += load(committed, [f"{RESULTS_DIR}/{p.name}" for p in committed])
    inputs = (
        f"the bundled reference adapter, its {len(corpus.bugs)} bug reproductions (each over every scenario of its "
        f"API), and {len(committed)} committed results file{'s' if len(committed) != 1 else ''} under "
        f"{RESULTS_DIR}/"
    )
    return _report(columns, corpus, revision, COMMAND, inputs)
