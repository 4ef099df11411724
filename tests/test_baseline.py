"""A baseline of expected failures: listed failures are xfail, new ones fail, stale entries fail the run,
and --update-baseline rewrites the file; in `conformance run` and in pytest alike."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from conformance.cli import main
from conformance.corpus.loading import load_corpus
from conformance.corpus.problems import InputError
from conformance.running.baseline import PLACEHOLDER, load_baseline, schema

# Fails the streamed cases only: the ids of streamed calls replaced by the tool's name.
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
STREAMED = "openai-chat/streamed-parallel-calls"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    (tmp_path / "streams.py").write_text(STREAMS_BROKEN, encoding="utf-8")
    sys.modules.pop("streams", None)
    return tmp_path


def _run(*extra: str) -> int:
    return main(["run", "--in-process", "--adapter", "streams:ADAPTER", "--api", "openai-chat", *extra])


def _entries(path: Path) -> dict[str, dict]:
    return {e["id"]: e for e in yaml.safe_load(path.read_text(encoding="utf-8"))["expected_failures"]}


def test_update_writes_a_baseline_that_then_makes_the_run_pass(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run("--report", "before.json") == 1
    failing = {c["id"] for c in json.loads((here / "before.json").read_text())["cases"] if c["outcome"] == "fail"}
    assert STREAMED in failing
    assert _run("--baseline", "baseline.yaml", "--update-baseline") == 1  # verdicts: the file as it was (none)
    assert "baseline rewritten: baseline.yaml" in capsys.readouterr().out
    entries = _entries(here / "baseline.yaml")
    assert set(entries) == failing
    assert entries[STREAMED]["reason"] == PLACEHOLDER and "roundtrip/id-altered" in entries[STREAMED]["codes"]
    jsonschema.validate(yaml.safe_load((here / "baseline.yaml").read_text()), schema())
    assert _run("--baseline", "baseline.yaml", "--report", "after.json") == 0
    out = capsys.readouterr().out
    assert f"{STREAMED}: XFAIL: expected by the baseline" in out
    assert f"{len(failing)} expected failure(s) seen, 0 stale, 0 new" in out
    after = json.loads((here / "after.json").read_text())
    assert after["counts"]["xfail"] == len(failing) and after["counts"]["fail"] == 0


def test_a_new_code_fails_and_a_passing_entry_is_stale(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = {
        "format": "toolcall-conformance/baseline",
        "version": 1,
        "expected_failures": [
            # listed, but with another code than it fails with: a new failure
            {"id": STREAMED, "codes": ["pairing/orphan-result"], "link": "https://example.invalid/1"},
            # passes: stale
            {"id": "openai-chat/one-call", "codes": ["roundtrip/id-altered"], "reason": "was broken"},
        ],
    }
    (here / "b.json").write_text(json.dumps(document), encoding="utf-8")
    assert _run("--baseline", "b.json", "--report", "r.json") == 1
    out = capsys.readouterr().out
    assert "beyond the baseline's pairing/orphan-result: " in out
    assert "openai-chat/one-call [streams-broken]: XPASS: expected to fail with roundtrip/id-altered" in out
    assert "stale (passes now): openai-chat/one-call" in out
    cases = {c["id"]: c for c in json.loads((here / "r.json").read_text())["cases"]}
    assert cases[STREAMED]["outcome"] == "fail" and cases["openai-chat/one-call"]["outcome"] == "xpass"
    assert _run("--baseline", "b.json", "--update-baseline") == 1
    rewritten = json.loads((here / "b.json").read_text())  # JSON stays JSON
    ids = [e["id"] for e in rewritten["expected_failures"]]
    assert "openai-chat/one-call" not in ids and STREAMED in ids
    kept = next(e for e in rewritten["expected_failures"] if e["id"] == STREAMED)
    assert kept["link"] == "https://example.invalid/1" and "roundtrip/id-altered" in kept["codes"]


def test_an_entry_for_a_case_the_corpus_lacks_is_stale(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "b.yaml").write_text(
        "format: toolcall-conformance/baseline\nversion: 1\nexpected_failures:\n"
        "  - id: openai-chat/renamed-long-ago\n    codes: [error]\n    reason: gone\n",
        encoding="utf-8",
    )
    assert main(["run", "--in-process", "--api", "kimi-chat", "--baseline", "b.yaml"]) == 1
    out = capsys.readouterr().out
    assert "FAILED: the baseline lists cases the corpus does not hold (stale): openai-chat/renamed-long-ago" in out


def test_a_bad_baseline_is_a_located_input_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "format: toolcall-conformance/baseline\nversion: 1\nexpected_failures:\n  - id: openai-chat/one-call\n"
        "    codes: [roundtrip/id-altered]\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as raised:
        load_baseline(bad)
    assert f"{bad}:4: [baseline]" in str(raised.value)  # no reason nor link
    assert main(["run", "--baseline", str(bad)]) == 2
    assert "the baseline file has problems" in capsys.readouterr().err
    assert main(["run", "--baseline", str(tmp_path / "missing.yaml")]) == 2


def test_the_pytest_plugin_honours_the_baseline(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(streams=STREAMS_BROKEN)
    args = ["--conformance-adapter=streams:ADAPTER", "--conformance-api=openai-chat", "--conformance-baseline=b.yaml"]
    first = pytester.runpytest_subprocess(*args, "--update-baseline")
    failed = first.parseoutcomes()["failed"]
    first.stdout.fnmatch_lines(["baseline rewritten: *b.yaml (* added with a placeholder reason, 0 dropped, 0 kept)"])
    second = pytester.runpytest_subprocess(*args)
    assert second.ret == pytest.ExitCode.OK
    chat = sum(s.api == "openai-chat" for s in load_corpus().scenarios.values())
    second.assert_outcomes(passed=chat - failed, xfailed=failed)
    document = yaml.safe_load((pytester.path / "b.yaml").read_text())
    document["expected_failures"].append({"id": "openai-chat/one-call", "codes": ["error"], "reason": "flaky"})
    (pytester.path / "b.yaml").write_text(yaml.safe_dump(document))
    stale = pytester.runpytest_subprocess(*args)
    assert stale.ret == pytest.ExitCode.TESTS_FAILED
    stale.assert_outcomes(passed=chat - failed - 1, xfailed=failed, failed=1)
    stale.stdout.fnmatch_lines(["*stale (passes now): openai-chat/one-call*"])
    broken = pytester.runpytest_subprocess(*args[:2], "--conformance-baseline=nowhere.yaml")
    assert broken.ret == pytest.ExitCode.USAGE_ERROR
