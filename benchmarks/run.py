"""The project's benchmark: each cost measured against its anchor in the same run, as a ratio.

    python benchmarks/run.py              # every measure, 7 paired runs each
    python benchmarks/run.py --runs 15 plugin client

Measures (each a median over paired runs, A then B alternating, whole processes timed by the
clock on the wall, as /usr/bin/time would):

- plugin-vcrpy: `pytest --conformance-adapter=reference` against what an adapter author would
  otherwise write: pytest with vcrpy replaying the same cassettes, one test per scenario, each
  recorded request sent through a plain HTTP client (urllib) and its status checked. Goal: at most
  0.5x.
- plugin: the same run against bare pytest collecting and passing as many trivial tests (reported:
  about 2x on two cores; the plugin's own items alone are 1.1x, the rest is the cases' play).
- plugin-parts: what that run is made of, each part against the same anchor, no goal of its own:
  the plugin's items alone (every case a pass, nothing played or judged), then each case played
  through the reference codec in process, then played and judged in process (`--conformance-in-process`).
  The default, isolated run is the `plugin` measure.
- client: the client connector (the official openai SDK's Chat Completions loop over every OpenAI
  Chat scenario, replayed and judged in process) against plain vcrpy replaying the same cassettes to
  the same loop, judging nothing. Goal: at most 1.2x.
- lint: `conformance lint` of a large cassette of many conversations against PyYAML's C parser
  loading the same file. Goal: within 2x (or at least 50 MB/s).
- lint-corpus: `conformance lint` over a whole directory of recordings (the bundled cassettes by
  default, or `--corpus DIR`, e.g. public recordings imported as docs/public-recordings.md says)
  against PyYAML's C parser loading every file, with a second anchor beside it: the same load plus
  `json.loads` of every body, the least any reader of the traffic does. Goal: within 2x of PyYAML.
- lint-1mb: lint of one 1 MB file, with lint-1mb-start beside it: lint's imports and wire types alone
  against the same anchor (reported, no goal: the part of lint's time that does not shrink with the
  file).
- rules: the rules' time against history length for every API, 100 to 100,000 messages
  (benchmarks/rules_scaling.py). Goal: at most 6x `json.loads` of the bodies judged, at every length.

Ratios are what to compare across machines; absolute times vary with the machine and its load.
Every measured process runs with bytecode written and read (PYTHONDONTWRITEBYTECODE is removed from
its environment), as a user's repeated runs go: with it set, an editable install recompiles on every
run (bare pytest about 0.65 s instead of 0.34 s). The header line says so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable


@dataclass(frozen=True)
class Measure:
    name: str
    what: str
    ratio: float  # median of the paired ratios
    a: float  # median seconds of the measured command
    b: float  # median seconds of its anchor
    goal: float | None  # None: a figure that explains another, with no goal of its own
    note: str = ""

    @property
    def within(self) -> bool:
        return self.goal is None or self.ratio <= self.goal


def _time(
    command: Sequence[str], cwd: Path, env: dict[str, str] | None = None, accept: tuple[int, ...] = (0, 1)
) -> float:
    """The command's wall time; an exit outside `accept` stops the benchmark (a run that failed
    early would be a fast, false anchor)."""
    started = time.perf_counter()
    completed = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if completed.returncode not in accept:
        raise SystemExit(f"{' '.join(command)} exited {completed.returncode}:\n{completed.stdout}\n{completed.stderr}")
    return elapsed


def paired(a: Callable[[], float], b: Callable[[], float], runs: int) -> tuple[float, float, float]:
    """Median ratio a/b over alternating runs (after one warm-up of each), and each median."""
    a(), b()
    ratios, times_a, times_b = [], [], []
    for _ in range(runs):
        ta, tb = a(), b()
        times_a.append(ta)
        times_b.append(tb)
        ratios.append(ta / tb)
    return statistics.median(ratios), statistics.median(times_a), statistics.median(times_b)


def _env() -> dict[str, str]:
    # As a user's runs go: bytecode (and pytest's rewritten bytecode of plugin modules) and the
    # corpus snapshot are written by the warm-up run and used by the measured ones.
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTEST_ADDOPTS", None)
    return env


PYTEST = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]


def _pytest_anchor(work: Path) -> tuple[Callable[[], float], int]:
    """Bare pytest collecting and passing as many trivial tests as the corpus has scenarios: the
    plugin's anchor, timed by the function returned; and that number."""
    from conformance.corpus.loading import load_corpus

    items = len(load_corpus().scenarios)
    plain = work / "plain"
    plain.mkdir()
    (plain / "test_trivial.py").write_text("\n".join(f"def test_{i}():\n    assert True\n" for i in range(items)))
    env = _env()
    return (lambda: _time([*PYTEST, "test_trivial.py"], plain, env)), items


