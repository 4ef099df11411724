"""Where the bundled corpus lives: inside the wheel, or at the top of a source checkout."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # the conformance package


@cache
def bundled_root() -> Path:
    """The directory holding `cases/` and `cassettes/`.

    A wheel carries them as `conformance/_corpus/` (pyproject's force-include); an editable
    install or a source checkout has them beside the package.
    """
    shipped = _PACKAGE / "_corpus"
    if (shipped / "cases").is_dir():
        return shipped
    return _PACKAGE.parent


def shipped_root() -> Path | None:
    """The corpus directory inside an installed wheel; None in a source checkout, where it can change."""
    root = bundled_root()
    return root if root.name == "_corpus" else None


def shipped_cases() -> Path | None:
    """The corpus's cases inside an installed wheel; None in a source checkout."""
    root = shipped_root()
    return root / "cases" if root is not None else None


def bundled_cases() -> Path:
    return bundled_root() / "cases"


def bundled_cassettes() -> Path:
    return bundled_root() / "cassettes"


def content_revision(roots: Iterable[Path]) -> str:
    """A digest of every file under the roots: results are comparable only on equal revisions."""
    digest = hashlib.sha256()
    for root in roots:
        if not root.is_dir():
            continue
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return "sha256:" + digest.hexdigest()[:16]
