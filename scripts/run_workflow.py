"""Run jobs of a GitHub Actions workflow on this machine, with the workflow's own `run:` steps.

    python scripts/run_workflow.py .github/workflows/matrix.yml plan column --matrix group=node-anthropic-sdk
    python scripts/run_workflow.py .github/workflows/matrix.yml merge --artifacts out/artifacts

The named jobs run in the order given, in a workspace that is a copy of the checkout's files (tracked and
untracked, not ignored: what a change would push), or the checkout itself with `--in-place`. For a job
with a matrix, every combination runs, or those matching each `--matrix KEY=VALUE`. A job's `if:`,
`env:`, `defaults.run.working-directory`, `outputs:` and its steps' `if:`, `env:`, `working-directory:`,
`id:` and `continue-on-error:` are honoured; `${{ }}` expressions are evaluated (the contexts `matrix`,
`needs`, `steps`, `env`, `inputs`, `github`, `runner`; the functions `fromJSON`, `toJSON`, `always`,
`success`, `failure`, `cancelled`; `==`, `!=`, `&&`, `||`, `!`); `$GITHUB_OUTPUT`, `$GITHUB_ENV`,
`$GITHUB_PATH` and `$GITHUB_STEP_SUMMARY` work as on GitHub.

What the machine stands in for (the artifacts directory, default `<workspace>/.workflow`, holds it all, so
that jobs run by separate calls still meet):

- a job's outputs, for the jobs that `needs` it: `<artifacts>/needs/<job>.json`;
- `actions/upload-artifact` and `actions/download-artifact` (name or pattern, `merge-multiple`):
  `<artifacts>/<name>/`; `actions/upload-pages-artifact`: `<artifacts>/github-pages/`;
- a local composite action (`uses: ./...`): its steps, run in the job's place;
- the toolchain set-up (`actions/setup-python`, `-node`, `-go`, `-java`), `actions/cache` and
  `actions/checkout` are skipped: the toolchains are those on PATH, and the workspace is the checkout.
  For `setup-python` each job gets a fresh virtual environment of this script's Python, first on PATH,
  so that a job's `pip install` lands there, as on a fresh runner;
- `actions/deploy-pages` and `peter-evans/create-pull-request` are not run (they publish); the runner
  says what they would have published.

Any other `uses:`, or an expression it cannot evaluate, is refused with exit 2, naming it: a step is
never skipped unsaid. Exit 1 when a job fails.
"""

from __future__ import annotations

import argparse
import fnmatch
import glob
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]

# Set-up actions whose work the machine already has done: skipped, and said so.
SETUP = (
    "actions/checkout",
    "actions/setup-python",
    "actions/setup-node",
    "actions/setup-go",
    "actions/setup-java",
    "actions/cache",
)
PUBLISH = ("actions/deploy-pages", "peter-evans/create-pull-request")


class WorkflowError(Exception):
    """The workflow asks for something this runner does not do: located, one line."""


# ---------------------------------------------------------------------------------------------------
# Expressions


_TOKEN = re.compile(
    r"\s*(?:(?P<num>-?\d+(?:\.\d+)?)|(?P<str>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\||[!()\[\],.<>*])"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_-]*))"
)


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m:
            raise WorkflowError(f"cannot read the expression {text!r} at {text[pos:]!r}")
        kind = str(m.lastgroup)
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


