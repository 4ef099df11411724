"""Which harnesses in other languages a CI run builds and tests, and building them.

A run builds the units (harnesses/units.yaml) whose tracked files changed since they were last
verified (.ci/harnesses-verified.yaml), then the fixed sample, as far as the budget allows: a cold
toolchain cache makes the whole set cost more than CI's time limit (Go module downloads and Rust's
first compile alone take most of an hour), and the full set is the matrix workflow's fan-out.

    python scripts/harnesses.py plan              # what a run would build, why, and its cold cost
    python scripts/harnesses.py build [--all]     # build what the plan says (CI), each step timed
    python scripts/harnesses.py selected [--all]  # the units, comma-separated, for the tests to require
    python scripts/harnesses.py stamp UNIT ...    # record units as verified at their current files

A unit that changed is always built, even past the budget (its tests must run before it lands);
the plan then says so. Stamp a unit after its tests passed with its new files (locally, or in the
matrix workflow), and commit .ci/harnesses-verified.yaml with the change.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
UNITS = ROOT / "harnesses" / "units.yaml"
COLUMNS = ROOT / "scripts" / "columns.json"  # the matrix's column groups, each with its build command
VERIFIED = ROOT / ".ci" / "harnesses-verified.yaml"


@dataclass(frozen=True)
class Unit:
    name: str
    toolchain: str
    paths: tuple[str, ...]
    install: tuple[str, ...]
    tests: tuple[str, ...]
    cold_minutes: float


@dataclass(frozen=True)
class Manifest:
    units: dict[str, Unit]
    sample: tuple[str, ...]
    budget_minutes: float


@dataclass(frozen=True)
class Planned:
    unit: Unit
    reason: str  # "changed", "sample", or why it is not built
    built: bool


def load_manifest(path: Path = UNITS, columns: Path = COLUMNS) -> Manifest:
    """The units; a unit that names column `groups` is built by those groups' own build commands, so
    that CI and the matrix workflow build a harness the same way."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    groups = json.loads(columns.read_text(encoding="utf-8"))["groups"] if columns.exists() else {}
    units = {}
    for name, entry in data["units"].items():
        unknown = [g for g in entry.get("groups", ()) if g not in groups]
        if unknown:
            raise SystemExit(f"{path}: {name} names no column group {', '.join(unknown)} of {columns}")
        install = (*entry.get("install", ()), *(groups[g]["build"] for g in entry.get("groups", ())))
        units[name] = Unit(
            name=name,
            toolchain=str(entry["toolchain"]),
            paths=tuple(entry["paths"]),
            install=install,
            tests=tuple(entry["tests"]),
            cold_minutes=float(entry["cold_minutes"]),
        )
    unknown = [name for name in data["sample"] if name not in units]
    if unknown:
        raise SystemExit(f"{path}: the sample names no unit {', '.join(unknown)}")
    return Manifest(units, tuple(data["sample"]), float(data["budget_minutes"]))


