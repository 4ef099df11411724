"""scripts/run_workflow.py: the workflow's jobs run on this machine with their own steps.

The first tests run a small workflow written here (seconds). The jobs of .github/workflows/matrix.yml
build harnesses, so they run only when asked:

- CONFORMANCE_WORKFLOW_JOBS=1: the plan, one Node group (anthropic-sdk, no cold build: `npm ci` from
  npm's cache) and the merge, whose reports/ must equal the committed ones (CI runs this);
- CONFORMANCE_WORKFLOW_JOBS=all: also a job per language, Python, Go, Java and Rust, each of whose
  columns must give the committed verdicts case by case (cold, the Go, Java and Rust builds take
  minutes: docs/matrix.md gives the times).

actionlint checks the workflow files where it is installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import columns  # a script of the repository, not a package
import run_workflow

WORKFLOW = ROOT / ".github" / "workflows" / "matrix.yml"
JOBS = os.environ.get("CONFORMANCE_WORKFLOW_JOBS", "")

SMALL = """
name: small
on: workflow_dispatch
env:
  GREETING: hello
jobs:
  first:
    runs-on: ubuntu-latest
    outputs:
      list: ${{ steps.make.outputs.list }}
    steps:
      - uses: actions/checkout@v4
      - id: make
        run: |
          echo 'list={"include": [{"name": "a", "n": 1}, {"name": "b", "n": 2}]}' >> "$GITHUB_OUTPUT"
          echo "LATER=from-env-file" >> "$GITHUB_ENV"
      - run: test "$LATER" = from-env-file
      - if: ${{ github.event_name == 'push' }}
        run: exit 1
  second:
    needs: first
    runs-on: ubuntu-latest
    strategy:
      matrix: ${{ fromJSON(needs.first.outputs.list) }}
    defaults:
      run:
        working-directory: sub
    steps:
      - uses: ./.github/actions/local
        with:
          word: ${{ matrix.name }}
      - env:
          N: ${{ matrix.n }}
        run: echo "$GREETING $N" > "out-${{ matrix.name }}.txt"
      - uses: actions/upload-artifact@v4
        with:
          name: out-${{ matrix.name }}
          path: sub/out-*.txt
  third:
    needs: second
    runs-on: ubuntu-latest
    steps:
      - uses: actions/download-artifact@v4
        with:
          pattern: out-*
          merge-multiple: true
          path: got
      - run: cat got/out-a.txt got/out-b.txt > got/all.txt
      - run: exit 3
        continue-on-error: true
      - if: failure()
        run: echo "never" > got/failed.txt
  strange:
    runs-on: ubuntu-latest
    steps:
      - uses: someone/unknown-action@v1
"""

LOCAL_ACTION = """
name: local
inputs:
  word:
    required: true
runs:
  using: composite
  steps:
    - run: echo "${{ inputs.word }}" >> words.txt
      shell: bash
