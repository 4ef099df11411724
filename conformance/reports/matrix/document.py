"""The matrix as plain, JSON-ready data: what `matrix.json` holds and both renderers read.

Per corpus revision (the current first): the columns with their outcome counts and one-line summary;
per API, the cases grouped by wire type (the first wire type of the scenario's own API), each cell
holding its outcome, summary, link, violations, diff and detail; and rollups by ID semantics (from
the wire-type cases a scenario exercises) and by feature. Nothing in it depends on when or where it
was made: no timestamps, no durations, no absolute paths, stable orders throughout.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from conformance.corpus.caseschema import vocabulary
from conformance.corpus.loading import Corpus, Scenario
from conformance.engine.outcomes import ADAPTED, OUTCOMES, SUBSTITUTED, UNJUDGED
from conformance.engine.portable import stable_detail, stable_text
from conformance.reports.matrix import BADGE_DIR, FORMAT, VERSION, layout
from conformance.reports.matrix.badges import summary_line
from conformance.reports.matrix.merge import Column, Group

KINDS = ("reference", "adapter", "reproduction")
NOT_IN_CORPUS = "(not in the current corpus)"
VIOLATION_FIELDS = (
    "code",
    "severity",
    "location",
    "message",
    "expected",
    "received",
    "provider_error",
    "provider_error_source",
    "hint",
    ADAPTED,
    SUBSTITUTED,
)


# A column's key names its badge file: an adapter's name may be of any length, a file's name not.
_KEY_LENGTH = 64


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-") or "adapter"


def kind_of(column: Column, corpus: Corpus) -> str:
    if column.name == "reference" and column.connector == "codec":
        return "reference"
    return "reproduction" if column.name in corpus.bugs else "adapter"


def _order(columns: Iterable[Column], corpus: Corpus) -> list[Column]:
    """The reference, then adapters by language and library (versions in release order), then reproductions."""
    return sorted(
        columns,
        key=lambda c: (
            KINDS.index(kind_of(c, corpus)),
            layout.language_of(c.language, c.connector),
            layout.library_of(c.name),
            layout.version_key(c.version),
            c.name,
            c.profile,
            c.source,
        ),
    )


def _labels(columns: Sequence[Column]) -> list[str]:
    """The adapter's name, made unique within a group by its version, then profile, then source."""
    labels = [c.name for c in columns]
    for field in ("version", "profile", "source"):
        tally = Counter(labels)
        labels = [
            f"{label} {getattr(c, field)}" if tally[label] > 1 else label
            for label, c in zip(labels, columns, strict=True)
        ]
    return labels


def counts(outcomes: Iterable[str], *, full: bool = False) -> dict[str, int]:
    """Outcome -> number, in outcome order; zeros only when `full`; with the total."""
    tally = Counter(outcomes)
    found: dict[str, int] = {o: tally[o] for o in OUTCOMES if full or tally[o]}
    return {**found, "total": sum(tally.values())}


def cell(record: Mapping[str, Any]) -> dict[str, Any]:
    """A case record reduced to what the matrix shows; empty fields left out."""
    violations = [
        {k: v[k] for k in VIOLATION_FIELDS if v.get(k) not in (None, "")}
        for v in record.get("violations", ())
        if isinstance(v, Mapping)
    ]
    data: dict[str, Any] = {
        "outcome": record["outcome"],
        "summary": stable_text(str(record.get("summary") or "")),
        "link": str(record.get("link") or ""),
        "violations": violations,
        "expected_codes": list(record.get("expected_codes") or ()),
        "diff": str(record.get("diff") or ""),
        "detail": stable_detail(str(record.get("detail") or "")),
    }
    return {k: v for k, v in data.items() if v not in ("", [])}


def _primary_wire_type(scenario: Scenario | None) -> str:
    if scenario is None or not scenario.wire_types:
        return NOT_IN_CORPUS
    own = [w for w in scenario.wire_types if w.startswith(f"{scenario.api}/")]
    return (own or list(scenario.wire_types))[0]


def _semantics(scenario: Scenario | None, corpus: Corpus) -> list[str]:
    if scenario is None:
        return []
    found = {corpus.wire_types[w].semantics for w in scenario.wire_types if w in corpus.wire_types}
    return [s for s in vocabulary("semantics") if s in found]


def _api_order(apis: Iterable[str]) -> list[str]:
    known = vocabulary("api")
    return sorted(set(apis), key=lambda a: (a not in known, known.index(a) if a in known else 0, a))


