"""Python frameworks as the tests drive them: each is an optional extra, and some only install in an
environment of their own (README), so a framework's test module imports it through `importorskip`.

Where the framework (or a provider module of it) is missing, the module or test is skipped, as with
pytest's own `importorskip`. CI installs every framework, in three environments whose pins agree,
and sets CONFORMANCE_REQUIRE_FRAMEWORKS=1: there a module that cannot be imported is a failure, so
the framework tests cannot go green by skipping.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

REQUIRED = os.environ.get("CONFORMANCE_REQUIRE_FRAMEWORKS") == "1"


def importorskip(module: str, reason: str | None = None) -> ModuleType:
    """`module`, imported; skipped without it (failed, where CI requires frameworks)."""
    if not REQUIRED:
        return pytest.importorskip(module, reason=reason)
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        pytest.fail(f"CONFORMANCE_REQUIRE_FRAMEWORKS=1 but {module} cannot be imported: {exc}", pytrace=False)