def fingerprint(unit: Unit, root: Path = ROOT) -> str:
    """A digest of the unit's tracked files as they are in the work tree (names and bytes)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", *unit.paths], cwd=root, capture_output=True, check=True
    ).stdout.split(b"\0")
    digest = hashlib.sha256()
    for name in sorted(n for n in listed if n):
        digest.update(name + b"\0")
        file = root / name.decode()
        digest.update(file.read_bytes() if file.is_file() else b"(absent)")
        digest.update(b"\0")
    return digest.hexdigest()


def verified(path: Path = VERIFIED) -> dict[str, str]:
    if not path.exists():
        return {}
    return {str(k): str(v) for k, v in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items()}


def plan(manifest: Manifest, stamps: dict[str, str], every: bool = False, root: Path = ROOT) -> list[Planned]:
    """Changed units first (always built), then the sample while the budget lasts; the rest not built."""
    if every:
        return [Planned(unit, "every unit asked for", True) for unit in manifest.units.values()]
    changed = [u for u in manifest.units.values() if stamps.get(u.name) != fingerprint(u, root)]
    planned = [Planned(u, "changed since verified", True) for u in changed]
    spent = sum(u.cold_minutes for u in changed)
    for name in manifest.sample:
        unit = manifest.units[name]
        if unit in changed:
            continue
        if spent + unit.cold_minutes > manifest.budget_minutes:
            planned.append(Planned(unit, "sample, over the budget", False))
            continue
        spent += unit.cold_minutes
        planned.append(Planned(unit, "sample", True))
    chosen = {p.unit.name for p in planned}
    planned += [Planned(u, "unchanged since verified", False) for u in manifest.units.values() if u.name not in chosen]
    return planned


def render(planned: list[Planned], manifest: Manifest) -> str:
    width = max(len(p.unit.name) for p in planned)
    lines = [f"{'unit':<{width}}  {'toolchain':<9}  {'cold':>6}  plan"]
    for p in planned:
        verb = "build" if p.built else "skip"
        lines.append(f"{p.unit.name:<{width}}  {p.unit.toolchain:<9}  {p.unit.cold_minutes:>4.0f}m  {verb}: {p.reason}")
    cost = sum(p.unit.cold_minutes for p in planned if p.built)
    lines.append(f"cold-cache estimate {cost:.0f} min of a {manifest.budget_minutes:.0f} min budget")
    if cost > manifest.budget_minutes:
        lines.append(
            "over the budget: the changed units are built all the same; on a cold cache this run may not "
            "fit CI's limit (the matrix workflow builds each unit in a job of its own)"
        )
    return "\n".join(lines)


def build(planned: list[Planned], require: bool) -> int:
    for p in planned:
        if not p.built:
            continue
        if shutil.which(p.unit.toolchain) is None:
            message = f"{p.unit.name}: {p.unit.toolchain} is not on PATH"
            if require:
                print(f"scripts/harnesses.py: {message}", file=sys.stderr)
                return 1
            print(f"{message}; not built", file=sys.stderr)
            continue
        for command in p.unit.install:
            started = time.monotonic()
            print(f"== {p.unit.name}: {command}", flush=True)
            done = subprocess.run(command, shell=True, cwd=ROOT)
            if done.returncode != 0:
                print(f"scripts/harnesses.py: {p.unit.name}: `{command}` exited {done.returncode}", file=sys.stderr)
                return 1
            print(f"   {time.monotonic() - started:.0f} s", flush=True)
    return 0


def stamp(names: Sequence[str], manifest: Manifest, path: Path = VERIFIED) -> None:
    unknown = [n for n in names if n not in manifest.units]
    if unknown:
        raise SystemExit(f"no unit named {', '.join(unknown)} (harnesses/units.yaml)")
    stamps = verified(path)
    stamps.update({n: fingerprint(manifest.units[n]) for n in names})
    header = (
        "# The fingerprint of each harness unit's files when its tests last passed (scripts/harnesses.py\n"
        "# stamp). A unit whose files differ is built and tested by CI's next run.\n"
    )
    path.write_text(header + yaml.safe_dump(dict(sorted(stamps.items())), sort_keys=True), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("plan", "build", "selected"):
        one = sub.add_parser(name)
        one.add_argument("--all", action="store_true", help="every unit, whatever changed")
        if name == "build":
            one.add_argument("--require", action="store_true", help="a missing toolchain is an error")
    stamping = sub.add_parser("stamp")
    stamping.add_argument("units", nargs="+")
    args = parser.parse_args(argv)

    manifest = load_manifest()
    if args.command == "stamp":
        stamp(args.units, manifest)
        return 0
    planned = plan(manifest, verified(), every=args.all)
    if args.command == "selected":
        print(",".join(p.unit.name for p in planned if p.built))
        return 0
    print(render(planned, manifest), flush=True)
    return build(planned, args.require) if args.command == "build" else 0


if __name__ == "__main__":
    sys.exit(main())