"""


@pytest.fixture
def small(tmp_path: Path) -> tuple[Path, Path]:
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    (workspace / ".github" / "actions" / "local").mkdir(parents=True)
    (workspace / ".github" / "actions" / "local" / "action.yml").write_text(LOCAL_ACTION, encoding="utf-8")
    workflow = tmp_path / "small.yml"
    workflow.write_text(SMALL, encoding="utf-8")
    return workflow, workspace


def _run(workflow: Path, workspace: Path, *args: str) -> int:
    return run_workflow.main([str(workflow), *args, "--workspace", str(workspace)])


def test_jobs_run_their_steps_with_matrix_needs_env_artifacts_and_composite_actions(small: tuple[Path, Path]) -> None:
    workflow, workspace = small
    assert _run(workflow, workspace, "first", "second", "third") == 0
    assert (workspace / "got" / "all.txt").read_text() == "hello 1\nhello 2\n"
    assert (workspace / "sub" / "words.txt").read_text() == "a\nb\n"  # the composite action ran in the job's place
    assert not (workspace / "got" / "failed.txt").exists()  # continue-on-error kept the job successful
    recorded = json.loads((workspace / ".workflow" / "needs" / "first.json").read_text())
    assert json.loads(recorded["outputs"]["list"])["include"][1] == {"name": "b", "n": 2}


def test_a_matrix_filter_runs_only_the_combinations_asked_for(small: tuple[Path, Path]) -> None:
    workflow, workspace = small
    assert _run(workflow, workspace, "first", "second", "--matrix", "name=b") == 0
    assert (workspace / "sub" / "words.txt").read_text() == "b\n"


def test_a_step_that_fails_fails_the_job_and_stops_the_jobs_after_it(small: tuple[Path, Path]) -> None:
    workflow, workspace = small
    assert _run(workflow, workspace, "first", "second", "--event", "push") == 1
    assert not (workspace / "sub" / "words.txt").exists()


def test_an_action_it_does_not_know_is_refused_by_name(
    small: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    workflow, workspace = small
    assert _run(workflow, workspace, "strange") == 2
    assert "strange, step 1 (someone/unknown-action@v1): this runner does not run someone/unknown-action@v1" in (
        capsys.readouterr().err
    )


def test_an_expression_it_cannot_evaluate_is_refused() -> None:
    context = run_workflow.Context({"matrix": {"a": "X"}})
    assert context.value("${{ matrix.a == 'x' && !false }}") is True
    assert context.value("pre-${{ matrix.a }}-post") == "pre-X-post"
    with pytest.raises(run_workflow.WorkflowError, match="the context 'secrets'"):
        context.value("${{ secrets.TOKEN }}")
    with pytest.raises(run_workflow.WorkflowError, match=r"calls hashFiles\(\)"):
        context.value("${{ hashFiles('x') }}")


def test_every_job_of_the_matrix_workflow_uses_only_what_the_runner_runs() -> None:
    """Each `uses:` of the workflow and its local actions is one the runner stands in for or skips, saying
    which: a new action in the workflow fails here before it fails in the runner."""
    workflow = run_workflow.load_workflow(WORKFLOW)
    known = (*run_workflow.SETUP, *run_workflow.PUBLISH)
    known += ("actions/upload-artifact", "actions/download-artifact", "actions/upload-pages-artifact")
    for name, job in workflow["jobs"].items():
        for step in job["steps"]:
            action = str(step.get("uses", "")).split("@")[0]
            assert not action or action.startswith("./") or action in known, f"{name}: {action}"


def _actionlint() -> str | None:
    found = shutil.which("actionlint")
    home = Path.home() / "go" / "bin" / "actionlint"
    return found or (str(home) if home.is_file() else None)


def test_the_workflow_files_pass_actionlint() -> None:
    tool = _actionlint()
    if tool is None:
        missing = "actionlint is not installed: go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"
        if os.environ.get("CONFORMANCE_WORKFLOW_JOBS"):  # CI installs it and runs this with the jobs
            pytest.fail(missing, pytrace=False)
        pytest.skip(missing)
    done = subprocess.run([tool, "-no-color"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


# The matrix workflow's own jobs, when asked


def _workflow_jobs(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(ROOT / "scripts" / "run_workflow.py"), str(WORKFLOW), *args, "--workspace", str(tmp)]
    return subprocess.run(command, capture_output=True, text=True, timeout=7200)


def _outcomes(path: Path) -> dict[str, str]:
    return {c["id"]: c["outcome"] for c in json.loads(path.read_text(encoding="utf-8"))["cases"]}


needs_jobs = pytest.mark.skipif(JOBS not in ("1", "all"), reason="set CONFORMANCE_WORKFLOW_JOBS=1 (or all) to run")


@needs_jobs
def test_a_node_job_and_the_merge_reproduce_the_committed_report(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    done = _workflow_jobs(workspace, "plan", "column", "--matrix", "group=node-anthropic-sdk")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ran = workspace / ".workflow" / "results-node-anthropic-sdk" / "anthropic-sdk-js.json"
    assert _outcomes(ran) == _outcomes(ROOT / "reports" / "results" / "anthropic-sdk-js.json")
    # The jobs not run here stand as their committed results, uploaded as those jobs would have.
    manifest = columns.load()
    for group in manifest.groups:
        if group == "node-anthropic-sdk":
            continue
        folder = workspace / ".workflow" / f"results-{group}"
        folder.mkdir(parents=True)
        for column in manifest.of(group):
            shutil.copyfile(ROOT / "reports" / "results" / f"{column.name}.json", folder / f"{column.name}.json")
    done = _workflow_jobs(workspace, "merge", "publish")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    committed, merged = ROOT / "reports", workspace / "reports"
    for path in sorted(committed.rglob("*")):
        relative = path.relative_to(committed)
        if path.is_file() and relative.parts[0] != "results":
            assert (merged / relative).read_bytes() == path.read_bytes(), f"reports/{relative} differs"
    pages = workspace / ".workflow" / "github-pages"
    assert (pages / "index.html").read_bytes() == (committed / "matrix.html").read_bytes()
    assert "publish: skipped" in done.stdout  # Pages are deployed from main on GitHub only


@pytest.mark.skipif(JOBS != "all", reason="set CONFORMANCE_WORKFLOW_JOBS=all to run (cold builds take minutes)")
@pytest.mark.parametrize("group", ["python-strands", "go-openai-go", "java", "rust-async-openai"])
def test_a_job_per_language_gives_the_committed_verdicts(tmp_path: Path, group: str) -> None:
    workspace = tmp_path / "ws"
    done = _workflow_jobs(workspace, "plan", "column", "--matrix", f"group={group}")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for column in columns.load().of(group):
        ran = workspace / ".workflow" / f"results-{group}" / f"{column.name}.json"
        assert "failure" not in json.loads(ran.read_text(encoding="utf-8")), ran.read_text()[-3000:]
        assert _outcomes(ran) == _outcomes(ROOT / "reports" / "results" / f"{column.name}.json"), column.name
