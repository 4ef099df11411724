"""scripts/columns.json and scripts/columns.py: the matrix's columns as the workflow fans them out."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import columns  # a script of the repository, not a package

WORKFLOW = ROOT / ".github" / "workflows" / "matrix.yml"


def test_every_committed_results_file_is_a_column_and_every_column_has_one() -> None:
    manifest = columns.load()
    committed = {p.stem for p in (ROOT / "reports" / "results").glob("*.json")}
    assert committed == set(manifest.columns)


def test_every_column_runs_one_way_in_a_group_whose_lockfiles_exist() -> None:
    manifest = columns.load()
    for group in manifest.groups.values():
        assert manifest.of(group.name), f"group {group.name} has no column"
        for pattern in group.lockfiles:
            assert list(ROOT.glob(pattern)), f"group {group.name}: no lockfile matches {pattern}"


def test_the_plan_has_a_job_per_group_and_the_workflow_fans_out_over_it() -> None:
    manifest = columns.load()
    plan = columns.plan(manifest)["include"]
    assert [e["group"] for e in plan] == list(manifest.groups)
    assert {c for e in plan for c in e["columns"].split()} == set(manifest.columns)
    jobs = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]
    assert jobs["column"]["strategy"]["matrix"] == "${{ fromJSON(needs.plan.outputs.groups) }}"
    assert "scripts/columns.py plan" in jobs["plan"]["steps"][-1]["run"]


def test_a_manifest_error_is_located(tmp_path: Path) -> None:
    path = tmp_path / "columns.json"
    path.write_text(json.dumps({"groups": {}, "columns": {"x": {"group": "nope", "harness": "x"}}}), encoding="utf-8")
    with pytest.raises(columns.ManifestError, match=r"columns.json: column x: no group 'nope'"):
        columns.load(path)


def _manifest(build: str, harness: str = "false") -> columns.Manifest:
    group = columns.Group("g", "rust", build, ())
    return columns.Manifest({"g": group}, {"rig": columns.Column("rig", "g", harness=harness)})


def test_a_build_that_fails_writes_each_column_as_failed_with_the_log(tmp_path: Path) -> None:
    timings = columns.run_group(
        _manifest("echo compiling; echo 'error: linker cc not found' >&2; exit 101"), "g", tmp_path
    )
    assert timings == [("rig", "build failed", 0.0)]
    document = json.loads((tmp_path / "rig.json").read_text(encoding="utf-8"))
    assert document["failure"]["stage"] == "build" and document["cases"] == []
    assert "compiling" in document["failure"]["log"] and "linker cc not found" in document["failure"]["log"]


def test_a_harness_that_does_not_run_is_a_failed_run_not_a_missing_column(tmp_path: Path) -> None:
    timings = columns.run_group(_manifest("true", harness="no-such-program-here"), "g", tmp_path)
    assert timings[0][1].startswith("run failed")
    assert json.loads((tmp_path / "rig.json").read_text(encoding="utf-8"))["failure"]["stage"] == "run"


def test_collect_marks_a_column_whose_job_uploaded_nothing(tmp_path: Path) -> None:
    found, into = tmp_path / "found", tmp_path / "into"
    found.mkdir()
    (found / "rig.json").write_text((ROOT / "reports" / "results" / "rig.json").read_text(encoding="utf-8"))
    manifest = columns.load()
    missing = columns.collect(manifest, found, into)
    assert "rig" not in missing and set(missing) == set(manifest.columns) - {"rig"}
    assert (into / "rig.json").read_bytes() == (ROOT / "reports" / "results" / "rig.json").read_bytes()
    document = json.loads((into / "eino.json").read_text(encoding="utf-8"))
    assert document["failure"]["stage"] == "job" and "uploaded no results file" in document["failure"]["log"]


def test_the_command_line_refuses_an_unknown_group(capsys: pytest.CaptureFixture[str]) -> None:
    assert columns.main(["run", "no-such-group"]) == 2
    assert "no-such-group" in capsys.readouterr().err


def test_every_watched_release_names_a_pin_found_in_its_file() -> None:
    """The release watch moves the pin by its pattern: a pattern that no longer matches would leave the
    watch nothing to move."""
    import release_watch

    manifest = columns.load()
    for name, column in manifest.columns.items():
        if column.release:
            release = release_watch.release_of(manifest, name)
            assert release.registry in release_watch.REGISTRIES, name
            assert release.pin.read(ROOT), name
