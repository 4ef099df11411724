"""Harnesses in other languages as the tests drive them: a toolchain or an install may be missing.

A harness test module asks for what it needs with `require`, naming its unit (harnesses/units.yaml).
Where the toolchain (go, mvn, cargo, node) or the harness's build is missing, the module is skipped
with the command that installs it as the reason; the tests never build a harness themselves.

CONFORMANCE_REQUIRE_HARNESSES says which units must run: `1` for every unit, or the comma-separated
units a CI run built (`python scripts/harnesses.py selected`). A required unit whose toolchain or build
is missing fails, so its tests cannot go green by skipping; where a list is given, the units not on it
are skipped even where an older build of them lies about (it would test sources other than these).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

_ASKED = os.environ.get("CONFORMANCE_REQUIRE_HARNESSES", "")
EVERY = _ASKED == "1"
LISTED = frozenset(u for u in _ASKED.split(",") if u) if _ASKED and not EVERY else None


def required(unit: str | None) -> bool:
    """Whether a missing toolchain or build fails the unit's tests; a tool that belongs to no unit
    (node for the kit's own tests, Chromium for the matrix page) is required wherever any unit is."""
    if unit is None:
        return EVERY or LISTED is not None
    return EVERY or (LISTED is not None and unit in LISTED)


def require(tool: str, built: Path | None = None, install: str = "", *, unit: str | None) -> None:
    """Skip the calling module (or fail it, where its unit is required) unless `tool` is on PATH and
    `built` (a file or directory the harness's install makes) exists."""
    if unit is not None and LISTED is not None and unit not in LISTED:
        pytest.skip(
            f"{unit} is not among the harnesses this run built ({', '.join(sorted(LISTED))})", allow_module_level=True
        )
    missing = ""
    if shutil.which(tool) is None:
        missing = f"{tool} is not on PATH"
    elif built is not None and not built.exists():
        missing = f"the harness is not built ({built.name} is missing): {install}"
    if not missing:
        return
    if required(unit):
        pytest.fail(f"CONFORMANCE_REQUIRE_HARNESSES names {unit} but {missing}", pytrace=False)
    pytest.skip(missing, allow_module_level=True)