def bench_plugin(runs: int, work: Path) -> Measure:
    anchor, items = _pytest_anchor(work)
    empty = work / "suite"
    empty.mkdir()
    env = _env()
    ratio, a, b = paired(lambda: _time([*PYTEST, "--conformance-adapter=reference"], empty, env), anchor, runs)
    return Measure("plugin", f"pytest --conformance-adapter=reference vs bare pytest, {items} items", ratio, a, b, None)


# One test per scenario: the cassette replayed by vcrpy, every recorded request sent again through
# urllib, and the status the recording holds checked. What an adapter author writes without the suite.
VCRPY_SUITE = """
import json
import urllib.error
import urllib.request

import pytest
import vcr
import yaml

from conformance.corpus.loading import load_corpus

CORPUS = load_corpus()
SCENARIOS = sorted(CORPUS.scenarios.values(), key=lambda s: s.id)
REPLAY = vcr.VCR(record_mode="none", match_on=("method", "scheme", "host", "port", "path", "query"))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_replays(scenario):
    path = CORPUS.cassette_path(scenario)
    recorded = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)["interactions"]
    with REPLAY.use_cassette(str(path)):
        for interaction in recorded:
            request = interaction["request"]
            body = request.get("body")
            if isinstance(body, dict):
                body = body.get("string")
            data = body.encode() if isinstance(body, str) else body
            sent = urllib.request.Request(request["uri"], data=data, method=request["method"])
            try:
                with urllib.request.urlopen(sent) as answer:
                    status = answer.status
                    answer.read()
            except urllib.error.HTTPError as error:
                status = error.code
            assert status == interaction["response"]["status"]["code"]
"""


def bench_plugin_vcrpy(runs: int, work: Path) -> Measure:
    from conformance.corpus.loading import load_corpus

    items = len(load_corpus().scenarios)
    plain = work / "vcrpy"
    plain.mkdir()
    (plain / "test_vcrpy_replay.py").write_text(VCRPY_SUITE)
    suite = work / "suite"
    suite.mkdir()
    env = _env()
    ratio, a, b = paired(
        lambda: _time([*PYTEST, "--conformance-adapter=reference"], suite, env, accept=(0,)),
        lambda: _time([*PYTEST, "-p", "no:conformance", "test_vcrpy_replay.py"], plain, env, accept=(0,)),
        runs,
    )
    what = f"pytest --conformance-adapter=reference vs pytest replaying the same cassettes with vcrpy, {items} items"
    return Measure("plugin-vcrpy", what, ratio, a, b, 0.5)


def bench_plugin_cold(runs: int, work: Path) -> Measure:
    """As on a fresh CI runner: nothing in the snapshot cache (each measured run gets an empty cache
    directory; an installed wheel's own snapshot is what such a runner has), bytecode as a `pip
    install` leaves it (none of pytest's rewritten kind)."""
    import tempfile

    anchor, items = _pytest_anchor(work)
    empty = work / "suite-cold"
    empty.mkdir()
    env = _env()

    import conformance

    package = Path(conformance.__file__).parent

    def cold() -> float:
        # pytest keeps its assertion-rewritten bytecode beside the ordinary kind; a fresh runner has none.
        for stale in package.rglob("*-pytest-*.pyc"):
            stale.unlink(missing_ok=True)
        fresh = {**env, "CONFORMANCE_CACHE_DIR": tempfile.mkdtemp(dir=work)}
        return _time([*PYTEST, "--conformance-adapter=reference"], empty, fresh)

    ratio, a, b = paired(cold, anchor, runs)
    what = f"pytest --conformance-adapter=reference with an empty snapshot cache vs bare pytest, {items} items"
    return Measure("plugin-cold", what, ratio, a, b, None)


