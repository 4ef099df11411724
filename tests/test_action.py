"""The composite GitHub Action (action.yml): its steps' own shell lines, run here the way a runner runs
them, with the inputs substituted, the action's checkout as `github.action_path`.

The `uses:` steps are the runner's (setup-python, upload-artifact): for those the test checks what
they are handed, the files to upload exist. With the default inputs the install step really runs, in
a fresh virtual environment that sees this one's packages (the suite's dependencies and its build
backend) but not its install of the suite, with no package index: the suite it runs is the one the
action built from its own checkout. The other tests record the install step's `pip` rather than run
it and use the suite installed in this environment.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT

ACTION = ROOT / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*(?:(inputs|steps|github)\.([A-Za-z0-9_.-]+)|toJSON\((inputs)\))\s*\}\}")

STREAMS_BROKEN = """
from conformance import CodecAdapter
from conformance.reference.openai_chat import OpenAIChatCodec

class Broken(OpenAIChatCodec):
    def decode_stream(self, events):
        message = super().decode_stream(events)
        for part in message["parts"]:
            if part["type"] == "tool_call":
                part["call_id"] = part["name"]
        return message

ADAPTER = CodecAdapter(name="streams-broken", version="1", codecs={"openai-chat": Broken()})
"""

# `python -m pip ...` is recorded; any other use of python is the environment's own.
PYTHON_SHIM = """#!/bin/sh
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then
    shift 2
    echo "$@" >> "$PIP_LOG"
    exit 0
fi
exec "{python}" "$@"
"""


def _action() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return data


class Runner:
    """Runs the action's steps in `workspace` as a runner would, one bash per `run:` step."""

    def __init__(self, workspace: Path, inputs: dict[str, str], python: Path | None = None) -> None:
        """`python`: the interpreter set up for the job, whose `pip` really runs; else pip is recorded."""
        action = _action()
        self.workspace = workspace
        self.inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
        unknown = set(inputs) - set(self.inputs)
        assert not unknown, f"not inputs of action.yml: {unknown}"
        self.inputs.update(inputs)
        self.steps = action["runs"]["steps"]
        self.outputs: dict[str, dict[str, str]] = {}
        self.summary = workspace / "step-summary.md"
        self.pip_log = workspace / "pip.log"
        if python is None:
            shims = workspace / ".shims"
            shims.mkdir()
            (shims / "python").write_text(PYTHON_SHIM.replace("{python}", sys.executable), encoding="utf-8")
            (shims / "python").chmod(0o755)
            # `conformance` of this environment: the local checkout, installed.
            first = [str(shims), str(Path(sys.executable).parent)]
        else:
            first = [str(python.parent)]  # what actions/setup-python does: its Python first on PATH
        self.path = os.pathsep.join([*first, os.environ.get("PATH", "")])
        self.job = "conformance"
        self.runner_os = "Linux"
        self.uploaded: list[Path] = []

    def expand(self, text: str) -> str:
        def value(match: re.Match[str]) -> str:
            kind, name, whole = match.groups()
            if whole == "inputs":
                return json.dumps(self.inputs, indent=2)
            if kind == "inputs":
                return self.inputs[name]
            if kind == "github":
                assert name == "action_path", name
                return str(ROOT)
            step, _, output = name.partition(".outputs.")
            return self.outputs.get(step, {}).get(output, "")

        return EXPRESSION.sub(value, text)

    def run_all(self) -> int:
        """Every step in order, as `if: always()` and the default success() decide; the job's exit code."""
        failed = 0
        for step in self.steps:
            if failed and "always()" not in str(step.get("if", "")):
                continue
            if "uses" in step:
                self.uses(step)
                continue
            code = self.run(step)
            failed = failed or code
        return failed

    def uses(self, step: dict[str, Any]) -> None:
        if step["uses"].startswith("actions/upload-artifact@"):
            paths = self.expand(step["with"]["path"]).split()
            self.uploaded = [self.workspace / p for p in paths]
            self.artifact = self.expand(step["with"]["name"])

    def run(self, step: dict[str, Any]) -> int:
        assert step.get("shell") == "bash", step
        output = self.workspace / f"output-{len(self.outputs)}"
        output.touch()
        env = {
            **os.environ,
            "PATH": self.path,
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "PIP_LOG": str(self.pip_log),
            "GITHUB_JOB": self.job,
            "RUNNER_OS": self.runner_os,
            "RUNNER_ARCH": "X64",
            **{k: self.expand(str(v)) for k, v in (step.get("env") or {}).items()},
        }
        script = self.expand(step["run"])
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        self.log = getattr(self, "log", "") + done.stdout + done.stderr
        pairs = [line.split("=", 1) for line in output.read_text().splitlines() if "=" in line]
        self.outputs[step.get("id", f"step{len(self.outputs)}")] = dict(pairs)
        return done.returncode


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "mine.py").write_text(STREAMS_BROKEN, encoding="utf-8")
    return tmp_path


