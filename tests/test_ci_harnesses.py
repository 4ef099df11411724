"""Which harnesses a CI run builds (scripts/harnesses.py, harnesses/units.yaml): the changed units
always, then the sample within the budget; and a manifest that leaves no harness or test module out."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import ROOT


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("harness_plan", ROOT / "scripts" / "harnesses.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


H = _script()

MANIFEST = """
sample: [small-go, small-rust]
budget_minutes: 10
units:
  node-one:
    toolchain: node
    paths: [h/node-one]
    install: ["true"]
    tests: []
    cold_minutes: 3
  small-go:
    toolchain: go
    paths: [h/go-kit]
    install: ["true"]
    tests: []
    cold_minutes: 4
  small-rust:
    toolchain: cargo
    paths: [h/rust-kit]
    install: ["true"]
    tests: []
    cold_minutes: 5
  big-rust:
    toolchain: cargo
    paths: [h/rust-libs]
    install: ["true"]
    tests: []
    cold_minutes: 40
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    for name in ("node-one", "go-kit", "rust-kit", "rust-libs"):
        (tmp_path / "h" / name).mkdir(parents=True)
        (tmp_path / "h" / name / "lock").write_text(name)
    (tmp_path / "units.yaml").write_text(MANIFEST)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", "."], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "units"], cwd=tmp_path, check=True)
    return tmp_path


def _stamped(repo: Path, manifest: object) -> dict[str, str]:
    return {name: H.fingerprint(unit, repo) for name, unit in manifest.units.items()}  # type: ignore[attr-defined]


def _plan(repo: Path, stamps: dict[str, str]) -> dict[str, tuple[bool, str]]:
    manifest = H.load_manifest(repo / "units.yaml")
    return {p.unit.name: (p.built, p.reason) for p in H.plan(manifest, stamps, root=repo)}


def test_nothing_changed_builds_the_sample_alone(repo: Path) -> None:
    stamps = _stamped(repo, H.load_manifest(repo / "units.yaml"))
    planned = _plan(repo, stamps)
    assert {name for name, (built, _) in planned.items() if built} == {"small-go", "small-rust"}
    assert planned["big-rust"] == (False, "unchanged since verified")


def test_a_changed_file_builds_its_unit_and_the_sample_fills_what_budget_is_left(repo: Path) -> None:
    stamps = _stamped(repo, H.load_manifest(repo / "units.yaml"))
    (repo / "h" / "node-one" / "lock").write_text("a new pin")  # uncommitted: the work tree counts
    planned = _plan(repo, stamps)
    assert planned["node-one"] == (True, "changed since verified")
    # 3 (changed) + 4 (sample) fit in 10 minutes; the next sample unit's 5 do not.
    assert planned["small-go"] == (True, "sample")
    assert planned["small-rust"] == (False, "sample, over the budget")


def test_a_changed_unit_past_the_budget_is_built_and_the_plan_says_so(repo: Path) -> None:
    manifest = H.load_manifest(repo / "units.yaml")
    stamps = _stamped(repo, manifest)
    (repo / "h" / "rust-libs" / "new.rs").write_text("fn main() {}")
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    planned = H.plan(manifest, stamps, root=repo)
    assert [p.unit.name for p in planned if p.built] == ["big-rust"]
    text = H.render(planned, manifest)
    assert "cold-cache estimate 40 min of a 10 min budget" in text and "over the budget" in text


def test_a_unit_never_verified_is_built(repo: Path) -> None:
    planned = _plan(repo, {})
    assert all(built for built, _ in planned.values())


def test_every_harness_and_harness_test_module_belongs_to_a_unit() -> None:
    """A harness or test module no unit names would never be built or required in CI."""
    manifest = H.load_manifest()
    covered = {path for unit in manifest.units.values() for path in unit.paths}
    tested = {test for unit in manifest.units.values() for test in unit.tests}
    for unit in manifest.units.values():
        for path in (*unit.paths, *unit.tests):
            assert (ROOT / path).exists(), f"harnesses/units.yaml: {unit.name} names {path}, which does not exist"
    harness_dirs = {
        str(lock.parent.relative_to(ROOT))
        for pattern in ("*/package-lock.json", "go/*/go.mod", "java/pom.xml", "rust/Cargo.lock")
        for lock in (ROOT / "harnesses").glob(pattern)
    }
    assert not {d for d in harness_dirs if d not in covered and not d.startswith("harnesses/node-kit")}
    modules = {
        f"tests/{m.name}"
        for m in (ROOT / "tests").glob("test_harness_*.py")
        if re.search(r"\bunit=\"", m.read_text(encoding="utf-8")) or "installed(" in m.read_text(encoding="utf-8")
    }
    assert modules and modules <= tested, sorted(modules - tested)
    # Every group of the matrix's fan-out that builds a harness is built by some unit in CI too.
    groups = json.loads((ROOT / "scripts" / "columns.json").read_text(encoding="utf-8"))["groups"]
    builds = {command for unit in manifest.units.values() for command in unit.install}
    unbuilt = [g for g, group in groups.items() if group["toolchain"] != "python" and group["build"] not in builds]
    assert not unbuilt, unbuilt


def test_the_committed_stamps_name_units_of_the_manifest() -> None:
    assert set(H.verified()) <= set(H.load_manifest().units)


def _toolchains(monkeypatch: pytest.MonkeyPatch, asked: str) -> ModuleType:
    monkeypatch.setenv("CONFORMANCE_REQUIRE_HARNESSES", asked)
    sys.modules.pop("toolchains", None)
    import toolchains

    return toolchains


def test_a_listed_unit_that_is_not_built_fails_and_an_unlisted_one_skips(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    toolchains = _toolchains(monkeypatch, "rust-kit,anthropic-sdk")
    try:
        with pytest.raises(pytest.fail.Exception, match="names rust-kit but the harness is not built"):
            toolchains.require("python3", tmp_path / "absent", "build it", unit="rust-kit")
        # Built or not, a unit the run did not build is skipped: an old build would test other sources.
        with pytest.raises(pytest.skip.Exception, match="java is not among the harnesses this run built"):
            toolchains.require("python3", tmp_path, "build it", unit="java")
        with pytest.raises(pytest.fail.Exception):  # a tool of no unit is required wherever any unit is
            toolchains.require("no-such-tool-here", unit=None)
        toolchains.require("python3", tmp_path, "build it", unit="anthropic-sdk")  # built: runs
    finally:
        sys.modules.pop("toolchains", None)


def test_without_a_list_a_missing_build_skips(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    toolchains = _toolchains(monkeypatch, "")
    try:
        with pytest.raises(pytest.skip.Exception, match="build it"):
            toolchains.require("python3", tmp_path / "absent", "build it", unit="rust-kit")
    finally:
        sys.modules.pop("toolchains", None)
