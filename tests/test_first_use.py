"""What a new user meets first: rerunning a printed case id, an adapter given as a file, the exit codes
the docs promise, and summaries that say what they counted."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from conformance.cli import main

TWO_APIS = """
from conformance import CodecAdapter
from conformance.reference.openai_chat import OpenAIChatCodec
from conformance.reference.anthropic_messages import AnthropicMessagesCodec

ADAPTER = CodecAdapter(
    name="two", version="2", codecs={"openai-chat": OpenAIChatCodec(), "anthropic-messages": AnthropicMessagesCodec()}
)
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    return tmp_path


def test_the_node_id_pytest_prints_reruns_that_case(pytester: pytest.Pytester) -> None:
    first = pytester.runpytest_subprocess(
        "--conformance-adapter=conformance.reproductions.genkit:GENKIT_3247", "--conformance-api=openai-chat", "-rf"
    )
    printed = re.search(r"FAILED (conformance::openai-chat/\S+)", first.stdout.str())
    assert printed, first.stdout.str()
    again = pytester.runpytest_subprocess(
        "--conformance-adapter=conformance.reproductions.genkit:GENKIT_3247", printed.group(1), "-p", "no:cacheprovider"
    )
    assert again.ret == pytest.ExitCode.TESTS_FAILED  # ran, and failed as before: not 4 "not found"
    again.assert_outcomes(failed=1)
    # An id prefix runs that API's cases; an unknown id is a usage error naming the closest.
    prefix = pytester.runpytest_subprocess("--conformance-adapter=reference", "conformance::kimi-chat")
    assert prefix.ret == pytest.ExitCode.OK and prefix.parseoutcomes()["passed"] >= 2
    typo = pytester.runpytest_subprocess("--conformance-adapter=reference", "conformance::openai-chat/one-cal")
    assert typo.ret == pytest.ExitCode.USAGE_ERROR
    typo.stderr.fnmatch_lines(
        ["*no conformance case conformance::openai-chat/one-cal (did you mean openai-chat/one-call*"]
    )


def test_an_adapter_given_as_a_file_path_loads_in_pytest(pytester: pytest.Pytester) -> None:
    pytester.mkpydir("sub")
    pytester.path.joinpath("sub", "myadapter.py").write_text(TWO_APIS, encoding="utf-8")
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=./sub/myadapter.py:ADAPTER", "conformance::openai-chat/one-call"
    )
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    result.assert_outcomes(passed=1)
    no_suffix = pytester.runpytest_subprocess("--conformance-adapter=./sub/myadapter:ADAPTER")
    assert no_suffix.ret == pytest.ExitCode.USAGE_ERROR
    no_suffix.stderr.fnmatch_lines(["*write ./sub/myadapter.py:ADAPTER (a file) or myadapter:ADAPTER*"])
    assert "package" not in no_suffix.stderr.str()


def test_an_adapter_given_as_a_file_path_loads_in_run(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "mine.py").write_text(TWO_APIS, encoding="utf-8")
    sys.modules.pop("mine", None)
    for isolation in ([], ["--in-process"]):
        assert main(["run", "--adapter", "./mine.py:ADAPTER", "--api", "kimi-chat", *isolation]) == 1  # skips only
        assert "the adapter serves none of the selected APIs" in capsys.readouterr().out
        assert main(["run", "--adapter", "./mine.py:ADAPTER", "--api", "openai-chat", *isolation]) == 0
        capsys.readouterr()
    assert main(["run", "--adapter", "./missing.py:ADAPTER"]) == 2
    assert "no file './missing.py'" in capsys.readouterr().err