# Loaded with `-p` into the in-process runs of plugin-parts: the part of each case left out is
# replaced by a pass, so that what remains is timed alone.
PARTS_PLUGIN = """
import os

import conformance.running.runner as runner
from conformance.engine.outcomes import CaseResult

part = os.environ["CONFORMANCE_BENCH_PART"]
if part == "items":
    runner.run_codec_case = lambda adapter, scenario, corpus, profile: CaseResult(scenario.id, scenario.api, "pass")
elif part == "played":
    runner.judged = lambda scenario, exchange, ctx, dialect, who: CaseResult(scenario.id, scenario.api, "pass")
"""


def bench_plugin_parts(runs: int, work: Path) -> list[Measure]:
    anchor, items = _pytest_anchor(work)
    suite = work / "suite"
    suite.mkdir()
    (suite / "bench_parts.py").write_text(PARTS_PLUGIN)
    in_process = [*PYTEST, "-p", "bench_parts", "--conformance-adapter=reference", "--conformance-in-process"]
    env = _env()
    parts = (
        ("plugin-items", "items", "the plugin's items alone: every case a pass, nothing played or judged"),
        ("plugin-played", "played", "each case played through the reference codec in process, not judged"),
        ("plugin-in-process", "judged", "each case played and judged in process (--conformance-in-process)"),
    )
    measures = []
    for name, part, what in parts:
        part_env = {**env, "CONFORMANCE_BENCH_PART": part, "PYTHONPATH": str(suite)}
        ratio, a, b = paired(lambda part_env=part_env: _time(in_process, suite, part_env), anchor, runs)
        measures.append(Measure(name, f"{what}, vs bare pytest, {items} items", ratio, a, b, None))
    return measures


CLIENT_CONNECTOR = """
from conformance.clients.openai_sdk import ADAPTER
from conformance.corpus.loading import load_corpus
from conformance.running.runner import RunOptions, run_suite
corpus = load_corpus()
results = run_suite(ADAPTER, corpus, ["openai-chat"], options=RunOptions(timeout=60))
"""

PLAIN_VCRPY = """
import vcr
from conformance.clients.openai_sdk import chat_tool_loop
from conformance.connectors.client import tool_loop
from conformance.recordings.cassette import load_cassette
from conformance.corpus.loading import load_corpus
corpus = load_corpus()
for scenario in sorted(corpus.scenarios.values(), key=lambda s: s.id):
    if scenario.api != "openai-chat" or scenario.history is not None:
        continue
    path = corpus.cassette_path(scenario)
    loop = tool_loop(scenario, None, load_cassette(path))
    with vcr.VCR(record_mode="none", match_on=("method", "path")).use_cassette(str(path)):
        try:
            chat_tool_loop(loop)
        except Exception:
            pass
"""


def bench_client(runs: int, work: Path) -> Measure:
    (work / "connector.py").write_text(CLIENT_CONNECTOR)
    (work / "vcrpy.py").write_text(PLAIN_VCRPY)
    env = _env()
    ratio, a, b = paired(
        lambda: _time([PYTHON, "connector.py"], work, env),
        lambda: _time([PYTHON, "vcrpy.py"], work, env),
        runs,
    )
    return Measure("client", "client connector (openai SDK, OpenAI Chat) vs plain vcrpy", ratio, a, b, 1.2)


def big_cassette(path: Path, megabytes: float) -> int:
    """A cassette of many independent conversations: every bundled cassette's interactions, over and
    over, until the file is about `megabytes` large."""
    import yaml

    from conformance.corpus.loading import load_corpus

    class Dumper(yaml.CSafeDumper):
        def ignore_aliases(self, data: object) -> bool:
            return True  # a recorded cassette repeats no node by reference: write each copy out

    corpus = load_corpus()
    interactions: list[object] = []
    for scenario in sorted(corpus.scenarios.values(), key=lambda s: s.id):
        data = yaml.load(corpus.cassette_path(scenario).read_text(), Loader=yaml.CSafeLoader)
        interactions.extend(data["interactions"])
    one = len(yaml.dump({"interactions": interactions}, Dumper=Dumper))
    wanted = megabytes * 1024 * 1024
    if wanted < one:  # a part of the corpus's interactions, in order
        interactions = interactions[: max(1, int(len(interactions) * wanted / one))]
    copies = max(1, int(wanted / one))
    text = yaml.dump({"interactions": interactions * copies}, Dumper=Dumper)
    path.write_text(text)
    return len(text)


