"""The matrix's columns as the workflow fans them out: plan the jobs, build a group and run its columns.

`scripts/columns.json` lists every column (a Python client adapter, or a harness command) and the group
that builds it (one toolchain, one build command, the lockfiles its cache is keyed on). The workflow
(.github/workflows/matrix.yml) asks `plan` for its job list and runs `run GROUP` in each job:

    python scripts/columns.py plan                      # {"include": [{"group", "toolchain", "lockfiles"}...]}
    python scripts/columns.py run node-vercel-ai --out results/
    python scripts/columns.py run go --out results/ --columns openai-go eino

`run` builds the group, then runs each column into `<out>/<column>.json`. A build that fails, or a column
whose run ends other than with its verdicts (exit 0 or 1), still writes that column's results file: no
cases, and `failure` holding the stage and the end of its log, which `conformance matrix` shows as a
failed column, so that nothing is left out of the merged matrix unsaid. Each column's run time is
printed, and added to the job's summary page in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "scripts" / "columns.json"
RESULTS = "reports/results"
LOG_TAIL = 4000  # characters of a failing step's log kept in the results file
TOOLCHAINS = ("python", "node", "go", "java", "rust")
FORMAT = "toolcall-conformance/results"


@dataclass(frozen=True)
class Group:
    name: str
    toolchain: str
    build: str
    lockfiles: tuple[str, ...]


@dataclass(frozen=True)
class Column:
    name: str
    group: str
    adapter: str = ""  # a Python client adapter (`module:ATTR`), run in the group's Python
    harness: str = ""  # or the command that starts its harness; `{bin}` is the build's last line of output
    release: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Manifest:
    groups: dict[str, Group]
    columns: dict[str, Column]

    def of(self, group: str) -> list[Column]:
        return [c for c in self.columns.values() if c.group == group]


class ManifestError(Exception):
    """The manifest is not what this script reads: located, one line."""


def load(path: Path = MANIFEST) -> Manifest:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ManifestError(f"{path}: cannot be read: {exc}") from exc
    groups = {}
    for name, g in (data.get("groups") or {}).items():
        if g.get("toolchain") not in TOOLCHAINS or not isinstance(g.get("build"), str):
            raise ManifestError(f"{path}: group {name}: needs a toolchain (one of {', '.join(TOOLCHAINS)}) and a build")
        groups[name] = Group(name, g["toolchain"], g["build"], tuple(g.get("lockfiles") or ()))
    columns = {}
    for name, c in (data.get("columns") or {}).items():
        if c.get("group") not in groups:
            raise ManifestError(f"{path}: column {name}: no group {c.get('group')!r}")
        if bool(c.get("adapter")) == bool(c.get("harness")):
            raise ManifestError(f"{path}: column {name}: needs an adapter or a harness, not both")
        columns[name] = Column(name, c["group"], c.get("adapter", ""), c.get("harness", ""), c.get("release") or {})
    return Manifest(groups, columns)


def plan(manifest: Manifest, groups: Sequence[str] = ()) -> dict[str, list[dict[str, str]]]:
    """The workflow's job matrix: one entry per group, with the lockfiles its cache is keyed on."""
    chosen = groups or list(manifest.groups)
    return {
        "include": [
            {
                "group": g.name,
                "toolchain": g.toolchain,
                "lockfiles": "\n".join(g.lockfiles),
                "columns": " ".join(c.name for c in manifest.of(g.name)),
            }
            for g in (manifest.groups[name] for name in chosen)
        ]
    }


def releases(manifest: Manifest) -> dict[str, list[dict[str, str]]]:
    """The release watch's job matrix: one entry per column that names its library's release."""
    return {
        "include": [
            {
                "column": c.name,
                "group": c.group,
                "toolchain": manifest.groups[c.group].toolchain,
                "lockfiles": "\n".join(manifest.groups[c.group].lockfiles),
            }
            for c in manifest.columns.values()
            if c.release
        ]
    }


def collect(manifest: Manifest, found: Path, into: Path, root: Path = ROOT) -> list[str]:
    """Copy the results files the jobs uploaded (`found`) into `into`; a column of the manifest that has
    none (its job died before uploading) gets a failure file instead of keeping a stale committed one.
    Returns the columns that had none."""
    into.mkdir(parents=True, exist_ok=True)
    missing = []
    revision = _corpus_revision()
    for name in manifest.columns:
        source = found / f"{name}.json"
        if source.is_file():
            shutil.copyfile(source, into / f"{name}.json")
        else:
            missing.append(name)
            log = f"the job of group {manifest.columns[name].group} uploaded no results file for {name}"
            _write(into / f"{name}.json", failure_document(name, "job", log, root, revision))
    return missing


def _tail(text: str) -> str:
    return text[-LOG_TAIL:].strip()


def failure_document(column: str, stage: str, log: str, root: Path = ROOT, revision: str = "") -> dict[str, Any]:
    """A results file for a column that could not run: the adapter as its committed results name it (its
    version and the APIs it serves), no cases, and what failed."""
    committed = root / RESULTS / f"{column}.json"
    adapter: dict[str, Any] = {"name": column}
    known_revision = "unknown"
    if committed.is_file():
        try:
            known = json.loads(committed.read_text(encoding="utf-8"))
            adapter = {k: v for k, v in known["adapter"].items() if k in ("name", "version", "language", "apis")}
            known_revision = str(known["corpus_revision"])
        except (ValueError, KeyError, TypeError):
            pass
    revision = revision or _corpus_revision() or known_revision
    return {
        "format": FORMAT,
        "format_version": 1,
        "adapter": adapter,
        "corpus_revision": revision,
        "complete": False,
        "cases": [],
        "failure": {"stage": stage, "log": _tail(log)},
    }