def _served_cases(column: Column) -> dict[str, Mapping[str, Any]]:
    """The column's cases of the APIs it serves: the ones its totals count."""
    served = set(column.served)
    return {case_id: c for case_id, c in column.cases.items() if str(c["api"]) in served}


def _not_served(column: Column) -> list[dict[str, Any]]:
    """Per API the column's results hold but it does not serve: how many cases, and why (the first skip's reason)."""
    served = set(column.served)
    found: dict[str, dict[str, Any]] = {}
    for c in column.cases.values():
        api = str(c["api"])
        if api in served:
            continue
        entry = found.setdefault(api, {"api": api, "cases": 0, "reason": stable_text(str(c.get("summary") or ""))})
        entry["cases"] += 1
    return [found[api] for api in _api_order(found)]


# A skip's reason ends with where the recorded response uses what the client left out; grouped without it.
_WHERE = re.compile(r"\s*\((?:response|request)\[\d+\][^()]*\)$")


def skip_reason(summary: str) -> str:
    """A skip's reason as the matrix groups it: without the location of what the reason is about."""
    return _WHERE.sub("", stable_text(summary)) or "no reason given"


def _skips(column: Column) -> list[dict[str, Any]]:
    """The column's skips over the APIs it serves, grouped by reason, the commonest first."""
    reasons = Counter(
        skip_reason(str(c.get("summary") or "")) for c in _served_cases(column).values() if c["outcome"] == "skip"
    )
    return [{"reason": r, "cases": n} for r, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))]


def coverage(tally: Mapping[str, int], cases: int) -> dict[str, Any]:
    """How much of what the column could judge it judged: the cases of the APIs it serves (its results'
    and those they do not hold), those judged (any outcome but skip, not-run and crash), that share, and
    beside it the share of the cases run that pass (the grid's)."""
    judged = sum(n for o, n in tally.items() if o in OUTCOMES and o not in UNJUDGED)
    ran = layout.share(tally)
    return {
        "cases": cases,
        "judged": judged,
        "percent": None if cases == 0 else (100 * judged) // cases,
        "pass_percent": None if ran is None else ran["percent"],
    }


def _column_json(column: Column, key: str, label: str, corpus: Corpus, rows: Mapping[str, str]) -> dict[str, Any]:
    kind = kind_of(column, corpus)
    apis = _api_order(column.served)
    covered = [case_id for case_id, api in rows.items() if api in apis]
    bug = corpus.bugs.get(column.name) if kind == "reproduction" else None
    tally = counts((str(c["outcome"]) for c in _served_cases(column).values()), full=True)
    return {
        "key": key,
        "label": label,
        "name": column.name,
        "version": column.version,
        "connector": column.connector,
        "profile": column.profile,
        "kind": kind,
        "library": layout.library_of(column.name),
        "language": layout.language_of(column.language, column.connector),
        "source": column.source,
        "homepage": column.homepage,
        "suite_version": column.suite_version,
        "complete": column.complete,
        "bug": {"id": bug.id, "report": bug.report, "scenario": bug.scenario} if bug else None,
        "apis": apis,
        "not_served": _not_served(column),
        "counts": tally,
        "absent": sum(case_id not in column.cases for case_id in covered),
        "coverage": coverage(tally, len(covered)),
        "skips": _skips(column),
        "summary": summary_line(
            column.name,
            column.version,
            tally,
            column.revision,
            apis=apis,
            of=len(vocabulary("api")),
            complete=column.complete,
            failure=column.failure[0] if column.failure else None,
        ),
        "badge": None if kind == "reproduction" else f"{BADGE_DIR}/{key}.svg",
        # only on a column that could not run, so that the other columns' data keeps its shape
        **({"failure": {"stage": column.failure[0], "log": column.failure[1]}} if column.failure else {}),
    }


def _rollup(
    names: Sequence[str],
    members: Mapping[str, Sequence[str]],
    columns: Sequence[tuple[str, Column]],
) -> list[dict[str, Any]]:
    """Per name (a semantics, a feature): how many cases have it, and each column's outcomes over them."""
    out = []
    for name in names:
        cases = members.get(name, ())
        if not cases:
            continue
        out.append(
            {
                "key": name,
                "cases": len(cases),
                "counts": {
                    key: counts(str(col.cases[c]["outcome"]) for c in cases if c in col.cases) for key, col in columns
                },
            }
        )
    return out