def bench_lint(runs: int, work: Path, megabytes: float = 10) -> Measure:
    path = work / f"many-conversations-{megabytes:g}.yaml"
    size = big_cassette(path, megabytes)
    parse = "import yaml, sys; yaml.load(open(sys.argv[1], 'rb'), Loader=yaml.CSafeLoader)"
    env = _env()
    ratio, a, b = paired(
        lambda: _time([PYTHON, "-m", "conformance.cli", "lint", str(path)], work, env),
        lambda: _time([PYTHON, "-c", parse, str(path)], work, env),
        runs,
    )
    name = "lint" if megabytes == 10 else f"lint-{megabytes:g}mb"
    megabytes = size / 1024 / 1024
    note = f"{megabytes:.1f} MB: lint {megabytes / a:.1f} MB/s, PyYAML's C parser {megabytes / b:.1f} MB/s"
    return Measure(name, "conformance lint vs PyYAML's C parser on the same file", ratio, a, b, 2.0, note)


# The anchors of lint-corpus: every file loaded by PyYAML's C parser; and that plus json.loads of every
# body (request and response), the least any reader of the traffic does.
LOAD_CORPUS = """
import json, sys, yaml
from pathlib import Path
bodies = "--bodies" in sys.argv
for path in sorted(Path(sys.argv[1]).rglob("*.yaml")):
    data = yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)
    if not bodies or not isinstance(data, dict):
        continue
    for interaction in data.get("interactions") or ():
        for side in ("request", "response"):
            body = interaction.get(side, {}).get("body")
            text = body.get("string") if isinstance(body, dict) else body
            try:
                json.loads(text or "null")
            except ValueError:
                pass  # a stream or a form: read as text only
"""


def bench_lint_corpus(runs: int, work: Path, corpus: Path | None = None) -> list[Measure]:
    directory = corpus or ROOT / "cassettes"
    files = sorted(directory.rglob("*.yaml"))
    if not files:
        raise SystemExit(f"lint-corpus: no *.yaml file under {directory}")
    size = sum(f.stat().st_size for f in files) / 1024 / 1024
    (work / "load.py").write_text(LOAD_CORPUS)
    env = _env()
    lint = [PYTHON, "-m", "conformance.cli", "lint", *map(str, files)]
    measures = []
    for name, extra, what, goal in (
        ("lint-corpus", [], "PyYAML's C parser loading every file", 2.0),
        ("lint-corpus-json", ["--bodies"], "PyYAML's C parser and json.loads of every body", None),
    ):
        ratio, a, b = paired(
            # A recorded corpus holds files that are no cassette (other YAML in cassette folders): lint
            # refuses each with a line and exits 2, having read the rest.
            lambda: _time(lint, work, env, accept=(0, 1, 2)),
            lambda extra=extra: _time([PYTHON, "load.py", str(directory), *extra], work, env),
            runs,
        )
        note = (
            f"{len(files)} files, {size:.1f} MB under {directory.name}/: "
            f"lint {size / a:.1f} MB/s, anchor {size / b:.1f} MB/s"
        )
        measures.append(
            Measure(name, f"conformance lint over a directory of recordings vs {what}", ratio, a, b, goal, note)
        )
    return measures


LINT_START = (
    "import conformance.cli, conformance.lint, conformance.importer.formats; "
    "from conformance.corpus.loading import load_corpus; load_corpus(wire_types_only=True)"
)