def test_the_action_is_a_composite_with_the_documented_inputs() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    assert {"suite-version", "adapter", "harness", "api", "baseline", "args"} <= set(action["inputs"])
    uses = [s["uses"].split("@")[0] for s in action["runs"]["steps"] if "uses" in s]
    assert "actions/upload-artifact" in uses
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## In CI" in readme and "uses: toolcall-conformance/toolcall-conformance@" in readme


def test_a_run_that_fails_uploads_its_files_and_fails_the_job(workspace: Path) -> None:
    runner = Runner(workspace, {"adapter": "./mine.py:ADAPTER", "api": "openai-chat"})
    assert runner.run_all() == 1, runner.log
    # No version given: the action's own checkout, whatever index the job can reach.
    assert runner.pip_log.read_text().split() == ["install", "--disable-pip-version-check", str(ROOT)]
    assert runner.outputs["run"]["exit-code"] == "1"
    assert runner.uploaded and all(p.is_file() for p in runner.uploaded), runner.uploaded
    assert {p.name for p in runner.uploaded} == {"results.json", "junit.xml"}
    summary = runner.summary.read_text(encoding="utf-8")
    assert summary.startswith("### Tool-call id conformance: streams-broken 1")
    assert "| API | pass | fail | total |" in summary and "**FAILED: " in summary


def test_the_baseline_input_turns_known_failures_into_xfail(workspace: Path) -> None:
    # The user's own first step: write the baseline (this is what they commit).
    subprocess.run(
        [
            *(sys.executable, "-m", "conformance", "run", "--adapter", "./mine.py:ADAPTER", "--api", "openai-chat"),
            *("--baseline", "conformance-baseline.yaml", "--update-baseline"),
        ],
        cwd=workspace,
        capture_output=True,
        check=False,
    )
    assert (workspace / "conformance-baseline.yaml").is_file()
    runner = Runner(
        workspace,
        {
            "adapter": "./mine.py:ADAPTER",
            "api": "openai-chat",
            "baseline": "conformance-baseline.yaml",
            "args": "--timeout 30",
            "suite-version": "0.1.0",
            "results-dir": "out",
        },
    )
    assert runner.run_all() == 0, runner.log
    summary = runner.summary.read_text(encoding="utf-8")
    assert "**passed**" in summary and "| API | pass | xfail | total |" in summary
    assert "expected failure(s) seen, 0 stale, 0 new" in summary
    junit = (workspace / "out" / "junit.xml").read_text(encoding="utf-8")
    assert 'failures="0"' in junit and 'type="xfail"' in junit


def test_a_version_pins_the_released_suite(workspace: Path) -> None:
    runner = Runner(workspace, {"adapter": "reference", "api": "kimi-chat", "suite-version": "0.2.0"})
    assert runner.run_all() == 0, runner.log
    assert runner.pip_log.read_text().split()[-1] == "toolcall-conformance==0.2.0"


def test_a_requirement_that_is_not_a_version_is_installed_as_given(workspace: Path) -> None:
    runner = Runner(
        workspace, {"adapter": "reference", "api": "kimi-chat", "suite-version": str(ROOT), "install": ". mylib==1.2"}
    )
    assert runner.run_all() == 0, runner.log
    assert runner.pip_log.read_text().split()[-3:] == [str(ROOT), ".", "mylib==1.2"]


def test_a_harness_runs_through_the_harness_input(workspace: Path) -> None:
    harness = f"{sys.executable} {ROOT / 'harnesses' / 'minimal-python' / 'harness.py'}"
    runner = Runner(workspace, {"harness": harness, "api": "openai-chat", "args": "--timeout 60"})
    code = runner.run_all()
    results = json.loads((workspace / "conformance-results" / "results.json").read_text(encoding="utf-8"))
    assert results["adapter"]["connector"] == "harness", runner.log
    assert code == int(runner.outputs["run"]["exit-code"]) == 0
    assert results["counts"]["pass"] >= 10 and results["counts"]["fail"] == 0
    assert "### Tool-call id conformance:" in runner.summary.read_text(encoding="utf-8")


