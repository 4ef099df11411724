"""Searching an API's grammar for a scenario the adapter fails, and shrinking it, by hypothesis.

Each drawn scenario is built, played through the adapter and judged as a corpus case is. A
scenario that does not pass raises a failure whose type is its violation codes (its outcome, when
it failed without any): hypothesis shrinks a failure only to smaller scenarios that fail with the
same codes, and reports the smallest. That one is written out as a case file and its cassette.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as seeded

from conformance.connectors.adapters import Adapter
from conformance.corpus.generated import corpus_with, write
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.generated import DEFAULT_SEED
from conformance.generated.grammar import GRAMMARS
from conformance.generated.scenarios import named, scenario_docs
from conformance.running.runner import RunOptions, run_scenario


class GeneratedFailure(Exception):
    """A generated scenario the adapter does not pass. Subclassed once per set of codes: the type is
    what hypothesis keeps equal while it shrinks."""

    codes: tuple[str, ...] = ()

    def __init__(self, document: Mapping[str, Any], result: CaseResult) -> None:
        super().__init__(f"{result.outcome}: {', '.join(self.codes)}")
        self.document = document
        self.result = result


_KINDS: dict[tuple[str, ...], type[GeneratedFailure]] = {}


def failure_kind(codes: tuple[str, ...]) -> type[GeneratedFailure]:
    if codes not in _KINDS:
        _KINDS[codes] = type(f"Fails[{' '.join(codes)}]", (GeneratedFailure,), {"codes": codes})
    return _KINDS[codes]


def codes_of(result: CaseResult) -> tuple[str, ...]:
    """What a failure is kept equal by: its error codes, else its outcome (error, crash, timeout, fail)."""
    return tuple(sorted({v.code for v in result.errors})) or (result.outcome,)


def size(document: Mapping[str, Any]) -> tuple[int, int]:
    """A scenario's size as a reader sees it: its calls, and the bytes of its case file."""
    calls = sum(len(t.get("calls", ())) for t in document["turns"])
    return calls, len(yaml.safe_dump(dict(document), allow_unicode=True).encode())


@dataclass
class Search:
    """One API's search: how many scenarios ran, how long it took, and the failure found (shrunk)."""

    api: str
    examples: int = 0
    seconds: float = 0.0
    failure: GeneratedFailure | None = None
    first: Mapping[str, Any] | None = None  # the first failing scenario found, before shrinking
    first_at: int = 0  # how many scenarios had run when it was found
    written: tuple[Path, Path] | None = None
    passed_codes: set[str] = field(default_factory=set)


def judge(adapter: Adapter, corpus: Corpus, document: Mapping[str, Any], workdir: Path, profile: str) -> CaseResult:
    """One generated scenario built under workdir and run through the adapter."""
    _, _, scenario = write(document, workdir, case_file=False)
    corpus = corpus_with(corpus, scenario, workdir / "cassettes")
    carried = getattr(adapter, "run_carried", None)
    if callable(carried):  # an isolated adapter: its worker is handed the scenario with the case
        result: CaseResult = carried(scenario, corpus, RunOptions(profile=profile), workdir / "cassettes")
        return result
    return run_scenario(adapter, scenario, corpus, profile=profile, options=RunOptions(profile=profile))


def search(
    adapter: Adapter,
    corpus: Corpus,
    api: str,
    examples: int,
    *,
    seed: int = DEFAULT_SEED,
    profile: str = "default",
    out: Path | None = None,
    on_example: Callable[[CaseResult], None] | None = None,
) -> Search:
    """Up to `examples` scenarios of the API through the adapter; the first failure shrunk and, when
    `out` is given, written there (out/cases/scenarios/..., out/cassettes/...)."""
    grammar = GRAMMARS[api]
    template = corpus.scenarios[grammar.template].data
    found = Search(api)
    with tempfile.TemporaryDirectory(prefix="conformance-generated-") as scratch:
        workdir = Path(scratch)

        @seeded(seed)
        @settings(
            max_examples=examples,
            database=None,
            deadline=None,
            derandomize=False,
            report_multiple_bugs=False,
            phases=(Phase.generate, Phase.target, Phase.shrink),
            suppress_health_check=list(HealthCheck),
            verbosity=Verbosity.quiet,
        )
        @given(scenario_docs(grammar, template))
        def probe(document: dict[str, Any]) -> None:
            document = named(document)
            found.examples += 1
            result = judge(adapter, corpus, document, workdir, profile)
            if on_example is not None:
                on_example(result)
            if result.outcome not in ("pass", "skip"):
                if found.first is None:
                    found.first, found.first_at = document, found.examples
                raise failure_kind(codes_of(result))(document, result)

        started = time.perf_counter()
        try:
            probe()
        except GeneratedFailure as failure:
            found.failure = failure
        found.seconds = time.perf_counter() - started
    if found.failure is not None and out is not None:
        case, cassette, _ = write(found.failure.document, out)
        found.written = (case, cassette)
    return found
