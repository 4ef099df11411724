"""The wire-types report: the CallId proposal's tables regenerated from the case files, and its figures checked.

`build_document` turns the corpus into plain data: the proposal's two tables in its own row order, each
row tied to the case (or variant) that holds it; totals counted from the cases; the proposal's headline
figures against the true ones, step by step; the corrections the cases record; and the wire types the
proposal does not list. `wiretypes_render` writes it out as Markdown and JSON. Only the row order and the
proposal's own figures are data of this package (`data/callid-proposal.yaml`); every count is computed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from conformance.corpus.caseschema import vocabulary
from conformance.corpus.loading import Corpus, WireType
from conformance.corpus.paths import content_revision
from conformance.recordings.yamlio import load_text, to_plain

FORMAT = "toolcall-conformance/wire-types"
VERSION = 2  # 2: figures counted in their own unit against the spec of the proposal's date
COMMAND = "conformance matrix --wire-types"
MARKDOWN_FILE, JSON_FILE = "wire-types.md", "wire-types.json"
PROPOSAL_DATA = "callid-proposal.yaml"


@cache
def proposal_data() -> dict[str, Any]:
    """The proposal's row order and headline figures."""
    text = resources.files("conformance").joinpath("data").joinpath(PROPOSAL_DATA).read_text("utf-8")
    loaded: dict[str, Any] = to_plain(load_text(text, PROPOSAL_DATA))
    return loaded


@dataclass(frozen=True)
class Row:
    """One row of the proposal's tables and the case (and variant) holding its `proposal:` block."""

    table: str
    position: int
    provider: str
    wire_type: str
    case: WireType | None = None
    variant: str | None = None
    block: Mapping[str, Any] = field(default_factory=dict)
    in_proposal_order: bool = True

    @property
    def semantics(self) -> str | None:
        """What the spec says today: the variant's own semantics where the row is a variant that records one
        (a request form without the id), else the case's."""
        if not self.case:
            return None
        variant: Mapping[str, Any] = next(
            (v for v in self.case.data.get("variants", ()) if v["name"] == self.variant), {}
        )
        return str(variant.get("semantics", self.case.semantics))

    @property
    def category(self) -> str | None:
        """The proposal's own category: the block's `category` where it differs from the case's semantics."""
        return str(self.block.get("category", self.semantics)) if self.case else None

    def change_after(self, date: str) -> Mapping[str, Any] | None:
        """The correction of the row's semantics that came after `date` (it records `since` and `was`)."""
        if not self.case:
            return None
        return next(
            (
                c
                for c in self.case.data.get("corrections", ())
                if c.get("affects") == "semantics" and c.get("was") and str(c.get("since", "")) > date
            ),
            None,
        )

    def semantics_on(self, date: str) -> str | None:
        """What the spec said on `date`: the semantics before a later change, else today's."""
        change = self.change_after(date)
        return str(change["was"]) if change else self.semantics


def _blocks(case: WireType) -> list[tuple[str | None, Mapping[str, Any]]]:
    found = [(None, case.data.get("proposal"))] + [
        (v["name"], v.get("proposal")) for v in case.data.get("variants", ())
    ]
    return [(variant, block) for variant, block in found if block]


def proposal_rows(corpus: Corpus) -> list[Row]:
    """Every row, table by table in the proposal's order; rows no order entry names come last in their table."""
    claimed: dict[tuple[str, str], tuple[WireType, str | None, Mapping[str, Any]]] = {}
    for case in sorted(corpus.wire_types.values(), key=lambda c: c.id):
        for variant, block in _blocks(case):
            claimed.setdefault((block["provider"], block["wire_type"]), (case, variant, block))
    rows: list[Row] = []
    for table in proposal_data()["tables"]:
        ordered = [(str(p), str(w)) for p, w in table["rows"]]
        extra = sorted(k for k, (_, _, b) in claimed.items() if b["table"] == table["key"] and k not in ordered)
        for position, key in enumerate([*ordered, *extra], 1):
            row = Row(table["key"], position, *key, in_proposal_order=key in ordered)
            if key in claimed:
                case, variant, block = claimed[key]
                row = Row(table["key"], position, *key, case, variant, block, key in ordered)
            rows.append(row)
    return rows


