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

from conformance.engine.outcomes import FAILING
from conformance.reports.matrix.document import slug
from conformance.reports.matrix.render_md import tally_text

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


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.ChainableUndefined,
    )
    env.filters.update(slug=slug, tally=tally_text, failing=_failing, compact=_compact, by_key=_by_key)
    env.tests["web"] = _web
    return env


@cache
def template() -> jinja2.Template:
    text = resources.files("conformance").joinpath("templates").joinpath(TEMPLATE).read_text("utf-8")
    return environment().from_string(text)


def render_html(doc: Mapping[str, Any]) -> str:
    html = template().render(doc=doc, outcomes=doc["outcomes"], legend=LEGEND)
    return html.rstrip("\n") + "\n"
