"""What a run writes for CI and for a person chasing a bug: JUnit XML, the Markdown summary, every request
sent (--show-requests), and repeated violations folded into one block per code."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.engine.outcomes import CaseResult
from conformance.engine.violations import Violation
from conformance.reports.textreport import case_text

NAME_FOR_ID = """
from conformance import CodecAdapter
from conformance.reference.openai_chat import OpenAIChatCodec

class Mine(OpenAIChatCodec):
    def result_id(self, part):
        return part["name"]

ADAPTER = CodecAdapter(name="mine", version="9", codecs={"openai-chat": Mine()})
"""


def _chat_cases() -> int:
    from conformance.corpus.loading import load_corpus

    return sum(s.api == "openai-chat" for s in load_corpus().scenarios.values())


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    (tmp_path / "mine.py").write_text(NAME_FOR_ID, encoding="utf-8")
    sys.modules.pop("mine", None)
    return tmp_path


def test_junit_xml_and_the_markdown_summary(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["run", "--adapter", "mine:ADAPTER", "--api", "openai-chat", "--report", "r.json"]
    assert main([*args, "--junitxml", "out/junit.xml", "--summary-md", "summary.md"]) == 1
    suite = ET.parse(here / "out" / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    failures = [c for c in cases if c.find("failure") is not None]
    chat = _chat_cases()
    assert int(suite.get("tests", 0)) == len(cases) == chat
    assert int(suite.get("failures", 0)) == len(failures) >= 1
    one = next(c for c in cases if c.get("name") == "openai-chat/one-call")
    assert one.get("classname") == "conformance.openai-chat"
    failure = one.find("failure")
    assert failure is not None and "pairing/orphan-result" in (failure.text or "")
    summary = (here / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("### Tool-call id conformance: mine 9")
    assert f"**FAILED: {len(failures)} cases failing**" in summary
    assert "| API |" in summary and f" | **{chat}** |" in summary
    assert "| `openai-chat/one-call` | fail | pairing/missing-result, pairing/orphan-result |" in summary
    # appended, as $GITHUB_STEP_SUMMARY gathers steps
    main([*args, "--summary-md", "summary.md"])
    assert (here / "summary.md").read_text(encoding="utf-8").count("### Tool-call id conformance") == 2


def test_show_requests_prints_each_request_beside_the_recorded_one(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["run", "--adapter", "mine:ADAPTER", "--api", "openai-chat", "--show-requests"])
    out = capsys.readouterr().out
    block = out[out.index("openai-chat/one-call [mine]") :]
    assert "request[0] as sent:" in block and "request[0] as recorded: the same" in block
    assert "request[1] as recorded (- as sent, + as recorded):" in block
    assert '-      "tool_call_id": "get_weather",' in block
    assert '+      "tool_call_id": "call_Vq3XbR0LkS8mJ2tN6yPw4cDe",' in block
    main(["run", "--adapter", "mine:ADAPTER", "--api", "openai-chat"])
    assert "as sent:" not in capsys.readouterr().out


def test_show_requests_in_pytest(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(mine=NAME_FOR_ID)
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=mine:ADAPTER", "conformance::openai-chat/one-call", "--show-requests"
    )
    result.stdout.fnmatch_lines(["*request[[]1[]] as recorded (- as sent, + as recorded):", '*-*"get_weather",'])
    plain = pytester.runpytest_subprocess("--conformance-adapter=mine:ADAPTER", "conformance::openai-chat/one-call")
    assert "as sent:" not in plain.stdout.str()


def test_repeated_violations_of_one_code_fold_into_one_block() -> None:
    def orphan(i: int) -> Violation:
        return Violation(
            code="pairing/orphan-result",
            severity="error",
            location=f"request[1].messages[{i}].tool_call_id",
            message="The result matches no call.",
            expected="an id",
            received="get_weather",
        )

    other = Violation(code="roundtrip/id-altered", severity="error", location="request[1]", message="Altered.")
    result = CaseResult("openai-chat/x", "openai-chat", "fail", violations=[*(orphan(i) for i in range(300)), other])
    text = case_text(result)
    assert text.count("[x] pairing/orphan-result") == 1 and text.count("[x] roundtrip/id-altered") == 1
    assert "… and 299 more pairing/orphan-result like it, at request[1].messages[1].tool_call_id" in text
    assert "and 294 more" in text
    assert len(text.splitlines()) < 20


def test_a_long_diff_and_repeated_warnings_are_folded_too() -> None:
    from conformance.reports.textreport import DIFF_LINES, warning_lines

    diff = "\n".join(f"Value of ['request[1]'][{i}] changed" for i in range(DIFF_LINES + 50))
    result = CaseResult("openai-chat/x", "openai-chat", "fail", diff=diff)
    text = case_text(result)
    assert "… and 50 more changes (the results JSON holds them all)" in text
    assert len(text.splitlines()) < DIFF_LINES + 10
    unstable = [
        Violation(code="decode/unstable-id", severity="warning", location=f"response[{i}]", message="Unstable.")
        for i in range(40)
    ]
    lines = warning_lines([CaseResult("openai-chat/y", "openai-chat", "pass", violations=unstable)])
    assert lines == ["openai-chat/y: warning decode/unstable-id at response[0]: Unstable. (and 39 more like it)"]
