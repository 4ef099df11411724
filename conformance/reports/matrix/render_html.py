"""The matrix as one self-contained HTML page, from the Jinja2 template shipped in the package.

Inline CSS and a few lines of inline script (a filter for cases with a cell other than pass, opening
or closing every cell, and `#<cell id>` links that open the cell they name); no external resource, so
the page works offline and from a file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from conformance.engine.outcomes import FAILING
from conformance.reports.matrix.document import slug
from conformance.reports.matrix.render_md import percent, tally_text

TEMPLATE = "matrix.html.j2"
LEGEND = (
    ("pass", "no error-level violation"),
    ("fail", "error-level violations, or the replay was not played as recorded"),
    ("skip", "not run, with the reason"),
    ("xfail", "fails as a known bug does, with the bug's link"),
    ("xpass", "expected to fail as a known bug, but passed"),
    ("error", "the adapter raised, or sent something that is not a request of the API"),
    ("crash", "the process running the case died, or the adapter could not run at all"),
    ("timeout", "no answer within the time limit"),
    ("not-run", "the run stopped before the case, or the case was deselected"),
)


def _compact(value: Any) -> str:
    """A value as compact JSON; a field the record leaves out was null."""
    return json.dumps(None if isinstance(value, jinja2.Undefined) else value, ensure_ascii=False, sort_keys=True)


def _failing(counts: Mapping[str, int] | None) -> bool:
    return bool(counts) and any(counts.get(o) for o in FAILING)  # type: ignore[union-attr]


def _web(value: Any) -> bool:
    """Only http(s) addresses become links: a results file is data, not markup."""
    return isinstance(value, str) and value.startswith(("https://", "http://"))


def _by_key(columns: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {str(c["key"]): c for c in columns}


def _column_classes(columns: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Column key -> a short class (`k0`, `k1`...) that every cell of the column carries, for the filters."""
    return {str(c["key"]): f"k{i}" for i, c in enumerate(columns)}


def _meta(group: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """Column class -> the language (the grid section: a language, the reference, the reproductions) and
    library it is filtered by."""
    classes = _column_classes(group["columns"])
    return {
        classes[k]: {"language": str(section["title"]), "library": str(library["library"])}
        for section in group["sections"]
        for library in section["libraries"]
        for k in library["columns"]
    }


def _column_meta(doc: Mapping[str, Any]) -> Markup:
    """Per group (`g1`...), each column's filter values, as JSON safe inside a <script> element."""
    data = {f"g{i}": _meta(group) for i, group in enumerate(doc["groups"], 1)}
    text = json.dumps(data, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def _all_apis(doc: Mapping[str, Any]) -> list[str]:
    seen = dict.fromkeys(a["api"] for group in doc["groups"] for a in group["apis"])
    return list(seen)


def _all_meta(doc: Mapping[str, Any], field: str) -> list[str]:
    """The values of one filter field over every group, in grid order."""
    seen = dict.fromkeys(m[field] for group in doc["groups"] for m in _meta(group).values())
    return list(seen) if field == "language" else sorted(seen)


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.ChainableUndefined,
    )
    env.filters.update(
        slug=slug,
        tally=tally_text,
        percent=percent,
        failing=_failing,
        compact=_compact,
        by_key=_by_key,
        column_classes=_column_classes,
        column_meta=_column_meta,
        all_apis=_all_apis,
        all_meta=_all_meta,
    )
    env.tests["web"] = _web
    return env


@cache
def template() -> jinja2.Template:
    text = resources.files("conformance").joinpath("templates").joinpath(TEMPLATE).read_text("utf-8")
    return environment().from_string(text)


def render_html(doc: Mapping[str, Any]) -> str:
    # `seen`: each cell's detail -> the first cell that holds it, filled while rendering
    html = template().render(doc=doc, outcomes=doc["outcomes"], legend=LEGEND, seen={})
    return html.rstrip("\n") + "\n"