def _group(group: Group, corpus: Corpus, labelled: Sequence[tuple[str, str, Column]]) -> dict[str, Any]:
    """`labelled`: (key, label, column) in column order."""
    # Each column with only the cases of the APIs it serves: the others are no part of its results.
    keyed = [(key, replace(c, cases=_served_cases(c))) for key, _, c in labelled]
    rows: dict[str, str] = {}  # case id -> api
    if group.current:
        rows.update({s.id: s.api for s in corpus.scenarios.values()})
    for _, column in keyed:
        for case_id, record in column.cases.items():
            rows.setdefault(case_id, corpus.scenarios[case_id].api if case_id in corpus.scenarios else record["api"])

    apis = []
    by_semantics: dict[str, list[str]] = {}
    by_feature: dict[str, list[str]] = {}
    by_provenance: dict[str, list[str]] = {}
    for api in _api_order(rows.values()):
        present = [(k, c) for k, c in keyed if api in c.served]
        if not present:
            continue  # no column serves it
        wire_groups: dict[str, list[dict[str, Any]]] = {}
        for case_id in sorted(i for i, a in rows.items() if a == api):
            scenario = corpus.scenarios.get(case_id)
            semantics = _semantics(scenario, corpus)
            features = list(scenario.features) if scenario else []
            for name in semantics:
                by_semantics.setdefault(name, []).append(case_id)
            for name in features:
                by_feature.setdefault(name, []).append(case_id)
            if scenario is not None:
                by_provenance.setdefault(scenario.provenance, []).append(case_id)
            wire_groups.setdefault(_primary_wire_type(scenario), []).append(
                {
                    "id": case_id,
                    "in_corpus": scenario is not None,
                    "description": scenario.description if scenario else "",
                    "wire_types": list(scenario.wire_types) if scenario else [],
                    "semantics": semantics,
                    "features": features,
                    "provenance": scenario.provenance if scenario else "",
                    "cells": {k: cell(c.cases[case_id]) if case_id in c.cases else None for k, c in present},
                }
            )
        api_cases = [i for i, a in rows.items() if a == api]
        apis.append(
            {
                "api": api,
                "columns": [k for k, _ in present],
                "counts": {
                    k: counts(str(c.cases[i]["outcome"]) for i in api_cases if i in c.cases) for k, c in present
                },
                "wire_types": [
                    {
                        "wire_type": wire_type,
                        "semantics": corpus.wire_types[wire_type].semantics if wire_type in corpus.wire_types else None,
                        "counts": {
                            k: counts(str(c.cases[r["id"]]["outcome"]) for r in cases if r["id"] in c.cases)
                            for k, c in present
                        },
                        "cases": cases,
                    }
                    for wire_type, cases in sorted(wire_groups.items(), key=lambda kv: (kv[0] == NOT_IN_CORPUS, kv[0]))
                ],
            }
        )
    columns = [_column_json(c, key, label, corpus, rows) for key, label, c in labelled]
    sections = layout.sections(columns)
    return {
        "corpus_revision": group.revision,
        "current": group.current,
        "columns": columns,
        "sections": sections,
        "grid": layout.grid(apis, {str(c["key"]): c["failure"]["stage"] for c in columns if "failure" in c}),
        "versions": layout.versions(sections, apis, {str(c["key"]): str(c["version"]) for c in columns}),
        "apis": apis,
        "rollups": {
            "semantics": _rollup(vocabulary("semantics"), by_semantics, keyed),
            "features": _rollup(vocabulary("feature"), by_feature, keyed),
            # Real traffic and the project's own constructions, counted apart.
            "provenance": _rollup(("recorded", "constructed"), by_provenance, keyed),
        },
    }


def _labelled(groups: Sequence[Group], corpus: Corpus) -> list[list[tuple[str, str, Column]]]:
    """Per group, (key, label, column) in column order; keys are unique in the whole document (HTML ids,
    badge file names), the current group's taken first."""
    taken: set[str] = set()
    out = []
    for group in groups:
        ordered = _order(group.columns, corpus)
        labelled = []
        for label, column in zip(_labels(ordered), ordered, strict=True):
            base = slug(label)[:_KEY_LENGTH].strip("-") or "adapter"
            key, n = base, 1
            while key in taken:
                n += 1
                key = f"{base}-{n}"
            taken.add(key)
            labelled.append((key, label, column))
        out.append(labelled)
    return out


def build_document(
    groups: Sequence[Group], corpus: Corpus, revision: str, *, generated_by: str, inputs: str
) -> dict[str, Any]:
    """The whole matrix: `revision` is the loaded corpus's, `generated_by` the command, `inputs` what it read."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "generated_by": generated_by,
        "inputs": inputs,
        "corpus_revision": revision,
        "outcomes": list(OUTCOMES),
        "groups": [_group(g, corpus, labelled) for g, labelled in zip(groups, _labelled(groups, corpus), strict=True)],
    }