def _path(corpus: Corpus, case: WireType) -> str:
    for root in corpus.case_roots:
        if case.path.is_relative_to(root):
            return f"cases/{case.path.relative_to(root).as_posix()}"
    return case.path.name


def _forms(case: WireType) -> list[str]:
    """The wire type and its variants, once per schema name."""
    return sorted({case.name, *(v["name"] for v in case.data.get("variants", ()))})


def _distinct(rows: Iterable[Row]) -> list[str]:
    return sorted({r.case.id for r in rows if r.case})


def proposal_date() -> str:
    return str(proposal_data()["source"]["date"])


def _semantics_correction(case: WireType) -> str:
    topics = [c["topic"] for c in case.data.get("corrections", ()) if c.get("affects") == "semantics"]
    return "; ".join(topics) if topics else "no correction recorded"


def _ref(row: Row, detail: str) -> dict[str, Any]:
    return {
        "table": row.table,
        "position": row.position,
        "wire_type": row.wire_type,
        "case": row.case.id if row.case else None,
        "variant": row.variant,
        "detail": detail,
    }


def _moved(row: Row) -> dict[str, Any]:
    why = _semantics_correction(row.case) if row.case else "no case"
    if row.variant and row.semantics != (row.case.semantics if row.case else None):
        why = f"the {row.variant} form itself is {row.semantics}"
    at = row.semantics_on(proposal_date())
    return _ref(row, f"{row.category} in the proposal, {at} per the spec of its date: {why}")


def _later(row: Row) -> dict[str, Any]:
    change = row.change_after(proposal_date()) or {}
    since = f"{change.get('was')} at the proposal's date, {row.semantics} since {change.get('since')}"
    return _ref(row, f"{since}: {change.get('topic')}")


def _row(corpus: Corpus, row: Row) -> dict[str, Any]:
    corrections = row.case.data.get("corrections", ()) if row.case else ()
    change = row.change_after(proposal_date())
    return {
        "position": row.position,
        "provider": row.provider,
        "wire_type": row.wire_type,
        "role": row.block.get("role"),
        "family": row.block.get("family"),
        "notes": row.block.get("notes"),
        "case": row.case.id if row.case else None,
        "variant": row.variant,
        "path": _path(corpus, row.case) if row.case else None,
        "semantics": row.semantics,
        "semantics_at_proposal": row.semantics_on(proposal_date()),
        "semantics_since": str(change["since"]) if change else None,
        "proposal_category": row.category,
        "corrections": len(corrections),
        "corrected": sorted({str(c.get("affects", "unspecified")) for c in corrections}),
        "in_proposal_order": row.in_proposal_order,
    }


