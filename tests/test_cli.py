"""The `conformance` command: exit codes and what it prints."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import REAL_TRAFFIC, ROOT

from conformance.cli import main
from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import BugCase, Corpus
from conformance.engine.neutral import ToolResultPart
from conformance.reference.openai_chat import OpenAIChatCodec


def test_run_prints_the_summary_and_exits_zero(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["run", "--report", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert "adapter: reference" in out and "openai-chat" in out
    assert json.loads((tmp_path / "r.json").read_text())["counts"]["fail"] == 0


def test_run_with_a_buggy_adapter_exits_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--adapter", "genkit-3247", "--api", "openai-chat"]) == 1
    assert "roundtrip/id-altered" in capsys.readouterr().out


@pytest.mark.parametrize("bug", ["genkit-3247", "genkit-3536"])
def test_reproduce_succeeds_for_the_genkit_bugs(bug: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", bug, "--no-harness"]) == 0
    out = capsys.readouterr().out
    assert "REPRODUCED" in out


def test_reproduce_3247_says_what_the_issue_asks(capsys: pytest.CaptureFixture[str]) -> None:
    main(["reproduce", "genkit-3247", "--no-harness"])
    out = capsys.readouterr().out
    assert "roundtrip/id-altered" in out
    assert "the id sent is the tool's name ('get_weather')" in out
    assert "expected: 'call_Vq3XbR0LkS8mJ2tN6yPw4cDe'" in out
    assert "OpenAI's error for this: Invalid parameter: messages with role 'tool'" in out


def test_reproduce_says_the_adapter_is_a_fallback_without_the_harness_toolchain(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """genkit-2224 names a Go harness for Genkit Go itself; without go on PATH the Python reproduction
    runs, and says so."""
    import conformance.connectors.harness as harness

    monkeypatch.setattr(harness.shutil, "which", lambda tool: None)
    assert main(["reproduce", "genkit-2224"]) == 0
    out = capsys.readouterr().out
    assert "conformance.reproductions.genkit:GENKIT_2224 (a fallback: go is not on PATH" in out
    assert "REPRODUCED" in out


def test_reproduce_headline_says_the_python_reproduction_ran_not_the_library(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A stand-in's REPRODUCED must not read like a run of Genkit Go: the headline and the verdict say
    which library, which version, and that the Python reproduction ran."""
    assert main(["reproduce", "genkit-3247", "--no-harness"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(
        "genkit-3247 in genkit-ai/genkit go/plugins/compat_oai before 46594d26 (PR #3248) "
        "(its Python reproduction, not the library itself): "
    )
    assert lines[-1] == (
        "REPRODUCED in genkit-ai/genkit go/plugins/compat_oai before 46594d26 (PR #3248) by the Python "
        "reproduction only: reproduces: pairing/missing-result, pairing/orphan-result, roundtrip/id-altered"
    )


class _OutputAsResultId(OpenAIChatCodec):
    """Genkit Go 0.7.0 as its harness shows it: the served id on the call, the output as tool_call_id."""

    def encode_result(self, part: ToolResultPart) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": part["output"], "content": part.get("name") or ""}


class _Released(CodecAdapter):
    def close(self) -> None:
        pass


def test_reproduce_headline_says_what_the_release_ran_shows(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """genkit-3247's description has both halves of the bug; Genkit Go 0.7.0 shows one. With the
    library itself running, the headline names it and its version and says what it shows."""
    import conformance.connectors.harness as harness

    def started(bug: BugCase, corpus: Corpus) -> tuple[harness.BugHarness, str]:
        released = _Released(name="genkit-go", version="0.7.0", codecs={"openai-chat": _OutputAsResultId()})
        expected = tuple(bug.data["harness"]["expected"])
        return harness.BugHarness(released, dataclasses.replace(bug, expected=expected)), "the harness (stub)"  # type: ignore[arg-type]

    monkeypatch.setattr(harness, "bug_harness", started)
    assert main(["reproduce", "genkit-3247"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "genkit-3247 in genkit-go 0.7.0 (the library itself): Genkit Go 0.7.0 compat_oai sends the tool's output "
        "as the tool message's id; the call already carries the served id (PR #3248), so of the two halves only "
        "the tool message naming no call remains"
    )
    assert lines[-1] == (
        "REPRODUCED in genkit-go 0.7.0 by the library itself: reproduces: pairing/missing-result, pairing/orphan-result"
    )


def test_reproduce_fails_when_the_codes_differ(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bugs = tmp_path / "cases" / "bugs"
    bugs.mkdir(parents=True)
    case = yaml.safe_load((ROOT / "cases" / "bugs" / "genkit-3247.yaml").read_text())
    case.update(
        id="demo-3247",
        description="Demo of a bug case whose expected codes are wrong",
        expected=["pairing/missing-result", "pairing/orphan-result"],
    )
    (bugs / "demo-3247.yaml").write_text(yaml.safe_dump(case))
    assert main(["reproduce", "demo-3247", "--cases", str(tmp_path / "cases")]) == 1
    out = capsys.readouterr().out
    assert "NOT REPRODUCED" in out and "found but not expected: roundtrip/id-altered" in out


def test_reproduce_unknown_bug_exits_two(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "nobody-1"]) == 2


def test_lint_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean = ROOT / "cassettes" / "openai-chat" / "three-turn-chain.yaml"
    assert main(["lint", str(clean)]) == 0
    data = yaml.safe_load(clean.read_text())
    request = json.loads(data["interactions"][1]["request"]["body"])
    request["messages"][1]["tool_calls"][0]["id"] = "lookup_population"
    data["interactions"][1]["request"]["body"] = json.dumps(request)
    broken = tmp_path / "broken.yaml"
    broken.write_text(yaml.safe_dump(data))
    assert main(["lint", str(broken)]) == 1
    out = capsys.readouterr().out
    assert "roundtrip/id-altered" in out and "pairing/orphan-result" in out
    garbage = tmp_path / "garbage.yaml"
    garbage.write_text("interactions: [")
    assert main(["lint", str(garbage)]) == 2


REAL_CHAT = [
    REAL_TRAFFIC / "llm" / "test_tool_use_chain_of_two_calls.yaml",
    REAL_TRAFFIC / "llm" / "test_tools_streaming_variant_a.yaml",
    REAL_TRAFFIC / "pydantic-ai" / "test_run_stream_sync_streams_real_model.yaml",
]


@pytest.mark.skipif(not REAL_TRAFFIC.is_dir(), reason="the shared real-traffic recordings are not beside this checkout")
def test_lint_reports_the_real_openai_chat_recordings_clean(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", *map(str, REAL_CHAT)]) == 0
    out = capsys.readouterr().out
    assert out.count("checked openai-chat") == 3 and out.count(": clean") == 3


def test_check_passes_on_the_bundled_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check"]) == 0
    assert "no problems" in capsys.readouterr().out


def test_lint_shows_a_provider_error_response(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = yaml.safe_load((ROOT / "cassettes" / "openai-chat" / "one-call.yaml").read_text())
    data["interactions"][1]["response"] = {
        "status": {"code": 400, "message": "Bad Request"},
        "headers": {"content-type": ["application/json"]},
        "body": {"string": '{"error": {"message": "Invalid parameter"}}'},
    }
    path = tmp_path / "rejected.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["lint", str(path)]) == 0
    assert 'note: response[1]: HTTP 400: {"error": {"message": "Invalid parameter"}}' in capsys.readouterr().out


def test_each_command_is_a_module_of_its_own_and_the_docs_read_the_run_parser_the_command_line_uses() -> None:
    import argparse

    from conformance.cli import build_parser, run_parser
    from conformance.commands import COMMANDS

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert [c.__name__.rpartition(".")[2].rstrip("_") for c in COMMANDS] == list(sub.choices)
    assert all(sub.choices[name].get_default("func") is c.main for name, c in zip(sub.choices, COMMANDS, strict=True))
    assert run_parser().format_help() == sub.choices["run"].format_help()