class _Parser:
    """A recursive-descent reader of the expression language's subset the project's workflows use."""

    def __init__(self, text: str, contexts: Mapping[str, Any], functions: Mapping[str, Callable[..., Any]]):
        self.text, self.tokens, self.i = text, _tokens(text), 0
        self.contexts, self.functions = contexts, functions

    def peek(self) -> str:
        return self.tokens[self.i][1] if self.i < len(self.tokens) else ""

    def take(self, value: str | None = None) -> tuple[str, str]:
        if self.i >= len(self.tokens) or (value is not None and self.tokens[self.i][1] != value):
            raise WorkflowError(f"cannot read the expression {self.text!r}: expected {value or 'more'}")
        self.i += 1
        return self.tokens[self.i - 1]

    def parse(self) -> Any:
        value = self.or_()
        if self.i != len(self.tokens):
            raise WorkflowError(f"cannot read the expression {self.text!r} at {self.peek()!r}")
        return value

    def or_(self) -> Any:
        value = self.and_()
        while self.peek() == "||":
            self.take()
            right = self.and_()
            value = value or right
        return value

    def and_(self) -> Any:
        value = self.compare()
        while self.peek() == "&&":
            self.take()
            right = self.compare()
            value = value and right
        return value

    def compare(self) -> Any:
        value = self.unary()
        while self.peek() in ("==", "!="):
            op = self.take()[1]
            right = self.unary()
            same = _loose(value) == _loose(right)
            value = same if op == "==" else not same
        return value

    def unary(self) -> Any:
        if self.peek() == "!":
            self.take()
            return not self.unary()
        return self.primary()

    def primary(self) -> Any:
        kind, token = self.take()
        if token == "(":
            value = self.or_()
            self.take(")")
            return value
        if kind == "num":
            return float(token) if "." in token else int(token)
        if kind == "str":
            return token[1:-1].replace("''", "'")
        if kind != "name":
            raise WorkflowError(f"cannot read the expression {self.text!r} at {token!r}")
        if token in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[token]
        if self.peek() == "(":
            return self.call(token)
        if token not in self.contexts:
            raise WorkflowError(f"the expression {self.text!r} uses the context {token!r}, which this runner has not")
        value = self.contexts[token]
        while self.peek() in (".", "["):
            if self.take()[1] == ".":
                key = self.take()[1]
            else:
                key = self.or_()
                self.take("]")
            value = value.get(key) if isinstance(value, Mapping) else None
        return value

    def call(self, name: str) -> Any:
        self.take("(")
        args = []
        while self.peek() != ")":
            args.append(self.or_())
            if self.peek() == ",":
                self.take()
        self.take(")")
        if name.lower() not in self.functions:
            raise WorkflowError(f"the expression {self.text!r} calls {name}(), which this runner has not")
        return self.functions[name.lower()](*args)


def _loose(value: Any) -> Any:
    """GitHub compares strings case-insensitively; null, numbers and booleans as they are."""
    return value.lower() if isinstance(value, str) else value


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def _from_json(text: Any) -> Any:
    if text in (None, ""):
        raise WorkflowError("fromJSON() of an empty value: run the job whose output it reads first")
    try:
        return json.loads(str(text))
    except ValueError as exc:
        raise WorkflowError(f"fromJSON() of {str(text)[:80]!r}: {exc}") from exc


_EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)


class Context:
    """The contexts an expression sees; `status` is the job's so far (`success` or `failure`)."""

    def __init__(self, contexts: dict[str, Any]):
        self.contexts = contexts
        self.status = "success"

    def functions(self) -> dict[str, Callable[..., Any]]:
        return {
            "fromjson": _from_json,
            "tojson": lambda v: json.dumps(v, indent=2),
            "always": lambda: True,
            "success": lambda: self.status == "success",
            "failure": lambda: self.status == "failure",
            "cancelled": lambda: False,
            "contains": lambda haystack, needle: (
                _loose(needle) in [_loose(x) for x in haystack]
                if isinstance(haystack, list)
                else _loose(str(needle)) in _loose(str(haystack))
            ),
            "startswith": lambda s, p: _loose(str(s)).startswith(_loose(str(p))),
            "format": lambda f, *a: re.sub(r"\{(\d+)\}", lambda m: _text(a[int(m.group(1))]), str(f)),
        }

    def evaluate(self, expression: str) -> Any:
        return _Parser(expression, self.contexts, self.functions()).parse()

    def value(self, value: Any) -> Any:
        """A workflow value with its expressions evaluated: a whole `${{ x }}` keeps x's type."""
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if not isinstance(value, str):
            return value
        whole = _EXPR.fullmatch(value.strip())
        if whole:
            return self.evaluate(whole.group(1))
        return _EXPR.sub(lambda m: _text(self.evaluate(m.group(1))), value)

    def condition(self, condition: Any) -> bool:
        """A job's or step's `if:`: as GitHub reads it, with `success()` implied unless a status function is
        named."""
        if condition is None:
            return self.status == "success"
        text = str(condition).strip()
        inner = _EXPR.fullmatch(text)
        text = inner.group(1) if inner else text
        if not re.search(r"\b(always|success|failure|cancelled)\(", text):
            text = f"success() && ({text})"
        return bool(self.evaluate(text))