def _totals(corpus: Corpus, rows: Sequence[Row], apis: Sequence[str]) -> dict[str, Any]:
    known = [r for r in rows if r.case]
    listed = set(_distinct(known))
    held = [corpus.wire_types[i] for i in sorted(listed)]
    date = proposal_date()

    def forms(ids: Iterable[str]) -> int:
        return sum(len(_forms(corpus.wire_types[i])) for i in ids)

    def counts(subset: Sequence[Row]) -> dict[str, int]:
        ids = _distinct(subset)
        return {"rows": len(subset), "wire_types": len(ids), "forms": forms(ids)}

    tables = {t["key"]: counts([r for r in known if r.table == t["key"]]) for t in proposal_data()["tables"]}
    by_semantics = []
    for semantics in vocabulary("semantics"):
        # A wire type has one semantics (its case's); a row may differ from it (a variant's own form).
        spec_ids = [c.id for c in held if c.semantics == semantics]
        corpus_ids = [c.id for c in corpus.wire_types.values() if c.semantics == semantics]
        by_semantics.append(
            {
                "semantics": semantics,
                "proposal_rows": sum(r.category == semantics for r in known),
                "proposal_wire_types": len(_distinct(r for r in known if r.category == semantics)),
                "rows_at_proposal": sum(r.semantics_on(date) == semantics for r in known),
                "rows": sum(r.semantics == semantics for r in known),
                "wire_types": len(spec_ids),
                "forms": forms(spec_ids),
                "corpus_wire_types": len(corpus_ids),
                "corpus_forms": forms(corpus_ids),
            }
        )
    same_apis = [c.id for c in corpus.wire_types.values() if c.api in apis]
    return {
        "tables": tables,
        "proposal": counts(known),
        "rows_without_case": sum(r.case is None for r in rows),
        "by_semantics": by_semantics,
        "proposal_apis": list(apis),
        "same_apis": {"wire_types": len(same_apis), "forms": forms(same_apis)},
        "corpus": {
            "wire_types": len(corpus.wire_types),
            "forms": forms(corpus.wire_types),
            "beyond_proposal": len(set(corpus.wire_types) - listed),
        },
    }


