"""Run a column at its library's newest release beside the pinned one, and propose the new pin.

    python scripts/release_watch.py genkit-python                  # prints the proposal
    python scripts/release_watch.py vercel-ai --body pr.md --apply # and writes it, and the new pin, here

The column's `release` in scripts/columns.json names its registry (`pypi`, `npm`, `go`, `maven`,
`crates`), its package there, `major` when the column follows one major version, and `pin`: the file
and the pattern whose first group is the pinned version (every match is moved: a family of packages
released together moves together), and `relock`, the command that brings the lockfile in line.

The newest release is the highest version the registry lists that is not a pre-release (nor yanked).
When it is newer than the pin, the column is run in a copy of the checkout at the new version: the pin
moved, the lockfile relocked, the group built (a Python group in a virtual environment of its own), the
column run. The pinned side is the committed results file when it ran against the current corpus, else
run in the same copy first. The proposal lists the cases whose outcome changed, from the matrix's
versions view of the two results side by side. With `--apply`, the moved pin, its lockfile and the new
results file are written into the checkout (the workflow's release-watch job then regenerates the
matrix and opens the pull request).

Exit 0 with a proposal, or when the pin is the newest; 1 when the newest release does not build or run
(said, with the end of its log); 2 for a column without a release, or a registry that cannot be read.
Registry addresses can be pointed elsewhere (a mirror, a test's fake on 127.0.0.1) with `--registry
NAME=URL`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import venv
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

sys.path.insert(0, str(Path(__file__).resolve().parent))
import columns  # a sibling script, not a package
import run_workflow

REGISTRIES = {
    "pypi": "https://pypi.org",
    "npm": "https://registry.npmjs.org",
    "go": "https://proxy.golang.org",
    "maven": "https://repo1.maven.org/maven2",
    "crates": "https://index.crates.io",
}
USER_AGENT = "toolcall-conformance release watch (https://github.com/toolcall-conformance/toolcall-conformance)"


class WatchError(Exception):
    """A column or registry the watch cannot use: one line."""


def _get(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": "application/json, */*"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            body: bytes = response.read()
            return body
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise WatchError(f"{url}: {exc}") from exc


def _json(url: str) -> Any:
    try:
        return json.loads(_get(url))
    except ValueError as exc:
        raise WatchError(f"{url}: not JSON: {exc}") from exc


def _go_escape(module: str) -> str:
    """The module proxy's case encoding: an upper-case letter is `!` and its lower case."""
    return re.sub(r"[A-Z]", lambda m: "!" + m.group(0).lower(), module)


def _crate_path(name: str) -> str:
    """A crate's file in the sparse index: `1/a`, `2/ab`, `3/a/abc`, `ri/g-/rig-core`."""
    if len(name) <= 2:
        return f"{len(name)}/{name}"
    if len(name) == 3:
        return f"3/{name[0]}/{name}"
    return f"{name[:2]}/{name[2:4]}/{name}"


