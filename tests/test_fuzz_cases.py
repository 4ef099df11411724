"""`conformance check` on broken case files and cassettes: every problem has a file, a rule and a line.

A small corpus (the OpenAI Chat wire types, five of its scenarios with their cassettes, and a
bug case) is copied aside and one of its files mutated: truncated, bit-flipped, a value of
another type anywhere, tags, alias bombs, deep nesting, duplicate keys, broken id patterns,
megabyte ids. Check's contract on each: it returns, in bounded time and output, every problem
located by file, rule and line; and a corpus it passes does not break a run.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from unittest import mock

import yaml
from conftest import ROOT
from fuzzing import MAX_RSS_BYTES, SECONDS, examples, json_junk, mutate_yaml, paths, peak_rss, replaced
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance import check
from conformance.reference import ADAPTER as REFERENCE
from conformance.running.runner import run_suite

SCENARIOS = ("one-call", "parallel-different-tools", "streamed-parallel-calls", "custom-tool-call", "three-turn-chain")
FILES = (
    [p.relative_to(ROOT) for p in sorted((ROOT / "cases" / "wire-types" / "openai-chat").glob("*.yaml"))]
    + [Path("cases/scenarios/openai-chat") / f"{s}.yaml" for s in SCENARIOS]
    + [Path("cassettes/openai-chat") / f"{s}.yaml" for s in SCENARIOS]
    + [Path("cases/bugs/genkit-3247.yaml")]
)
CASE_FILES = [f for f in FILES if f.parts[0] == "cases"]
BAD_PATTERNS = ["[", "(", "a{2,1}", "(?P<x", "\\", "*", "(?<=a+)b", 5, None, ["a"]]


def _small_corpus(root: Path) -> None:
    for relative in FILES:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / relative, root / relative)


def check_contract(root: Path, mutated: Path, marker: Path) -> None:
    cases, cassettes = root / "cases", root / "cassettes"
    started = time.perf_counter()
    with mock.patch.object(check, "default_roots", lambda *args: ([cases], [cassettes])):
        report = check.check_corpus(examples=False)
    elapsed = time.perf_counter() - started
    printed = "\n".join(str(p) for p in report.problems)
    for problem in report.problems:
        assert problem.path.startswith(str(root)), problem
        assert problem.rule, problem
        assert problem.line is not None, problem
    assert elapsed < SECONDS, f"{elapsed:.1f} s"
    assert len(printed) < 1_000_000 + 20 * mutated.stat().st_size
    assert peak_rss() < MAX_RSS_BYTES
    assert not marker.exists(), "a !!python tag ran"
    if report.problems:
        return
    # What check passes must run: a run over it may fail its cases, but nothing may break.
    assert report.corpus is not None
    for result in run_suite(REFERENCE, report.corpus, ["openai-chat"]):
        assert "the suite failed" not in result.summary, result.summary
        assert "the corpus is at fault" not in result.summary, result.summary


@settings(max_examples=examples(0.5))
@given(st.sampled_from(FILES), st.data())
def test_check_locates_every_problem_of_a_broken_file(relative: Path, data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _small_corpus(root)
        marker = root / "ran"
        mutated = root / relative
        content = mutate_yaml(data, mutated.read_text(), str(marker))
        mutated.write_bytes(content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content)
        check_contract(root, mutated, marker)


@settings(max_examples=examples(0.25))
@given(st.sampled_from(CASE_FILES), st.data())
def test_check_locates_wrong_types_in_case_files(relative: Path, data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _small_corpus(root)
        mutated = root / relative
        document = yaml.safe_load(mutated.read_text())
        where = data.draw(st.sampled_from(paths(document)), label="path")
        document = replaced(document, where, data.draw(json_junk(), label="junk"))
        mutated.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True))
        check_contract(root, mutated, root / "ran")


@settings(max_examples=examples(0.1))
@given(st.sampled_from(BAD_PATTERNS))
def test_check_reports_every_id_pattern_that_does_not_compile(pattern: object) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _small_corpus(root)
        mutated = root / "cases" / "wire-types" / "openai-chat" / "ChatCompletionMessageToolCall.yaml"
        document = yaml.safe_load(mutated.read_text())
        document["id_fields"][0].setdefault("limits", []).append(
            {"pattern": pattern, "observed": "2026-01-01", "source": "https://example.com/limits"}
        )
        mutated.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True))
        check_contract(root, mutated, root / "ran")
        with mock.patch.object(check, "default_roots", lambda *a: ([root / "cases"], [root / "cassettes"])):
            report = check.check_corpus(examples=False)
        assert any(p.path == str(mutated) and p.rule in ("pattern", "schema:type") for p in report.problems)