def test_a_k_that_matches_nothing_exits_1_as_documented(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--conformance-adapter=reference", "-k", "nothing_matches")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    plugin_doc = (ROOT / "docs" / "plugin.md").read_text(encoding="utf-8")
    assert "deselected" in plugin_doc and "(exit 1)" in plugin_doc


def test_the_summary_speaks_of_the_selected_apis(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(myadapter=TWO_APIS)
    result = pytester.runpytest_subprocess("--conformance-adapter=myadapter:ADAPTER", "--conformance-api=openai-chat")
    result.stdout.fnmatch_lines(["counted: the 1 selected API"])
    assert "the adapter serves" not in result.stdout.str().split("tool-call id conformance")[1]
    whole = pytester.runpytest_subprocess("--conformance-adapter=myadapter:ADAPTER")
    whole.stdout.fnmatch_lines(["counted: the 2 APIs the adapter serves; not counted: *"])


def test_lint_never_says_clean_above_warnings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "cassettes" / "openai-chat" / "one-call.yaml").read_text(encoding="utf-8")
    ids = set(re.findall(r"call_[A-Za-z0-9]{10,}", text))
    assert ids
    for call_id in ids:  # 41 to 64 characters: a warning (compatible servers still cap ids at 40)
        text = text.replace(call_id, call_id + "x" * 30)
    path = tmp_path / "long-ids.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["lint", str(path)]) == 0
    out = capsys.readouterr().out
    assert "(warning)" in out
    assert ": clean" not in out
    assert "no errors, 2 warnings" in out.splitlines()[0]


def test_serve_that_judged_nothing_fails(tmp_path: Path) -> None:
    import subprocess

    server = subprocess.Popen(
        [sys.executable, "-m", "conformance.cli", "serve", "openai-chat/one-call"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None and server.stdin is not None
    server.stdout.readline()
    server.stdin.close()
    assert server.wait(timeout=60) == 1
    assert server.stderr is not None
    assert "FAILED: no case was judged" in server.stderr.read()


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


def test_a_last_failed_rerun_never_replaces_a_complete_results_file(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(streams=STREAMS_BROKEN)
    spec = "--conformance-adapter=streams:ADAPTER"
    first = pytester.runpytest_subprocess(spec, "--conformance-api=openai-chat", "--conformance-report=r.json")
    complete = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert complete["complete"] is True and 1 <= complete["counts"]["fail"] < complete["counts"]["pass"]
    failed = first.parseoutcomes()["failed"]
    rerun = pytester.runpytest_subprocess(spec, "--conformance-api=openai-chat", "--conformance-report=r.json", "--lf")
    rerun.assert_outcomes(failed=failed)
    rerun.stdout.fnmatch_lines(["*merged into the complete file: * case(s) kept from the earlier run*"])
    merged = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert merged["complete"] is True
    assert merged["counts"] == complete["counts"]
    assert len(merged["carried_over"]) == len(complete["cases"]) - failed
    # Another adapter's partial run goes beside the file, which stays as it was.
    other = pytester.runpytest_subprocess(
        "--conformance-adapter=reference", "--conformance-api=openai-chat", "--conformance-report=r.json", "-k", "one"
    )
    assert other.ret == pytest.ExitCode.OK
    assert json.loads((pytester.path / "r.json").read_text(encoding="utf-8")) == merged
    beside = json.loads((pytester.path / "r.partial.json").read_text(encoding="utf-8"))
    assert beside["complete"] is False and beside["adapter"]["name"] == "reference"


def test_a_bare_conformance_argument_names_every_case_unless_it_is_a_path(tmp_path: Path) -> None:
    from conformance.node_ids import take_case_args

    args = ["conformance", "tests/x.py", "conformance::gemini/one-call"]
    assert take_case_args(args, "conformance::", tmp_path) == ["", "gemini/one-call"]
    assert args == ["tests/x.py"]
    (tmp_path / "conformance").mkdir()
    args = ["conformance", "conformance::gemini"]
    assert take_case_args(args, "conformance::", tmp_path) == ["gemini"]
    assert args == ["conformance"]
    assert take_case_args(["tests"], "conformance::", tmp_path) is None