def published(registry: str, package: str, base: str) -> list[str]:
    """Every version the registry lists for the package, yanked ones left out."""
    base = base.rstrip("/")
    if registry == "pypi":
        data = _json(f"{base}/pypi/{package}/json")
        return [v for v, files in data.get("releases", {}).items() if files and not all(f.get("yanked") for f in files)]
    if registry == "npm":
        data = _json(f"{base}/{urllib.parse.quote(package, safe='@')}")
        return list(data.get("versions", {}))
    if registry == "go":
        text = _get(f"{base}/{_go_escape(package)}/@v/list").decode("utf-8", "replace")
        return [line.strip() for line in text.splitlines() if line.strip()]
    if registry == "maven":
        group, artifact = package.split(":", 1)
        metadata = _get(f"{base}/{group.replace('.', '/')}/{artifact}/maven-metadata.xml")
        try:
            root = ET.fromstring(metadata)
        except ET.ParseError as exc:
            raise WatchError(f"{package}: maven-metadata.xml cannot be read: {exc}") from exc
        return [v.text or "" for v in root.iter("version")]
    if registry == "crates":
        # the sparse index cargo itself reads: one JSON line per version
        text = _get(f"{base}/{_crate_path(package.lower())}").decode("utf-8", "replace")
        try:
            entries = [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError as exc:
            raise WatchError(f"{package}: the crate index cannot be read: {exc}") from exc
        return [str(e["vers"]) for e in entries if not e.get("yanked")]
    raise WatchError(f"no registry {registry!r} (of {', '.join(REGISTRIES)})")


def _version(text: str) -> Version | None:
    try:
        return Version(text.removeprefix("v"))
    except InvalidVersion:
        return None  # not a release number this watch can order (a Maven milestone `-M1`, say)


def newest(versions: Sequence[str], major: int | None = None) -> str | None:
    """The highest release that is not a pre-release, within `major` when given; as the registry spells it."""
    found = []
    for text in versions:
        v = _version(text)
        if v is None or v.is_prerelease or v.is_devrelease or (major is not None and v.major != major):
            continue
        found.append((v, text))
    return max(found)[1].removeprefix("v") if found else None


@dataclass(frozen=True)
class Pin:
    file: str
    pattern: str

    def read(self, root: Path) -> str:
        text = (root / self.file).read_text(encoding="utf-8")
        found = re.search(self.pattern, text)
        if not found:
            raise WatchError(f"{self.file}: no pin matches {self.pattern!r}")
        return found.group(1)

    def move(self, root: Path, version: str) -> None:
        path = root / self.file
        text = path.read_text(encoding="utf-8")

        def swap(m: re.Match[str]) -> str:
            whole, start = m.group(0), m.start(1) - m.start(0)
            return whole[:start] + version + whole[start + len(m.group(1)) :]

        path.write_text(re.sub(self.pattern, swap, text), encoding="utf-8")


@dataclass(frozen=True)
class Release:
    column: str
    registry: str
    package: str
    pin: Pin
    major: int | None
    relock: str


def release_of(manifest: columns.Manifest, column: str) -> Release:
    if column not in manifest.columns:
        raise WatchError(f"no column {column!r} in {columns.MANIFEST.name}")
    spec = manifest.columns[column].release
    if not spec:
        raise WatchError(f"column {column} names no release to watch (scripts/columns.json)")
    return Release(
        column,
        str(spec["registry"]),
        str(spec["package"]),
        Pin(*spec["pin"]),
        int(spec["major"]) if "major" in spec else None,
        str(spec.get("relock", "")),
    )


def _corpus_revision() -> str:
    from conformance.corpus.loading import load_corpus

    return load_corpus().revision()


def changes(pinned: Path, new: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The matrix of the two results side by side: its versions view of the column's library, and the
    two columns. The view lists every case, those whose outcome differs first."""
    from conformance.reports.matrix.generate import from_results

    document = from_results([pinned, new]).document
    group = document["groups"][0]
    views = [v for v in group["versions"] if len(v["columns"]) == 2]
    if not views:
        return {}, group["columns"]
    return views[0], group["columns"]


def body(release: Release, pinned: str, latest: str, view: Mapping[str, Any], cols: Sequence[Mapping[str, Any]]) -> str:
    lines = [
        f"# {release.column}: {pinned} to {latest}",
        "",
        f"The release watch ran the `{release.column}` column at {release.package} {latest}, the newest release "
        f"on {release.registry}, beside the pinned {pinned}, and moves the pin in `{release.pin.file}`.",
        "",
        "```text",
        *(str(c["summary"]) for c in cols),
        "```",
        "",
    ]
    changed = [r for r in view.get("cases", []) if r["differs"]]
    if not view:
        lines += ["The two runs do not stand side by side (another corpus revision, or a failed run); see above.", ""]
    elif not changed:
        lines += [f"No case changes its outcome ({len(view['cases'])} cases compared).", ""]
    else:
        keys = view["columns"]
        lines += [
            f"The outcome of {len(changed)} of {len(view['cases'])} cases changes:",
            "",
            f"| case | API | {pinned} | {latest} |",
            "|---|---|---|---|",
            *(
                f"| `{r['id']}` | {r['api']} | {r['outcomes'][keys[0]] or '—'} | {r['outcomes'][keys[1]] or '—'} |"
                for r in changed
            ),
            "",
        ]
    return "\n".join(lines)


class Watch:
    def __init__(self, release: Release, manifest: columns.Manifest, work: Path):
        self.release = release
        self.manifest = manifest
        self.group = manifest.columns[release.column].group
        self.work = work  # a copy of the checkout
        self.env: dict[str, str] = {}

    def prepare(self) -> None:
        run_workflow.workspace_copy(columns.ROOT, self.work)
        # Builds land beside the copy, not where the checkout's own harnesses are built: a binary of the
        # new release must never stand in for the pinned one in a later run.
        os.environ["CONFORMANCE_GO_BIN"] = str(self.work.parent / "go-bin")
        os.environ["CARGO_TARGET_DIR"] = str(self.work.parent / "cargo-target")
        if self.manifest.groups[self.group].toolchain == "python":
            # the group's frameworks go into an environment of their own, not the one running this watch
            target = self.work.parent / "python"
            venv.EnvBuilder(with_pip=True, clear=True).create(target)
            os.environ["PATH"] = f"{target / 'bin'}{os.pathsep}{os.environ['PATH']}"
            os.environ["VIRTUAL_ENV"] = str(target)

    def run(self, out: Path) -> tuple[str, Path]:
        """Build the group in the copy and run the column into `out`: (what happened, the results file)."""
        timings = columns.run_group(self.manifest, self.group, out, [self.release.column], root=self.work)
        return timings[0][1], out / f"{self.release.column}.json"

    def move(self, latest: str) -> str:
        self.release.pin.move(self.work, latest)
        if not self.release.relock:
            return ""
        done = subprocess.run(["bash", "-c", self.release.relock], cwd=self.work, capture_output=True, text=True)
        return "" if done.returncode == 0 else (done.stdout + done.stderr)[-columns.LOG_TAIL :]

    def changed_files(self) -> list[str]:
        """The checkout's files that the move changed in the copy."""
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=columns.ROOT, capture_output=True, text=True)
        out = []
        for name in filter(None, listed.stdout.split("\0")):
            copy, original = self.work / name, columns.ROOT / name
            if name.startswith(columns.RESULTS + "/"):
                continue
            if copy.is_file() and original.is_file() and copy.read_bytes() != original.read_bytes():
                out.append(name)
        return out


def watch(
    column: str,
    bases: Mapping[str, str],
    body_path: Path | None,
    apply: bool,
    keep: Path | None,
    manifest_path: Path = columns.MANIFEST,
) -> int:
    manifest = columns.load(manifest_path)
    release = release_of(manifest, column)
    pinned = release.pin.read(columns.ROOT)
    versions = published(release.registry, release.package, bases.get(release.registry, REGISTRIES[release.registry]))
    latest = newest(versions, release.major)
    print(f"{column}: {release.package} pinned {pinned}; newest on {release.registry}: {latest or 'none'}")
    if latest is None or (_version(latest) or Version("0")) <= (_version(pinned) or Version("0")):
        print(f"{column}: the pin is the newest release; nothing to propose")
        return 0
    work_root = Path(keep or tempfile.mkdtemp(prefix=f"release-watch-{column}-"))
    saved = dict(os.environ)
    try:
        return _beside(release, manifest, pinned, latest, work_root, body_path, apply)
    finally:
        # the copy's PATH, Go and cargo directories are the watch's only, not its caller's
        os.environ.clear()
        os.environ.update(saved)


def _beside(
    release: Release,
    manifest: columns.Manifest,
    pinned: str,
    latest: str,
    work_root: Path,
    body_path: Path | None,
    apply: bool,
) -> int:
    """The column run at `latest` in a copy of the checkout, beside the pinned results; the proposal."""
    column = release.column
    the_watch = Watch(release, manifest, work_root / "checkout")
    the_watch.prepare()
    committed = columns.ROOT / columns.RESULTS / f"{column}.json"
    document = json.loads(committed.read_text(encoding="utf-8")) if committed.is_file() else {}
    if document.get("corpus_revision") == _corpus_revision() and "failure" not in document:
        pinned_results = committed
        print(f"{column}: the pinned side is the committed {committed.relative_to(columns.ROOT)}")
    else:
        what, pinned_results = the_watch.run(work_root / "pinned")
        print(f"{column}: pinned {pinned}: {what}")
    failed = the_watch.move(latest)
    if failed:
        print(f"{column}: the lockfile cannot be moved to {latest}:\n{failed}", file=sys.stderr)
        return 1
    what, new_results = the_watch.run(work_root / "new")
    print(f"{column}: {latest}: {what}")
    new_document = json.loads(new_results.read_text(encoding="utf-8"))
    if "failure" in new_document:
        failure = new_document["failure"]
        print(f"{column}: {latest} does not {failure['stage']}; no pin proposed:\n{failure['log']}", file=sys.stderr)
        return 1
    view, cols = changes(pinned_results, new_results)
    text = body(release, pinned, latest, view, cols)
    print(text)
    if body_path is not None:
        body_path.write_text(text, encoding="utf-8")
    if apply:
        for name in the_watch.changed_files():
            shutil.copyfile(the_watch.work / name, columns.ROOT / name)
            print(f"{column}: moved {name}")
        shutil.copyfile(new_results, committed)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("column")
    parser.add_argument("--body", type=Path, help="write the pull request's body here (only when a pin is proposed)")
    parser.add_argument("--apply", action="store_true", help="write the moved pin, its lockfile and the results here")
    parser.add_argument("--registry", action="append", default=[], metavar="NAME=URL", help="a registry's address")
    parser.add_argument("--keep", type=Path, help="do the work in this directory, and keep it")
    parser.add_argument("--manifest", type=Path, default=columns.MANIFEST, help="the columns (scripts/columns.json)")
    args = parser.parse_args(argv)
    bases = {}
    for item in args.registry:
        name, _, url = item.partition("=")
        if name not in REGISTRIES or not url:
            parser.error(f"--registry {item!r}: NAME=URL, NAME one of {', '.join(REGISTRIES)}")
        bases[name] = url
    try:
        return watch(args.column, bases, args.body, args.apply, args.keep, args.manifest)
    except (WatchError, columns.ManifestError, run_workflow.WorkflowError) as exc:
        print(f"release_watch: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