def _artifact_name(workspace: Path, inputs: dict[str, str], job: str = "conformance", runner_os: str = "Linux") -> str:
    runner = Runner(workspace, {"adapter": "reference", "api": "kimi-chat", **inputs})
    runner.job, runner.runner_os = job, runner_os
    assert runner.run_all() == 0, runner.log
    return runner.artifact


def test_each_leg_of_a_job_matrix_uploads_under_a_name_of_its_own(tmp_path: Path) -> None:
    names = []
    legs: list[tuple[dict[str, str], str, str]] = [
        ({}, "conformance", "Linux"),
        ({"python-version": "3.12"}, "conformance", "Linux"),
        ({"install": "mylib==2"}, "conformance", "Linux"),
        ({}, "conformance", "macOS"),
        ({}, "other-job", "Linux"),
    ]
    for n, (inputs, job, runner_os) in enumerate(legs):
        (tmp_path / str(n)).mkdir()
        names.append(_artifact_name(tmp_path / str(n), inputs, job, runner_os))
    assert len(set(names)) == len(names), names
    assert all(re.fullmatch(r"conformance-results-[a-z-]+-[0-9a-f]{12}", name) for name in names), names
    # The same leg run again (a re-run) keeps its name; a name given is used as given.
    (tmp_path / "again").mkdir()
    assert _artifact_name(tmp_path / "again", {}) == names[0]
    (tmp_path / "named").mkdir()
    assert _artifact_name(tmp_path / "named", {"artifact-name": "mine"}) == "mine"


def _fresh_python(where: Path) -> Path:
    """A new virtual environment that sees this one's packages (the suite's dependencies, hatchling)
    through a path entry to a directory of links to them, all but the suite's own: installed
    (`pip install .`, as CI does) or editable (by a `.pth` file, which a path entry does not read),
    `conformance` is not importable there until the action installs it."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, capture_output=True, timeout=300)
    python = where / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    seen = where.parent / f"{where.name}-packages"
    seen.mkdir()
    for directory in (Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()):
        for entry in directory.iterdir():
            own = entry.name == "conformance" or entry.name.lower().startswith("toolcall_conformance")
            if not own and not (seen / entry.name).exists():
                (seen / entry.name).symlink_to(entry)
    (Path(site) / "_this_environment.pth").write_text(f"{seen}\n", encoding="utf-8")
    found = subprocess.run([str(python), "-c", "import conformance.cli"], cwd=where, capture_output=True, timeout=60)
    assert found.returncode != 0, "the fresh environment already imports the suite"
    return python


def test_with_default_inputs_the_action_installs_the_suite_from_its_checkout_and_reports(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = _fresh_python(tmp_path / "venv")
    # No index: the suite must come from the action's checkout; the build backend from the environment.
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_NO_BUILD_ISOLATION", "0")  # pip reads "0" here as: do not isolate the build
    runner = Runner(workspace, {"adapter": "./mine.py:ADAPTER", "api": "openai-chat"}, python=python)
    assert runner.run_all() == 1, runner.log  # the planted bug fails the job
    installed = subprocess.run(
        [str(python), "-c", "import conformance, sys; sys.stdout.write(conformance.__file__)"],
        cwd=workspace,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert installed.startswith(str(tmp_path / "venv")), installed  # built and installed, not the checkout's files
    assert runner.outputs["run"]["exit-code"] == "1"
    results = json.loads((workspace / "conformance-results" / "results.json").read_text(encoding="utf-8"))
    assert results["adapter"]["name"] == "streams-broken" and results["counts"]["fail"] > 0
    junit = (workspace / "conformance-results" / "junit.xml").read_text(encoding="utf-8")
    assert "<testsuite" in junit and 'failures="0"' not in junit
    assert runner.summary.read_text(encoding="utf-8").startswith("### Tool-call id conformance: streams-broken 1")
    assert {p.name for p in runner.uploaded} == {"results.json", "junit.xml"}
    assert all(p.is_file() for p in runner.uploaded)
    assert runner.artifact.startswith("conformance-results-conformance-")