# ---------------------------------------------------------------------------------------------------
# Jobs


def load_workflow(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise WorkflowError(f"{path}: cannot be read: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), dict):
        raise WorkflowError(f"{path}: no jobs")
    return data


def combinations(strategy: Any, context: Context, job: str) -> list[dict[str, Any]]:
    """A job's matrix, expanded: every combination of its axes, then its `include` entries."""
    if not strategy or "matrix" not in strategy:
        return [{}]
    matrix = context.value(strategy["matrix"])
    if not isinstance(matrix, dict):
        raise WorkflowError(f"job {job}: its matrix is not a mapping: {matrix!r}")
    include = list(matrix.pop("include", None) or [])
    exclude = list(matrix.pop("exclude", None) or [])
    axes = {k: v for k, v in matrix.items()}
    combos: list[dict[str, Any]] = []
    if axes:
        combos = [dict(zip(axes, values, strict=True)) for values in itertools.product(*axes.values())]
    combos = [c for c in combos if not any(all(c.get(k) == v for k, v in e.items()) for e in exclude)]
    for extra in include:
        matched = [c for c in combos if all(c.get(k) == v for k, v in extra.items() if k in axes)]
        if axes and matched:
            for c in matched:
                c.update(extra)
        else:
            combos.append(dict(extra))
    return combos or [{}]


def workspace_copy(source: Path, target: Path) -> None:
    """The checkout's files as a push would carry them: tracked and untracked, not ignored."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=source,
        capture_output=True,
        text=True,
    )
    if listed.returncode != 0:
        raise WorkflowError(f"{source}: not a git checkout: {listed.stderr.strip()}")
    for name in filter(None, listed.stdout.split("\0")):
        origin = source / name
        if not origin.is_file():
            continue  # deleted in the working tree
        dest = target / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(origin, dest)


def _files(workspace: Path, spec: str) -> tuple[list[Path], Path]:
    """The files an upload names (lines of paths or globs) and the directory they are stored relative to:
    their common ancestor, as upload-artifact stores them."""
    found: list[Path] = []
    for line in (s.strip() for s in str(spec).splitlines()):
        if not line or line.startswith("!"):
            continue
        pattern = os.path.expanduser(line)
        pattern = pattern if os.path.isabs(pattern) else str(workspace / pattern)
        for match in sorted(glob.glob(pattern, recursive=True)):
            p = Path(match)
            found += sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p]
    if not found:
        return [], workspace
    roots = [Path(line).expanduser() for line in str(spec).split()]
    if len(roots) == 1 and (workspace / roots[0]).is_dir():
        return found, workspace / roots[0]
    base = Path(os.path.commonpath([f.parent for f in found]))
    return found, base


class Runner:
    def __init__(self, workflow: Path, workspace: Path, artifacts: Path, event: str, inputs: Mapping[str, str]):
        self.path = workflow
        self.workflow = load_workflow(workflow)
        self.workspace = workspace
        self.artifacts = artifacts
        self.event = event
        self.inputs = dict(inputs)

    # -- artifacts and needs --------------------------------------------------------------------------

    def needs(self, job: Mapping[str, Any]) -> dict[str, Any]:
        names = job.get("needs") or []
        names = [names] if isinstance(names, str) else names
        out = {}
        for name in names:
            saved = self.artifacts / "needs" / f"{name}.json"
            recorded = json.loads(saved.read_text(encoding="utf-8")) if saved.is_file() else {}
            out[name] = {"outputs": recorded.get("outputs", {}), "result": recorded.get("result", "success")}
        return out

    def record(self, name: str, outputs: Mapping[str, Any], result: str) -> None:
        saved = self.artifacts / "needs" / f"{name}.json"
        saved.parent.mkdir(parents=True, exist_ok=True)
        previous = json.loads(saved.read_text(encoding="utf-8")) if saved.is_file() else {"outputs": {}}
        merged = {**previous.get("outputs", {}), **{k: v for k, v in outputs.items() if v not in (None, "")}}
        failed = result == "failure" or previous.get("result") == "failure"
        saved.write_text(json.dumps({"outputs": merged, "result": "failure" if failed else result}), encoding="utf-8")

    def upload(self, name: str, spec: str, required: bool) -> str:
        files, base = _files(self.workspace, spec)
        if not files and required:
            raise StepFailed(f"no files match {spec!r}")
        target = self.artifacts / name
        shutil.rmtree(target, ignore_errors=True)
        for f in files:
            dest = target / f.relative_to(base)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, dest)
        return f"{len(files)} file(s) to {target}"

    def download(self, name: str, pattern: str, merge: bool, path: str) -> str:
        chosen = (
            [name]
            if name
            else sorted(
                p.name
                for p in self.artifacts.iterdir()
                if p.is_dir() and p.name not in ("needs", "tmp") and fnmatch.fnmatch(p.name, pattern or "*")
            )
        )
        dest = self.workspace / (path or ".")
        count = 0
        for artifact in chosen:
            source = self.artifacts / artifact
            if not source.is_dir():
                raise StepFailed(f"no artifact {artifact} (run the job that uploads it first)")
            into = dest if (merge or name) else dest / artifact
            for f in sorted(source.rglob("*")):
                if f.is_file():
                    target = into / f.relative_to(source)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(f, target)
                    count += 1
        return f"{count} file(s) from {len(chosen)} artifact(s) into {dest}"

    # -- steps ----------------------------------------------------------------------------------------

    def run_job(self, name: str, only: Mapping[str, str]) -> bool:
        jobs = self.workflow["jobs"]
        if name not in jobs:
            raise WorkflowError(f"{self.path}: no job {name!r} (jobs: {', '.join(jobs)})")
        job = jobs[name]
        if "steps" not in job:
            raise WorkflowError(f"{self.path}: job {name} has no steps (a reusable workflow is not run here)")
        base = {
            "github": {
                "event_name": self.event,
                "ref": "refs/heads/local",
                "workspace": str(self.workspace),
                "repository": "local/checkout",
                "run_id": "0",
            },
            "runner": {"os": "Linux", "temp": str(self.artifacts / "tmp"), "arch": "X64"},
            "inputs": self.inputs,
            "needs": self.needs(job),
            "env": {},
        }
        outer = Context(dict(base))
        outer.contexts["env"] = {k: _text(v) for k, v in outer.value(self.workflow.get("env") or {}).items()}
        combos = combinations(job.get("strategy"), outer, name)
        # a filter names keys of some job's matrix: a job whose matrix lacks the key is not narrowed by it
        chosen = [c for c in combos if all(k not in c or _text(c[k]) == v for k, v in only.items())]
        if not chosen:
            print(f"== {name}: no matrix combination matches {dict(only)} (of {len(combos)})")
            return True
        ok = True
        for matrix in chosen:
            ok = self._run_one(name, job, base, matrix) and ok
        return ok

    def _run_one(self, name: str, job: Mapping[str, Any], base: Mapping[str, Any], matrix: Mapping[str, Any]) -> bool:
        context = Context({**base, "matrix": dict(matrix), "steps": {}})
        env = {k: _text(v) for k, v in context.value(self.workflow.get("env") or {}).items()}
        context.contexts["env"] = env
        label = f"{name} {json.dumps(dict(matrix), sort_keys=True)}" if matrix else name
        if not context.condition(job.get("if")):
            print(f"== {label}: skipped (its if: is false)")
            return True
        env.update({k: _text(v) for k, v in context.value(job.get("env") or {}).items()})
        started = time.monotonic()
        print(f"== {label}", flush=True)
        temp = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self._tmp()))
        state = _JobState(temp, env)
        default_dir = ((job.get("defaults") or {}).get("run") or {}).get("working-directory")
        try:
            self._steps(job.get("steps") or [], context, state, default_dir, label)
        finally:
            shutil.rmtree(temp, ignore_errors=True)
        outputs = {k: context.value(v) for k, v in (job.get("outputs") or {}).items()}
        self.record(name, outputs, context.status)
        print(f"== {label}: {context.status} in {time.monotonic() - started:.0f} s", flush=True)
        return context.status == "success"

    def _tmp(self) -> Path:
        tmp = self.artifacts / "tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        return tmp

    def _steps(
        self, steps: Sequence[Mapping[str, Any]], context: Context, state: _JobState, default_dir: Any, label: str
    ) -> None:
        for i, step in enumerate(steps):
            what = step.get("name") or step.get("uses") or str(step.get("run", "")).strip().splitlines()[0]
            where = f"{label}, step {i + 1} ({what})"
            context.contexts["env"] = dict(state.env)
            if not context.condition(step.get("if")):
                print(f"-- {what}: skipped (its if: is false)")
                continue
            step_env = {k: _text(v) for k, v in context.value(step.get("env") or {}).items()}
            try:
                if "uses" in step:
                    outputs = self._uses(step, context, state, default_dir, where)
                else:
                    if step.get("shell", "bash") != "bash":
                        raise WorkflowError(f"{where}: this runner runs bash steps only, not shell {step['shell']}")
                    directory = context.value(step.get("working-directory") or default_dir or ".")
                    outputs = state.run(
                        str(context.value(step["run"])),
                        {**state.env, **step_env},
                        self.workspace / str(directory),
                        self.workspace,
                        what,
                    )
            except StepFailed as exc:
                print(f"-- {what}: failed: {exc}", flush=True)
                if not step.get("continue-on-error"):
                    context.status = "failure"
                outputs = {}
            if step.get("id"):
                context.contexts["steps"][step["id"]] = {"outputs": outputs}

    def _uses(
        self, step: Mapping[str, Any], context: Context, state: _JobState, default_dir: Any, where: str
    ) -> dict[str, str]:
        action = str(step["uses"])
        bare = action.split("@")[0]
        if bare == "actions/setup-python":
            state.python_venv()
            print(f"-- {action}: a fresh virtual environment of {sys.executable}, first on PATH")
            return {}
        if bare in SETUP:
            print(f"-- {action}: skipped (set-up: the machine's own toolchain and the workspace stand in)")
            return {}
        given = {k: _text(v) for k, v in context.value(step.get("with") or {}).items()}
        if bare.startswith("./"):
            return self._composite(bare, given, context, state, default_dir, where)
        if bare == "actions/upload-artifact":
            required = given.get("if-no-files-found", "warn") == "error"
            print(
                f"-- {action} {given.get('name', 'artifact')}: "
                + self.upload(given.get("name", "artifact"), given["path"], required)
            )
            return {}
        if bare == "actions/upload-pages-artifact":
            print(f"-- {action}: " + self.upload("github-pages", given.get("path", "_site"), True))
            return {}
        if bare == "actions/download-artifact":
            merge = given.get("merge-multiple", "false") == "true"
            done = self.download(given.get("name", ""), given.get("pattern", ""), merge, given.get("path", ""))
            print(f"-- {action}: {done}")
            return {}
        if bare in PUBLISH:
            shown = {k: v for k, v in given.items() if k in ("branch", "title", "body-path", "path")}
            print(f"-- {action}: not run here (it publishes); it would have been given {shown}")
            return {}
        raise WorkflowError(f"{where}: this runner does not run {action}")

    def _composite(
        self, path: str, given: Mapping[str, str], context: Context, state: _JobState, default_dir: Any, where: str
    ) -> dict[str, str]:
        folder = self.workspace / path
        found = [folder / n for n in ("action.yml", "action.yaml") if (folder / n).is_file()]
        if not found:
            raise WorkflowError(f"{where}: no action.yml in {path}")
        action = yaml.safe_load(found[0].read_text(encoding="utf-8"))
        if (action.get("runs") or {}).get("using") != "composite":
            raise WorkflowError(f"{where}: {path} is not a composite action")
        defaults = {k: _text((v or {}).get("default", "")) for k, v in (action.get("inputs") or {}).items()}
        inner = Context({**context.contexts, "inputs": {**defaults, **given}, "steps": {}})
        inner.status = context.status
        print(f"-- {path}: its steps")
        self._steps(action["runs"].get("steps") or [], inner, state, default_dir, f"{where} > {path}")
        context.status = inner.status
        return {}


class StepFailed(Exception):
    pass


class _JobState:
    """What a job's steps share: the environment, PATH additions, the files GitHub gives each step."""

    def __init__(self, temp: Path, env: dict[str, str]):
        self.temp = temp
        self.env = dict(env)
        self.paths: list[str] = []
        self.summary = temp / "summary.md"

    def python_venv(self) -> None:
        target = self.temp / "python"
        if not target.exists():
            venv.EnvBuilder(with_pip=True, clear=True).create(target)
        self.paths.insert(0, str(target / "bin"))
        self.env["VIRTUAL_ENV"] = str(target)

    def run(self, script: str, env: Mapping[str, str], cwd: Path, workspace: Path, what: str) -> dict[str, str]:
        files = {n: self.temp / f"{n}-{time.monotonic_ns()}" for n in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH")}
        for f in files.values():
            f.touch()
        full = {**os.environ, **env, **{k: str(v) for k, v in files.items()}}
        full.update(
            GITHUB_STEP_SUMMARY=str(self.summary),
            GITHUB_WORKSPACE=str(workspace),
            RUNNER_TEMP=str(self.temp),
            GITHUB_ACTIONS="true",
            CI="true",
        )
        full["PATH"] = os.pathsep.join([*self.paths, full.get("PATH", "")])
        print(f"-- {what}", flush=True)
        script_file = self.temp / f"step-{time.monotonic_ns()}.sh"
        script_file.write_text(script, encoding="utf-8")
        done = subprocess.run(["bash", "-e", str(script_file)], cwd=cwd, env=full)
        outputs = _key_values(files["GITHUB_OUTPUT"].read_text(encoding="utf-8"))
        self.env.update(_key_values(files["GITHUB_ENV"].read_text(encoding="utf-8")))
        self.paths[:0] = [p for p in files["GITHUB_PATH"].read_text(encoding="utf-8").splitlines() if p]
        if done.returncode != 0:
            raise StepFailed(f"exit {done.returncode}")
        return outputs


def _key_values(text: str) -> dict[str, str]:
    """`name=value` lines and `name<<DELIMITER` blocks, as $GITHUB_OUTPUT and $GITHUB_ENV hold them."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delimiter = line.split("<<", 1)
            block = []
            i += 1
            while i < len(lines) and lines[i] != delimiter:
                block.append(lines[i])
                i += 1
            out[key] = "\n".join(block)
        elif "=" in line:
            key, value = line.split("=", 1)
            out[key] = value
        i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("workflow", type=Path)
    parser.add_argument("jobs", nargs="+", metavar="JOB")
    parser.add_argument("--matrix", action="append", default=[], metavar="KEY=VALUE", help="run these combinations")
    parser.add_argument("--input", action="append", default=[], metavar="NAME=VALUE", help="a workflow_dispatch input")
    parser.add_argument("--event", default="workflow_dispatch", help="github.event_name (default: workflow_dispatch)")
    parser.add_argument("--workspace", type=Path, help="run here, a copy of the checkout made first when empty")
    parser.add_argument("--in-place", action="store_true", help="run in the checkout itself")
    parser.add_argument("--artifacts", type=Path, help="artifacts and job outputs (default: <workspace>/.workflow)")
    args = parser.parse_args(argv)
    for item in [*args.matrix, *args.input]:
        if "=" not in item:
            parser.error(f"{item!r} is not KEY=VALUE")
    pairs = dict(item.split("=", 1) for item in args.matrix)
    inputs = dict(item.split("=", 1) for item in args.input)
    try:
        if args.in_place:
            workspace = ROOT
        else:
            workspace = (args.workspace or Path(tempfile.mkdtemp(prefix="workflow-"))).resolve()
            if not workspace.exists() or not any(workspace.iterdir()):
                workspace.mkdir(parents=True, exist_ok=True)
                workspace_copy(ROOT, workspace)
                print(f"== workspace: a copy of the checkout in {workspace}")
        artifacts = (args.artifacts or workspace / ".workflow").resolve()
        artifacts.mkdir(parents=True, exist_ok=True)
        workflow = args.workflow if args.workflow.is_absolute() else (Path.cwd() / args.workflow)
        runner = Runner(workflow.resolve(), workspace, artifacts, args.event, inputs)
        ok = True
        for job in args.jobs:
            ok = runner.run_job(job, pairs)
            if not ok:
                break  # the jobs after it would need it
    except WorkflowError as exc:
        print(f"run_workflow: {exc}", file=sys.stderr)
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
