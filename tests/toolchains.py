"""Harnesses in other languages as the tests drive them: a toolchain or an install may be missing.

A harness test module asks for what it needs with `require`. Where the toolchain (go, mvn, cargo,
node) or the harness's build is missing, the module is skipped with the command that installs it as
the reason. CI sets CONFORMANCE_REQUIRE_HARNESSES=1 after building every harness: there a missing
toolchain or build is a failure, so the harness tests cannot go green by skipping.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REQUIRED = os.environ.get("CONFORMANCE_REQUIRE_HARNESSES") == "1"


def require(tool: str, built: Path | None = None, install: str = "") -> None:
    """Skip the calling module (or fail it, where CI requires harnesses) unless `tool` is on PATH
    and `built` (a file or directory the harness's install makes) exists."""
    missing = ""
    if shutil.which(tool) is None:
        missing = f"{tool} is not on PATH"
    elif built is not None and not built.exists():
        missing = f"the harness is not built ({built.name} is missing): {install}"
    if not missing:
        return
    if REQUIRED:
        pytest.fail(f"CONFORMANCE_REQUIRE_HARNESSES=1 but {missing}", pytrace=False)
    pytest.skip(missing, allow_module_level=True)
