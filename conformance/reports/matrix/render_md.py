"""The matrix as Markdown: summaries, outcome counts, rollups, then the cases by API and wire type.

Each case table is followed by a note for every cell that is not a plain pass: the skip's reason, the
expected failure's link, the failure's summary. Violations and diffs are in `matrix.html` and
`matrix.json`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from conformance.engine.outcomes import FAILING, OUTCOMES
from conformance.reports.matrix import HTML_FILE, JSON_FILE
from conformance.reports.matrix.layout import NOT_RUN


def md_cell(value: Any) -> str:
    """Text from a results file (an adapter's name, a failure's summary) as one table cell: on one line,
    its Markdown escaped, and no HTML (a renderer that passes HTML through would run `<img onerror>`)."""
    if value is None:
        return ""
    text = " ".join(str(value).split()).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    for special in ("\\", "|", "*"):
        text = text.replace(special, "\\" + special)
    return text.replace("](", "\\](")  # no inline link or image: `[text](url)` needs an unescaped `](`


def _alt(value: Any) -> str:
    """A cell's text as an image's alternative text, which a `]` would end."""
    return md_cell(value).replace("[", "\\[").replace("]", "\\]")


def _fenced(lines: Sequence[str]) -> list[str]:
    """Lines in a code block whose fence no line of theirs can close (a name holding three backticks)."""
    longest = max((len(run) for line in lines for run in re.findall("`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}text", *lines, fence]


def _table(header: Sequence[str], body: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return [*lines, ""]


def tally_text(counts: Mapping[str, int] | None) -> str:
    """`11/12, 1 fail, 3 skip`: passes over the cases run, as the grid counts them (skips and cases not run
    left out), then every other outcome that occurred; empty when there are none."""
    if not counts or not counts.get("total"):
        return ""
    ran = counts["total"] - sum(counts.get(o, 0) for o in NOT_RUN)
    others = [f"{counts[o]} {o}" for o in OUTCOMES if o != "pass" and counts.get(o)]
    return ", ".join([f"{counts.get('pass', 0)}/{ran}", *others] if ran else others)


def outcome_text(cell: Mapping[str, Any] | None) -> str:
    if cell is None:
        return "—"
    outcome = str(cell["outcome"])
    text = f"**{outcome}**" if outcome in FAILING else outcome
    warnings = sum(v.get("severity") == "warning" for v in cell.get("violations", ()))
    return text + (f" ({warnings} warning{'s' if warnings > 1 else ''})" if warnings and outcome == "pass" else "")


def _note(case_id: str, label: str, cell: Mapping[str, Any]) -> str | None:
    if cell["outcome"] == "pass" and not cell.get("violations"):
        return None
    parts = [md_cell(cell["summary"])] if cell.get("summary") else []
    if cell["outcome"] == "pass":
        parts.append("warnings: " + ", ".join(sorted({str(v["code"]) for v in cell["violations"]})))
    if cell.get("link"):
        parts.append(f"<{cell['link']}>")
    detail = f": {'; '.join(parts)}" if parts else ""
    return f"- `{case_id}` · {md_cell(label)}: {outcome_text(cell)}{detail}"


def grid_text(cell: Mapping[str, Any] | None) -> str:
    """A grid cell: a coloured square for the pass share (all, half or more, less), the share, fails, errors."""
    if cell is None:
        return "·"
    if cell.get("failed"):
        return f"⛔ {cell['failed']} failed"
    if cell["percent"] is None:
        return "skip"
    mark = "🟩" if cell["percent"] == 100 else "🟨" if cell["percent"] >= 50 else "🟥"
    counts = " ".join(f"{cell[o]}{o[0]}" for o in ("fail", "error") if cell[o])
    return f"{mark} {cell['percent']}%" + (f" · {counts}" if counts else "")


def _grid(group: Mapping[str, Any]) -> list[str]:
    """The grid with a row per column (a library version) and a column per API: it reads on a narrow page."""
    labels = {c["key"]: c for c in group["columns"]}
    rows = {r["api"]: r["cells"] for r in group["grid"]}
    apis = [r["api"] for r in group["grid"]]
    out: list[str] = []
    for kinds, title in (
        (("reference", "adapter"), "Reference and libraries, by language"),
        (("reproduction",), "Bug reproductions"),
    ):
        body = []
        for section in group["sections"]:
            if section["kind"] not in kinds:
                continue
            for library in section["libraries"]:
                for k in library["columns"]:
                    name = labels[k]["name"] if section["kind"] == "reproduction" else labels[k]["label"]
                    body.append([md_cell(section["title"]), md_cell(name), *(grid_text(rows[a].get(k)) for a in apis)])
        if body:
            out += [f"**{title}**", ""]
            out += _table(["", "library", *apis], body)
    return out


def _versions(group: Mapping[str, Any], h: str) -> list[str]:
    out: list[str] = []
    for v in group["versions"]:
        differ = [r for r in v["cases"] if r["differs"]]
        out += [
            f"{h}# {v['library']} ({v['language']})",
            "",
            f"The outcome of {v['differ']} of {len(v['cases'])} cases changes between versions; the "
            f"{len(v['cases']) - v['differ']} where every version agrees are left out.",
            "",
        ]
        if differ:
            out += _table(
                ["case", "API", *(md_cell(x) for x in v["versions"])],
                [
                    [
                        f"`{r['id']}`",
                        r["api"],
                        *(
                            outcome_text({"outcome": r["outcomes"][k]}) if r["outcomes"][k] else "—"
                            for k in v["columns"]
                        ),
                    ]
                    for r in differ
                ],
            )
    return out


def percent(value: int | None) -> str:
    return "—" if value is None else f"{value}%"


COVERAGE_INTRO = (
    "Per column, the cases of the APIs it serves and how many it judged (any outcome but skip, not-run and "
    "crash): its coverage, beside the share of the cases run that pass. Then the cases it skipped, grouped by "
    "reason."
)


def _coverage(columns: Sequence[Mapping[str, Any]], h: str) -> list[str]:
    out = [f"{h} Coverage", "", COVERAGE_INTRO, ""]
    out += _table(
        ["adapter", "APIs", "cases", "judged", "coverage", "pass share", "skipped"],
        [
            [
                md_cell(c["label"]),
                str(len(c["apis"])),
                str(c["coverage"]["cases"]),
                str(c["coverage"]["judged"]),
                percent(c["coverage"]["percent"]),
                percent(c["coverage"]["pass_percent"]),
                str(c["counts"]["skip"]),
            ]
            for c in columns
        ],
    )
    for c in columns:
        if not c["skips"]:
            continue
        skipped = c["counts"]["skip"]
        out += [f"<details><summary>{md_cell(c['label'])}: {skipped} skipped, by reason</summary>", ""]
        out += _table(["cases", "reason"], [[str(s["cases"]), md_cell(s["reason"])] for s in c["skips"]])
        out += ["</details>", ""]
    return out


def _group(group: Mapping[str, Any], level: int) -> list[str]:
    h = "#" * level
    columns = group["columns"]
    labels = {c["key"]: c["label"] for c in columns}
    out = [
        f"{h} API by library",
        "",
        "Per library version (a row) and API (a column): the share of the cases run that pass, then fails (f) "
        "and errors (e). 🟩 all pass, 🟨 half or more, 🟥 less than half, · the adapter does not serve the API.",
        "",
        *_grid(group),
    ]
    if group["versions"]:
        out += [
            f"{h} Versions side by side",
            "",
            "Per library with several versions, oldest first: the cases whose outcome changes between versions.",
            "",
            *_versions(group, h),
        ]
    out += [f"{h} Summary", "", *_fenced([c["summary"] for c in columns]), ""]
    out += _coverage(columns, h)
    for c in columns:
        if "failure" in c:
            # the end of the failing step's log, so that the cause is read here, not dug out of a CI run;
            # fenced so that no line of the log can close it
            out += [f"{md_cell(c['label'])}: {c['failure']['stage']} failed; the end of its log:", ""]
            out += [*_fenced(c["failure"]["log"].splitlines()), ""]
    out += [
        f"{h} Outcomes",
        "",
        "Every outcome of every column, zeros included, over the cases of the APIs the adapter serves. "
        "Absent: cases of those APIs that its results do not hold. Not served: cases of other APIs in its "
        "results, counted nowhere.",
        "",
    ]
    out += _table(
        ["adapter", "version", "kind", "source", "APIs", *OUTCOMES, "total", "absent", "not served", "badge"],
        [
            [
                md_cell(c["label"])
                + (f" ({c['failure']['stage']} failed)" if "failure" in c else "")
                + ("" if c["complete"] or "failure" in c else " (incomplete run)"),
                md_cell(c["version"]),
                c["kind"],
                md_cell(c["source"]),
                ", ".join(c["apis"]) if len(c["apis"]) <= 2 else str(len(c["apis"])),
                *(str(c["counts"][o]) for o in OUTCOMES),
                str(c["counts"]["total"]),
                str(c["absent"]),
                str(sum(n["cases"] for n in c["not_served"])),
                f"![{_alt(c['label'])}]({c['badge']})" if c["badge"] else "",
            ]
            for c in columns
        ],
    )
    for title, key, intro in (
        (
            "By ID semantics",
            "semantics",
            "Each case counts under the semantics of every wire type it exercises. A cell is passes over "
            "cases, then the other outcomes.",
        ),
        ("By feature", "features", "Each case counts under every feature it has."),
        (
            "Recorded and constructed",
            "provenance",
            "Recorded cases replay real traffic from public test suites; constructed ones are built from the "
            "providers' published shapes.",
        ),
    ):
        rollup = group["rollups"].get(key, [])
        out += [f"{h} {title}", "", intro, ""]
        out += _table(
            ["adapter", *(f"{r['key']} ({r['cases']})" for r in rollup)],
            [[md_cell(c["label"]), *(tally_text(r["counts"].get(c["key"])) for r in rollup)] for c in columns],
        )
    out += [
        f"{h} Cases by API and wire type",
        "",
        "Per API, the columns that ran its cases; cases are grouped under the first wire type of their own "
        "API, whose row sums the group. — marks a case the column's results do not hold.",
        "",
    ]
    for api in group["apis"]:
        keys = api["columns"]
        cases = sum(len(w["cases"]) for w in api["wire_types"])
        out += [f"{h}# {api['api']} ({cases} case{'s' if cases != 1 else ''})", ""]
        body = [["all", *(tally_text(api["counts"][k]) for k in keys)]]
        notes: list[str] = []
        for wire in api["wire_types"]:
            name = f"`{wire['wire_type']}`" + (f" ({wire['semantics']})" if wire["semantics"] else "")
            body.append([f"**{name}**", *(tally_text(wire["counts"][k]) for k in keys)])
            for case in wire["cases"]:
                recorded = " (recorded)" if case.get("provenance") == "recorded" else ""
                body.append([f"`{case['id']}`{recorded}", *(outcome_text(case["cells"][k]) for k in keys)])
                notes += [
                    note
                    for k in keys
                    if case["cells"][k] is not None
                    for note in [_note(case["id"], labels[k], case["cells"][k])]
                    if note
                ]
        out += _table(["case", *(md_cell(labels[k]) for k in keys)], body)
        if notes:
            out += [*notes, ""]
    return out


def render_markdown(doc: Mapping[str, Any]) -> str:
    groups = doc["groups"]
    out = [
        "# Compatibility matrix",
        "",
        f"Generated by `{doc['generated_by']}` from {doc['inputs']}. Do not edit: regenerate. `{JSON_FILE}` "
        f"holds the same data; [{HTML_FILE}]({HTML_FILE}) shows each cell's violations and diff.",
        "",
        f"Results stand side by side only when they ran against the same corpus revision; this corpus is "
        f"`{doc['corpus_revision']}`.",
        "",
    ]
    if not groups:
        return "\n".join([*out, "No results.", ""])
    first, rest = groups[0], groups[1:]
    if not first["current"]:
        out += [
            f"No results ran against this corpus. The revision most of them ran against, `{first['corpus_revision']}`, "
            "comes first; wire types and features are those this corpus records for the same case ids.",
            "",
        ]
    if rest:
        out += [
            f"Results against {len(rest)} other revision{'s' if len(rest) > 1 else ''} are shown apart, under "
            "Other corpus revisions.",
            "",
        ]
    out += [f"## Corpus `{first['corpus_revision']}`", "", *_group(first, 3)]
    if rest:
        out += [
            "## Other corpus revisions",
            "",
            "Each revision's results on their own; wire types and features are those this corpus records for "
            "the same case ids.",
            "",
        ]
        for group in rest:
            out += [f"### Corpus `{group['corpus_revision']}`", "", *_group(group, 4)]
    return "\n".join(out).rstrip("\n") + "\n"