def bench_lint_start(runs: int, work: Path, megabytes: float = 1) -> Measure:
    """What lint does before it reads a byte of the file (its imports and the wire types), against
    PyYAML's whole load of the file: the part of lint's time that does not shrink with the file."""
    path = work / f"many-conversations-{megabytes:g}.yaml"
    if not path.exists():
        big_cassette(path, megabytes)
    parse = "import yaml, sys; yaml.load(open(sys.argv[1], 'rb'), Loader=yaml.CSafeLoader)"
    env = _env()
    ratio, a, b = paired(
        lambda: _time([PYTHON, "-c", LINT_START], work, env),
        lambda: _time([PYTHON, "-c", parse, str(path)], work, env),
        runs,
    )
    what = f"lint's start (imports, wire types; no file read) vs PyYAML's C parser loading {megabytes:g} MB"
    return Measure(f"lint-{megabytes:g}mb-start", what, ratio, a, b, None)


def bench_rules(runs: int, work: Path) -> tuple[list[str], bool]:
    """The rules' table, and whether every API checks each history within 6x reading its bodies
    (rules_scaling.py exits 1 when one does not, and says which)."""
    script = ROOT / "benchmarks" / "rules_scaling.py"
    completed = subprocess.run(
        [PYTHON, str(script), "--repeat", str(max(1, min(runs, 3)))], capture_output=True, text=True, env=_env()
    )
    if completed.returncode not in (0, 1):
        raise SystemExit(f"rules_scaling.py failed:\n{completed.stdout}\n{completed.stderr}")
    return completed.stdout.rstrip().splitlines(), completed.returncode == 0


def table(measures: Sequence[Measure]) -> str:
    rows = [("measure", "ratio", "goal", "", "measured", "anchor", "what")]
    for m in measures:
        verdict = "" if m.goal is None else "within" if m.within else "OVER"
        goal = "" if m.goal is None else f"<= {m.goal:g}x"
        rows.append((m.name, f"{m.ratio:.2f}x", goal, verdict, f"{m.a:.2f} s", f"{m.b:.2f} s", m.what))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    lines += [f"{m.name}: {m.note}" for m in measures if m.note]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=textwrap.dedent(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "measures",
        nargs="*",
        metavar="MEASURE",
        help="plugin-vcrpy, plugin, plugin-cold, plugin-parts, client, lint, lint-corpus, lint-1mb or rules "
        "(default: all)",
    )
    parser.add_argument("--runs", type=int, default=7, help="paired runs per measure (default 7)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument(
        "--corpus", metavar="DIR", type=Path, help="lint-corpus's directory of recordings (default: cassettes/)"
    )
    args = parser.parse_args(argv)
    known = (
        "plugin-vcrpy",
        "plugin",
        "plugin-cold",
        "plugin-parts",
        "client",
        "lint",
        "lint-corpus",
        "lint-1mb",
        "rules",
    )
    unknown = [m for m in args.measures if m not in known]
    if unknown:
        parser.error(f"unknown measure {', '.join(unknown)}; choose from {', '.join(known)}")
    chosen = args.measures or list(known)
    measures: list[Measure] = []
    rules: list[str] = []
    rules_within = True
    with tempfile.TemporaryDirectory(prefix="conformance-bench-") as tmp:
        work = Path(tmp)
        for name in chosen:
            place = work / name
            place.mkdir()
            if name == "rules":
                rules, rules_within = bench_rules(args.runs, place)
            elif name == "plugin-parts":
                measures.extend(bench_plugin_parts(args.runs, place))
            elif name == "lint-corpus":
                measures.extend(bench_lint_corpus(args.runs, place, args.corpus))
            elif name == "lint-1mb":
                measures.append(bench_lint(args.runs, place, megabytes=1))
                measures.append(bench_lint_start(args.runs, place, megabytes=1))
            else:
                bench = {
                    "plugin-vcrpy": bench_plugin_vcrpy,
                    "plugin": bench_plugin,
                    "plugin-cold": bench_plugin_cold,
                    "client": bench_client,
                    "lint": bench_lint,
                }[name]
                measures.append(bench(args.runs, place))
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {args.runs} paired runs per measure, "
        "bytecode written and read (PYTHONDONTWRITEBYTECODE unset in every measured process)"
    )
    if measures:
        print(table(measures))
    if rules:
        print()
        print("\n".join(rules))
    if args.json:
        Path(args.json).write_text(json.dumps([m.__dict__ for m in measures], indent=2) + "\n")
    return 0 if all(m.within for m in measures) and rules_within else 1


if __name__ == "__main__":
    raise SystemExit(main())
