"""Every file of the matrix report, rendered, written, or checked against what is on disk.

The report is `matrix.md`, `matrix.json`, `matrix.html` and one badge per adapter under `badges/`. A
badge on disk that the report no longer has is stale too, if the report wrote it: writing removes it,
checking names it. What the report wrote is what the `matrix.json` already there lists; any other
file under `badges/` is someone else's, and left alone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conformance.recordings.bounds import BoundsError, parse_json, read_file
from conformance.reports.matrix import BADGE_DIR, HTML_FILE, JSON_FILE, MARKDOWN_FILE
from conformance.reports.matrix.badges import adapter_badge
from conformance.reports.matrix.render_html import render_html
from conformance.reports.matrix.render_md import render_markdown


def render_json(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def badges(doc: Mapping[str, Any]) -> dict[str, str]:
    """Relative path -> SVG, for every column that has a badge."""
    return {
        str(c["badge"]): adapter_badge(c["counts"], c["summary"], len(c["apis"]), (c.get("failure") or {}).get("stage"))
        for group in doc["groups"]
        for c in group["columns"]
        if c["badge"]
    }


def render_files(doc: Mapping[str, Any]) -> dict[str, str]:
    """Relative path (POSIX) -> content, for every file of the report."""
    return {
        MARKDOWN_FILE: render_markdown(doc),
        JSON_FILE: render_json(doc),
        HTML_FILE: render_html(doc),
        **badges(doc),
    }


def _written_before(directory: Path) -> set[str]:
    """The badges the report already in `directory` lists (relative POSIX paths under BADGE_DIR)."""
    try:
        doc = parse_json(read_file(directory / JSON_FILE), JSON_FILE)
        columns = [c for group in doc["groups"] for c in group["columns"]]
        named = {c["badge"] for c in columns if isinstance(c, dict) and isinstance(c.get("badge"), str)}
    except (BoundsError, KeyError, TypeError):
        return set()  # no report there, or not one this command wrote: nothing of it is known to be ours
    return {name for name in named if Path(name).parent.as_posix() == BADGE_DIR and name.endswith(".svg")}


def _leftovers(directory: Path, rendered: Mapping[str, str]) -> list[Path]:
    """Badges on disk that the report wrote before and no longer has."""
    folder = directory / BADGE_DIR
    if not folder.is_dir():
        return []
    ours = _written_before(directory)
    return sorted(
        p
        for p in folder.glob("*.svg")
        if p.relative_to(directory).as_posix() in ours - rendered.keys() and p.is_file() and not p.is_symlink()
    )


def stale_files(directory: Path, rendered: Mapping[str, str]) -> list[tuple[Path, str]]:
    """(path, why) for each file that is missing, differs, or should not be there."""
    stale = []
    for name, text in sorted(rendered.items()):
        path = directory / name
        if not path.is_file():
            stale.append((path, "missing from"))
        elif path.read_bytes() != text.encode("utf-8"):
            stale.append((path, "differs from"))
    stale += [(path, "not part of") for path in _leftovers(directory, rendered)]
    return stale


def write_files(directory: Path, rendered: Mapping[str, str]) -> tuple[list[Path], list[Path]]:
    """Write every file (only those whose bytes change), remove leftover badges: (written, removed)."""
    removed = _leftovers(directory, rendered)  # read from the report on disk before it is rewritten
    written = []
    for name, text in sorted(rendered.items()):
        path = directory / name
        data = text.encode("utf-8")
        if path.is_file() and path.read_bytes() == data:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    for path in removed:
        path.unlink()
    return written, removed