def _step(label: str, count: int, change: int | None = None, rows: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    return {"label": label, "count": count, "change": change, "rows": list(rows)}


def _repeats(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Rows that name a wire type an earlier row already named."""
    first: dict[str, str] = {}
    repeats = []
    for row in rows:
        if row.case and row.case.id in first:
            repeats.append(_ref(row, f"the same wire type as {first[row.case.id]}, in one case"))
        elif row.case:
            first[row.case.id] = row.wire_type
    return repeats


def _unit(claim: Mapping[str, Any]) -> str:
    """What a figure counts: rows of the tables (the default), wire types, or forms (with variants)."""
    return "forms" if claim.get("variants") else str(claim.get("unit", "rows"))


UNITS = {"rows": "rows", "wire-types": "wire types", "forms": "wire types and variants"}
SINGULAR = {"rows": "row", "wire types": "wire type", "wire types and variants": "wire type or variant"}


def counted(number: int, unit: str) -> str:
    return f"{number} {SINGULAR[unit] if number == 1 else unit}"


def _measure(corpus: Corpus, rows: Sequence[Row], unit: str) -> int:
    if unit == "rows":
        return len(rows)
    cases = [corpus.wire_types[i] for i in _distinct(rows)]
    return len(cases) if unit == "wire-types" else sum(len(_forms(c)) for c in cases)


def _bridge(
    corpus: Corpus, listed: Sequence[Row], spec: Sequence[Row], wanted: set[str], figure: int, unit: str
) -> list[dict[str, Any]]:
    """Step by step from the proposal's figure to the true one, naming the rows behind each step."""
    date = proposal_date()
    gap = len(listed) - figure
    note = f"; no row accounts for the difference of {abs(gap)}" if gap else ""
    steps = [
        _step("the proposal's figure", figure),
        _step(f"rows the proposal's own tables put here{note}", len(listed), gap or None),
    ]
    count = len(listed)
    moves = [
        (
            "rows the spec of its date puts elsewhere",
            -1,
            [_moved(r) for r in listed if r.semantics_on(date) not in wanted],
        ),
        (
            "rows the proposal files elsewhere that the spec of its date puts here",
            1,
            [_moved(r) for r in spec if r.category not in wanted],
        ),
    ]
    if unit != "rows":
        moves.append(("rows that name a wire type already counted", -1, _repeats(spec)))
    for label, sign, refs in moves:
        if refs:
            count += sign * len(refs)
            steps.append(_step(label, count, sign * len(refs), refs))
    if unit == "forms":
        cases = [corpus.wire_types[i] for i in _distinct(spec)]
        refs = [
            {"case": c.id, "wire_type": c.name, "detail": ", ".join(n for n in _forms(c) if n != c.name)}
            for c in cases
            if len(_forms(c)) > 1
        ]
        total = sum(len(_forms(c)) for c in cases)
        steps.append(_step("variants the cases record for those wire types", total, total - count, refs))
    return steps


def _readings(
    corpus: Corpus, claim: Mapping[str, Any], listed: Sequence[Row], spec: Sequence[Row], never: Sequence[WireType]
) -> list[tuple[str, str, int]]:
    """(kind, what, value): every count the figure could mean, and the arithmetic it could come from."""
    figures = {c["key"]: int(c["figure"]) for c in proposal_data()["claims"]}
    cases = [corpus.wire_types[i] for i in _distinct(spec)]
    readings = [
        ("table", "rows the proposal's own tables put here", len(listed)),
        ("table", "wire types those rows name", len(_distinct(listed))),
        ("spec", "rows, by the spec of the proposal's date", len(spec)),
        ("spec", "wire types, by the spec of the proposal's date", len(cases)),
    ]
    if claim.get("variants"):
        resource_or_param = sum(n.endswith(("Resource", "ItemParam")) for c in cases for n in _forms(c))
        readings += [
            ("spec", "those wire types with their variants", sum(len(_forms(c)) for c in cases)),
            (
                "spec",
                "those wire types with only their *Resource and *ItemParam variants",
                len(cases) + resource_or_param,
            ),
        ]
    readings.append(
        ("corpus", f"with the {len(never)} wire types of the same APIs the tables omit", len(cases) + len(never))
    )
    if claim.get("sum_of"):
        terms = [figures[k] for k in claim["sum_of"]]
        readings.append(("arithmetic", "the proposal's own addends, " + " + ".join(map(str, terms)), sum(terms)))
    if claim.get("difference_of"):
        a, b = (figures[k] for k in claim["difference_of"])
        readings.append(("arithmetic", f"the proposal's own figures, {a} - {b}", a - b))
    return readings


def _verdict(
    figure: int, actual: str, listed: Sequence[Row], readings: Sequence[tuple[str, str, int]]
) -> tuple[str, str]:
    matching = [(kind, what) for kind, what, value in readings if value == figure]
    kinds = {kind for kind, _ in matching}
    truth = f"By the spec of the proposal's date, the cases give {actual}."
    if "table" in kinds:
        what = next(what for kind, what in matching if kind == "table")
        return "counts-own-tables", f"Counts the {what} ({figure}). {truth}"
    if matching:
        what = matching[0][1]
        verdict = "arithmetic" if kinds == {"arithmetic"} else "other-reading"
        return verdict, (
            f"Not a count of the proposal's tables, which put {len(listed)} rows here, but {what} = {figure}. {truth}"
        )
    sums = [f"; {what}, make {value}" for kind, what, value in readings if kind == "arithmetic"]
    return "irreconcilable", (
        f"Cannot be reconciled with any reading of the proposal's own tables: they put {len(listed)} rows "
        f"({len(_distinct(listed))} wire types) here{''.join(sums)}. {truth}"
    )


def _claim(corpus: Corpus, rows: Sequence[Row], apis: Sequence[str], claim: Mapping[str, Any]) -> dict[str, Any]:
    """One figure of the proposal against the spec of its date, and what changed since."""
    wanted, figure, unit, date = set(claim["semantics"]), int(claim["figure"]), _unit(claim), proposal_date()
    known = [r for r in rows if r.case]
    listed = [r for r in known if r.category in wanted]
    spec = [r for r in known if r.semantics_on(date) in wanted]
    today = [r for r in known if r.semantics in wanted]
    named = set(_distinct(known))
    never = sorted(
        (c for c in corpus.wire_types.values() if c.api in apis and c.id not in named and c.semantics in wanted),
        key=lambda c: c.id,
    )
    steps = _bridge(corpus, listed, spec, wanted, figure, unit)
    actual, actual_today = _measure(corpus, spec, unit), _measure(corpus, today, unit)
    readings = _readings(corpus, claim, listed, spec, never)
    if figure == actual:
        verdict, text = (
            "holds",
            f"Holds: by the spec of the proposal's date the cases give {counted(actual, UNITS[unit])} too.",
        )
    else:
        verdict, text = _verdict(figure, counted(actual, UNITS[unit]), listed, readings)
    later = [_later(r) for r in known if r.change_after(date) and ((r in spec) != (r in today))]
    if later:
        text += f" The spec has changed since: by today's, {counted(actual_today, UNITS[unit])}."
    return {
        "key": claim["key"],
        "quote": claim["quote"],
        "figure": figure,
        "semantics": sorted(wanted),
        "unit": UNITS[unit],
        "actual": actual,
        "actual_rows": len(spec),
        "actual_today": actual_today,
        "verdict": verdict,
        "explanation": text,
        "readings": [
            {"kind": kind, "label": what, "value": value, "matches": value == figure} for kind, what, value in readings
        ],
        "steps": steps,
        "since": later,
        "not_listed": [{"case": c.id, "semantics": c.semantics} for c in never],
    }


def _corrections(corpus: Corpus, rows: Sequence[Row]) -> list[dict[str, Any]]:
    first: dict[str, int] = {}
    for i, row in enumerate(rows):
        if row.case:
            first.setdefault(row.case.id, i)
    cases = sorted(corpus.wire_types.values(), key=lambda c: (c.id not in first, first.get(c.id, 0), c.id))
    return [
        {
            "case": case.id,
            "path": _path(corpus, case),
            "proposal_row": case.id in first,
            "topic": c["topic"],
            "affects": c.get("affects"),
            "since": str(c["since"]) if c.get("since") else None,
            "was": c.get("was"),
            "claim": c["claim"],
            "finding": c["finding"],
            "sources": [dict(s) for s in c["sources"]],
        }
        for case in cases
        for c in case.data.get("corrections", ())
    ]


def _beyond(corpus: Corpus, rows: Sequence[Row]) -> list[dict[str, Any]]:
    listed = set(_distinct(rows))
    rest = sorted((c for c in corpus.wire_types.values() if c.id not in listed), key=lambda c: c.id)
    return [
        {
            "api": api,
            "wire_types": [
                {
                    "case": c.id,
                    "path": _path(corpus, c),
                    "name": c.name,
                    "role": c.role,
                    "family": c.family,
                    "semantics": c.semantics,
                    "variants": [n for n in _forms(c) if n != c.name],
                    "description": c.data["description"],
                }
                for c in rest
                if c.api == api
            ],
        }
        for api in sorted({c.api for c in rest})
    ]


def build_document(corpus: Corpus) -> dict[str, Any]:
    """The report as plain, JSON-serialisable data."""
    data = proposal_data()
    rows = proposal_rows(corpus)
    apis = sorted({r.case.api for r in rows if r.case})
    return {
        "format": FORMAT,
        "version": VERSION,
        "generated_by": COMMAND,
        # Only the wire-type cases feed this report: scenarios and cassettes may change freely.
        "wire_types_revision": content_revision([root / "wire-types" for root in corpus.case_roots]),
        "proposal": dict(data["source"]),
        "tables": [
            {
                "key": t["key"],
                "title": t["title"],
                "quote": t["quote"],
                "rows": [_row(corpus, r) for r in rows if r.table == t["key"]],
            }
            for t in data["tables"]
        ],
        "totals": _totals(corpus, rows, apis),
        "reconciliation": [_claim(corpus, rows, apis, c) for c in data["claims"]],
        "corrections": _corrections(corpus, rows),
        "beyond_proposal": _beyond(corpus, rows),
    }


# Markdown
