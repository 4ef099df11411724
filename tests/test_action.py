"""The composite GitHub Action (action.yml): its steps' own shell lines, run here the way a runner runs
them, with the inputs substituted, against the checkout installed in this environment.

The `uses:` steps are the runner's (setup-python, upload-artifact): for those the test checks what
they are handed, the files to upload exist. The install step's `pip` is recorded rather than run, so
the test needs no package index: it checks that the version installed is pinned.
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
EXPRESSION = re.compile(r"\$\{\{\s*(inputs|steps)\.([A-Za-z0-9_.-]+)\s*\}\}")

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

    def __init__(self, workspace: Path, inputs: dict[str, str]) -> None:
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
        shims = workspace / ".shims"
        shims.mkdir()
        (shims / "python").write_text(PYTHON_SHIM.replace("{python}", sys.executable), encoding="utf-8")
        (shims / "python").chmod(0o755)
        # `conformance` of this environment: the local checkout, installed.
        self.path = os.pathsep.join([str(shims), str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        self.uploaded: list[Path] = []

    def expand(self, text: str) -> str:
        def value(match: re.Match[str]) -> str:
            kind, name = match.groups()
            if kind == "inputs":
                return self.inputs[name]
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
    assert runner.pip_log.read_text().split() == [
        "install",
        "--disable-pip-version-check",
        "toolcall-conformance==0.1.0",
    ]
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