def _corpus_revision() -> str:
    try:
        from conformance.corpus.loading import load_corpus
    except ImportError:
        return ""
    return load_corpus().revision()


def _conformance() -> list[str]:
    found = shutil.which("conformance")
    return [found] if found else [sys.executable, "-m", "conformance.cli"]


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True)


def run_group(
    manifest: Manifest,
    group: str,
    out: Path,
    only: Sequence[str] = (),
    *,
    build: bool = True,
    bin_dir: str = "",
    record_failures: bool = True,
    root: Path = ROOT,
) -> list[tuple[str, str, float]]:
    """Build `group` and run its columns (or `only` these) into `out`; (column, outcome, seconds) for each.
    Without `build`, `bin_dir` stands for the build's output; without `record_failures`, a column that does
    not run leaves its results file as it was (a local refresh keeps the committed one)."""
    columns = [c for c in manifest.of(group) if not only or c.name in only]
    out.mkdir(parents=True, exist_ok=True)
    if build:
        started = time.monotonic()
        done = _shell(manifest.groups[group].build, root)
        print(f"{group}: build {time.monotonic() - started:.0f} s, exit {done.returncode}", flush=True)
        if done.returncode != 0:
            log = done.stdout + done.stderr
            print(_tail(log), file=sys.stderr)
            for c in columns:
                _write(out / f"{c.name}.json", failure_document(c.name, "build", log, root))
            return [(c.name, "build failed", 0.0) for c in columns]
        bin_dir = (done.stdout.strip().splitlines() or [""])[-1]
    timings = []
    for c in columns:
        report = out / f"{c.name}.json"
        how = ["--adapter", c.adapter] if c.adapter else ["--harness", c.harness.replace("{bin}", bin_dir)]
        started = time.monotonic()
        done = subprocess.run(
            [*_conformance(), "run", *how, "--report", str(report)], cwd=root, capture_output=True, text=True
        )
        took = time.monotonic() - started
        # run exits 1 when a case fails (the column's findings); anything else is the column not running
        if done.returncode in (0, 1) and report.is_file():
            last = (done.stdout.strip().splitlines() or [""])[-1]
            timings.append((c.name, last, took))
        else:
            if record_failures:
                _write(report, failure_document(c.name, "run", done.stdout + done.stderr, root))
            else:
                print(_tail(done.stdout + done.stderr), file=sys.stderr)
            timings.append((c.name, f"run failed (exit {done.returncode})", took))
        print(f"{c.name}: {took:.0f} s; {timings[-1][1]}", flush=True)
    _summary(group, timings)
    return timings


def _write(path: Path, document: Mapping[str, Any]) -> None:
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _summary(group: str, timings: Sequence[tuple[str, str, float]]) -> None:
    """Each column's cost, on the job's summary page, where a maintainer sees it beside the run."""
    page = os.environ.get("GITHUB_STEP_SUMMARY")
    if not page:
        return
    lines = [f"### {group}", "", "| column | seconds | result |", "|---|---|---|"]
    lines += [f"| {name} | {took:.0f} | {what} |" for name, what, took in timings]
    with open(page, "a", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plan", help="print the workflow's job matrix as JSON")
    p.add_argument("groups", nargs="*", metavar="GROUP")
    sub.add_parser("releases", help="print the release watch's job matrix as JSON")
    c = sub.add_parser("collect", help="gather the jobs' results files, marking a column with none as failed")
    c.add_argument("found", type=Path)
    c.add_argument("--into", type=Path, default=ROOT / RESULTS)
    r = sub.add_parser("run", help="build a group and run its columns")
    r.add_argument("group")
    r.add_argument("--out", type=Path, default=ROOT / RESULTS, help=f"where results go (default: {RESULTS})")
    r.add_argument("--columns", nargs="*", default=[], metavar="COLUMN", help="only these of the group")
    r.add_argument("--no-build", action="store_true", help="the group is built already")
    args = parser.parse_args(argv)
    try:
        manifest = load()
    except ManifestError as exc:
        print(f"columns: {exc}", file=sys.stderr)
        return 2
    if args.command == "releases":
        print(json.dumps(releases(manifest), sort_keys=True))
        return 0
    if args.command == "collect":
        missing = collect(manifest, args.found, args.into)
        for name in missing:
            print(f"columns: {name}: no results file uploaded; marked as failed", file=sys.stderr)
        return 0
    chosen = args.groups if args.command == "plan" else [args.group]
    unknown = [g for g in chosen if g not in manifest.groups]
    unknown += [c for c in getattr(args, "columns", []) if manifest.columns.get(c, Column(c, "")).group != args.group]
    if unknown:
        print(f"columns: not a group, or not a column of the group: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if args.command == "plan":
        print(json.dumps(plan(manifest, args.groups), sort_keys=True))
        return 0
    timings = run_group(manifest, args.group, args.out, args.columns, build=not args.no_build)
    # a failed column is data for the matrix, not a failure of this job; the merge shows it
    return 0 if timings else 1


if __name__ == "__main__":
    raise SystemExit(main())
