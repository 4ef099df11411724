"""Results documents read into matrix columns, and the columns grouped by corpus revision.

A column is one results document: one adapter, one run. Columns stand side by side only when they
ran against the same corpus revision; `group_by_revision` puts the current revision first and every
other revision after it, each in its own group.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.corpus.problems import InputError, Problem
from conformance.engine.outcomes import OUTCOMES
from conformance.recordings.bounds import BoundsError, parse_json, read_file
from conformance.running.results import FORMAT


@dataclass(frozen=True)
class Column:
    """One results document: who ran, against which corpus revision, and each case's record."""

    name: str
    version: str
    connector: str
    profile: str
    revision: str
    source: str  # where the results came from: a file's path, or `bundled`
    suite_version: str
    homepage: str
    complete: bool
    cases: Mapping[str, Mapping[str, Any]]  # case id -> the case's record, as the results file has it
    # The APIs the adapter serves, as the results file declares them (`adapter.apis`); None when it does not
    declared: tuple[str, ...] | None = None
    # The APIs the run was narrowed to (`--api`); None when it ran all
    selection: tuple[str, ...] | None = None
    # The language the harness reports (`adapter.language`); empty for Python client adapters, which do not
    language: str = ""
    # (stage, log tail) when the column could not run at all (`failure` in the results file: its harness
    # did not build); such a column has no cases and is shown as failed, never left out
    failure: tuple[str, str] | None = None

    @property
    def served(self) -> tuple[str, ...]:
        """The APIs whose cases count in this column's totals: those the adapter serves and the run selected.
        A results file that does not declare them (written before they were recorded) serves the APIs where
        a case was anything but skipped."""
        if self.declared is not None:
            apis = set(self.declared)
        else:
            apis = {str(c["api"]) for c in self.cases.values() if c.get("outcome") != "skip"}
        if self.selection is not None:
            apis &= set(self.selection)
        return tuple(sorted(apis))


@dataclass(frozen=True)
class Group:
    """Columns run against one corpus revision; `current` when that is the loaded corpus's revision."""

    revision: str
    current: bool
    columns: tuple[Column, ...]


def _problems(document: Any, source: str) -> list[str]:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return [f"not a {FORMAT} file"]
    found = []
    adapter = document.get("adapter")
    if not isinstance(adapter, dict) or not isinstance(adapter.get("name"), str):
        found.append("no adapter name")
    elif "apis" in adapter and not _strings(adapter["apis"]):
        found.append("adapter.apis is not a list of API names")
    if document.get("apis", "all") != "all" and not _strings(document.get("apis")):
        found.append("apis is neither 'all' nor a list of API names")
    if not isinstance(document.get("corpus_revision"), str):
        found.append("no corpus_revision")
    failure = document.get("failure")
    if failure is not None and not (
        isinstance(failure, dict) and isinstance(failure.get("stage"), str) and isinstance(failure.get("log"), str)
    ):
        found.append("failure is not {stage, log}")
    cases = document.get("cases")
    if not isinstance(cases, list):
        return [*found, "no cases list"]
    seen: Counter[str] = Counter()
    for i, case in enumerate(cases):
        if not isinstance(case, dict) or not isinstance(case.get("id"), str) or not isinstance(case.get("api"), str):
            found.append(f"case {i}: no id or api")
        elif case.get("outcome") not in OUTCOMES:
            found.append(f"case {case['id']}: unknown outcome {case.get('outcome')!r}")
        else:
            seen[case["id"]] += 1
    found += [f"case {case_id}: recorded {n} times" for case_id, n in sorted(seen.items()) if n > 1]
    return found


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def column(document: Mapping[str, Any], source: str) -> Column:
    """A column from a results document (checked by `load` or produced by this package)."""
    adapter = document["adapter"]
    return Column(
        name=str(adapter["name"]),
        version=str(adapter.get("version", "")),
        connector=str(adapter.get("connector", "")),
        profile=str(document.get("profile", "default")),
        revision=str(document["corpus_revision"]),
        source=source,
        suite_version=str(document.get("suite_version", "")),
        homepage=str(adapter.get("homepage", "")),
        complete=bool(document.get("complete", True)),
        cases={str(c["id"]): c for c in document["cases"]},
        declared=tuple(adapter["apis"]) if "apis" in adapter else None,
        selection=tuple(document["apis"]) if isinstance(document.get("apis"), list) else None,
        language=str(adapter.get("language") or ""),
        failure=(str(failure["stage"]), str(failure["log"])) if (failure := document.get("failure")) else None,
    )


def load(paths: Sequence[Path], sources: Sequence[str] | None = None) -> list[Column]:
    """Read results files; every unusable one is reported at once, as an InputError.

    `sources` names each file in the report (default: its path as given).
    """
    columns: list[Column] = []
    problems: list[Problem] = []
    for i, path in enumerate(paths):
        source = sources[i] if sources else path.as_posix()
        try:
            # Bounded: a device or FIFO is refused unread, a file past the size bound or JSON nested past
            # the depth bound is refused before anything walks it.
            document = parse_json(read_file(path), "the results file")
        except BoundsError as exc:
            problems.append(
                Problem(source, None, "results", f"cannot be read: {str(exc).removeprefix('cannot read: ')}")
            )
            continue
        found = _problems(document, source)
        problems += [Problem(source, None, "results", message) for message in found]
        if not found:
            columns.append(column(document, source))
    if problems:
        raise InputError(problems)
    return columns


def current_revision(columns: Iterable[Column], corpus_revision: str) -> str:
    """The loaded corpus's revision when any column ran against it, else the revision most columns share."""
    tally = Counter(c.revision for c in columns)
    if corpus_revision in tally or not tally:
        return corpus_revision
    return min(tally, key=lambda revision: (-tally[revision], revision))


def group_by_revision(columns: Sequence[Column], corpus_revision: str) -> list[Group]:
    """One group per corpus revision: the current one first, then the others in revision order."""
    first = current_revision(columns, corpus_revision)
    revisions = sorted({c.revision for c in columns}, key=lambda r: (r != first, r))
    return [
        Group(revision, revision == corpus_revision, tuple(c for c in columns if c.revision == revision))
        for revision in revisions
    ]
