"""`conformance run` in CI: what it prints, when it fails, and the adapters it can find."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from conformance.cli import main
from conformance.corpus.loading import Corpus

OPENAI_CHAT = """
from conformance import CodecAdapter
from conformance.reference.openai_chat import OpenAIChatCodec

ADAPTER = CodecAdapter(name="mylib", version="1.2.3", codecs={"openai-chat": OpenAIChatCodec()})
NUMBER = 5
"""

UNSTABLE = """
import uuid
from conformance import CodecAdapter
from conformance.reference.openai_chat import OpenAIChatCodec

class Unstable(OpenAIChatCodec):
    def decode_call(self, entry):
        part = super().decode_call(entry)
        if not part["call_id"]:
            part["call_id"] = f"call_{uuid.uuid4().hex[:24]}"
        return part

ADAPTER = CodecAdapter(name="unstable", version="1", codecs={"openai-chat": Unstable()})
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh current directory, left off sys.path as `conformance` (a console script) leaves it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    return tmp_path


def _module(directory: Path, name: str, text: str) -> None:
    (directory / f"{name}.py").write_text(text, encoding="utf-8")
    sys.modules.pop(name, None)


def test_an_unknown_api_is_an_input_error_naming_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--api", "openai_chat"]) == 2
    err = capsys.readouterr().err
    assert "unknown API 'openai_chat' (did you mean 'openai-chat'?); known: openai-chat," in err


def test_an_adapter_in_the_current_directory_is_found(
    here: Path, corpus: Corpus, capsys: pytest.CaptureFixture[str]
) -> None:
    _module(here, "cli_adapter_ok", OPENAI_CHAT)
    assert main(["run", "--adapter", "cli_adapter_ok:ADAPTER", "--report", "r.json"]) == 0
    out = capsys.readouterr().out
    chat = sum(s.api == "openai-chat" for s in corpus.scenarios.values())
    others = len(corpus.scenarios) - chat
    # the denominators are the API it serves; the skips of the others are one line, not one per case
    assert f"all            {chat}     {chat}" in out
    assert f"not counted: {others} cases of 14 other APIs" in out
    assert "SKIP" not in out and "skipped" not in out
    document = json.loads((here / "r.json").read_text(encoding="utf-8"))
    assert document["complete"] is True and document["adapter"]["apis"] == ["openai-chat"]


def test_readme_adapter_is_found_in_the_current_directory(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if b.startswith("# myadapter.py"))
    _module(here, "myadapter", block)
    # README's codec is a template whose methods are `...`: every case it serves is an error, none a crash
    assert main(["run", "--adapter", "myadapter:ADAPTER", "--api", "openai-chat"]) == 1
    captured = capsys.readouterr()
    assert "cannot import" not in captured.err
    assert "ERROR: the adapter's encode of turn 0 returned NoneType, not a JSON object" in captured.out


def test_skips_are_summarised_unless_verbose(capsys: pytest.CaptureFixture[str]) -> None:
    spec = "conformance.clients.openai_sdk:ADAPTER"  # a client adapter: it skips a history begun elsewhere
    pytest.importorskip("openai")
    main(["run", "--adapter", spec, "--api", "openai-chat"])
    out = capsys.readouterr().out
    assert re.search(r"\d+ cases? skipped \(-v lists each\):", out) and "SKIP" not in out
    assert "one saved from anthropic-messages is the application's to translate" in out
    main(["run", "--adapter", spec, "--api", "openai-chat", "-v"])
    verbose = capsys.readouterr().out
    assert "openai-chat/from-anthropic: SKIP: the client declares: openai-python takes a history" in verbose
    assert "openai-chat/one-call: PASS" in verbose


def test_a_run_that_judges_no_case_fails(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _module(here, "cli_adapter_none", OPENAI_CHAT)
    assert main(["run", "--adapter", "cli_adapter_none:ADAPTER", "--api", "gemini", "--report", "r.json"]) == 1
    out = capsys.readouterr().out
    from conformance.corpus.loading import load_corpus

    gemini = sum(1 for s in load_corpus().scenarios.values() if s.api == "gemini")
    wanted = (
        f"FAILED: no case was judged: of {gemini} cases, {gemini} skipped; the adapter serves none of the selected APIs"
    )
    assert wanted in out
    assert json.loads((here / "r.json").read_text(encoding="utf-8"))["counts"]["skip"] == gemini


def test_warnings_are_shown_and_can_fail_the_run(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _module(here, "cli_adapter_unstable", UNSTABLE)
    args = ["run", "--adapter", "cli_adapter_unstable:ADAPTER", "--api", "openai-chat"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "openai-chat/gemini-compat-empty-ids: warning decode/unstable-id at response[0]" in out
    assert "1 warning in 1 case: decode/unstable-id 1" in out
    assert main([*args, "--fail-on-warnings"]) == 1
    assert "FAILED: --fail-on-warnings: 1 warning in 1 case" in capsys.readouterr().out


def test_an_adapter_module_that_does_not_compile_is_one_line_and_exit_two(here: Path) -> None:
    (here / "cli_broken.py").write_text("def encode(:\n    pass\n", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--adapter", "cli_broken:ADAPTER"],
        capture_output=True,
        text=True,
        check=False,
        cwd=here,
    )
    assert run.returncode == 2
    assert run.stderr.splitlines() == ["conformance run: cli_broken.py:1: SyntaxError: invalid syntax"]
    assert run.stdout == ""


def test_an_object_that_is_not_an_adapter_is_named_with_its_article(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _module(here, "cli_adapter_int", OPENAI_CHAT)
    assert main(["run", "--adapter", "cli_adapter_int:NUMBER"]) == 2
    assert "'cli_adapter_int:NUMBER' is an int, not a conformance.CodecAdapter" in capsys.readouterr().err


def test_an_empty_adapter_is_an_input_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--adapter", ""]) == 2
    assert "no adapter given" in capsys.readouterr().err


def test_a_bug_id_runs_its_reproduction_with_its_own_case_expected_to_fail(
    tmp_path: Path, corpus: Corpus, capsys: pytest.CaptureFixture[str]
) -> None:
    bug = corpus.bugs["genkit-2224"]
    assert main(["run", "--adapter", bug.id, "--api", "openai-chat", "--report", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert f"{bug.scenario}: XFAIL: expected to fail (known bug {bug.id})" in out
    assert f"adapter: {bug.id} (a known bug's reproduction)" in out
    document = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    own = next(c for c in document["cases"] if c["id"] == bug.scenario)
    assert own["outcome"] == "xfail" and own["link"] == bug.report
    assert document["adapter"]["name"] == bug.id


def test_the_readme_first_command_works_as_written() -> None:
    """README's Quickstart: `conformance run` against the bundled reference, from any directory."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python -m pip install . && conformance run" in readme
    assert main(["run"]) == 0
