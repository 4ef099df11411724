"""Where CI requires the frameworks, a framework test whose module is missing fails instead of
skipping (tests/frameworks.py)."""

from __future__ import annotations

import frameworks
import pytest


def test_a_missing_framework_is_a_skip_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(frameworks, "REQUIRED", False)
    with pytest.raises(pytest.skip.Exception, match="the adapter drives it"):
        frameworks.importorskip("conformance_no_such_framework", reason="the adapter drives it")


def test_a_missing_framework_fails_where_frameworks_are_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(frameworks, "REQUIRED", True)
    with pytest.raises(pytest.fail.Exception, match="CONFORMANCE_REQUIRE_FRAMEWORKS=1 but conformance_no_such"):
        frameworks.importorskip("conformance_no_such_framework")


@pytest.mark.parametrize("required", [False, True])
def test_an_installed_module_is_imported_either_way(monkeypatch: pytest.MonkeyPatch, required: bool) -> None:
    monkeypatch.setattr(frameworks, "REQUIRED", required)
    assert frameworks.importorskip("json").dumps([]) == "[]"
