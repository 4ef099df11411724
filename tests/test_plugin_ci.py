"""The pytest plugin in CI: never green on nothing, clear errors, visible warnings, truthful results.

Each test runs pytest the way a user's CI does: in a fresh directory, in a subprocess.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from conformance.corpus.loading import load_corpus

OPENAI_CHAT = """
from conformance import CodecAdapter
from conformance.reference.openai_chat import OpenAIChatCodec

ADAPTER = CodecAdapter(name="mylib", version="1.2.3", codecs={"openai-chat": OpenAIChatCodec()})
"""

# Passes every openai-chat case, but mints a fresh id at every decode where the wire has none: a warning.
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


def _readme_adapter() -> str:
    """README's own `myadapter.py`, as a new user copies it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if b.startswith("# myadapter.py"))
    return block


def _results(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _chat_cases() -> int:
    return sum(s.api == "openai-chat" for s in load_corpus().scenarios.values())


def _constructed_chat_cases() -> int:
    return sum(s.api == "openai-chat" and not s.recorded for s in load_corpus().scenarios.values())


def test_readme_adapter_is_found_in_the_invocation_directory(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(myadapter=_readme_adapter())
    result = pytester.runpytest_subprocess("--conformance-adapter=myadapter:ADAPTER", "--conformance-report=r.json")
    assert "cannot import" not in result.stdout.str() + result.stderr.str()
    # README's codec is a template (its methods are `...`): every case it serves is an error, not a crash
    document = _results(pytester.path / "r.json")
    chat = [c for c in document["cases"] if c["api"] == "openai-chat"]
    assert {c["outcome"] for c in chat} == {"error"}
    assert "returned NoneType, not a JSON object" in chat[0]["summary"]
    assert document["adapter"]["apis"] == ["openai-chat"]


def test_the_invocation_directory_is_importable_for_a_working_adapter(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(myadapter=OPENAI_CHAT)
    result = pytester.runpytest_subprocess("--conformance-adapter=myadapter:ADAPTER", "--conformance-api=openai-chat")
    result.assert_outcomes(passed=_chat_cases())
    assert result.ret == pytest.ExitCode.OK


def test_collected_items_are_counted(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--conformance-adapter=reference", "--conformance-api=openai-chat")
    result.stdout.fnmatch_lines([f"collected {_chat_cases()} items"])
    assert "collected 0 items" not in result.stdout.str()


def test_an_empty_adapter_option_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mine="def test_mine():\n    pass\n")
    result = pytester.runpytest_subprocess("--conformance-adapter=")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--conformance-adapter is empty*"])


def test_an_adapter_module_that_does_not_compile_is_one_located_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(broken="from conformance import CodecAdapter\ndef encode(:\n    pass\n")
    result = pytester.runpytest_subprocess("--conformance-adapter=broken:ADAPTER")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --conformance-adapter: broken.py:2: SyntaxError: *"])
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output and "Traceback" not in output


def test_an_adapter_module_that_raises_names_the_users_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(raises='import json\n\nSETTINGS = json.loads("{not json")\n')
    result = pytester.runpytest_subprocess("--conformance-adapter=raises:ADAPTER")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --conformance-adapter: raises.py:3: JSONDecodeError: Expecting property*"])


def test_an_unknown_codec_key_names_the_valid_ones(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(myadapter=OPENAI_CHAT.replace('"openai-chat"', '"openai_chat"'))
    result = pytester.runpytest_subprocess("--conformance-adapter=myadapter:ADAPTER")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*myadapter.py:4: AdapterDefinitionError: *'openai_chat' (did you mean 'openai-chat'?); known: openai-chat,*"]
    )


def test_a_run_where_every_case_is_skipped_fails(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(myadapter=OPENAI_CHAT)
    result = pytester.runpytest_subprocess("--conformance-adapter=myadapter:ADAPTER", "--conformance-api=gemini")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAILED: no case was judged: of * cases, * skipped*", "*1 conformance gate failed*"])


def test_a_run_that_selects_no_case_fails(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--conformance-adapter=reference", "-k", "no-such-case")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # docs/plugin.md's 1, not pytest's 5
    result.stdout.fnmatch_lines(["FAILED: no case was judged: *not run (deselected*"])


def test_deselected_cases_are_not_run_and_make_the_run_incomplete(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=reference", "--conformance-api=openai-chat", "-k", "one-call", "--conformance-report=r"
    )
    result.assert_outcomes(passed=1)
    document = _results(pytester.path / "r")
    assert document["complete"] is False
    assert document["counts"]["pass"] == 1 and document["counts"]["not-run"] == _chat_cases() - 1
    deselected = next(c for c in document["cases"] if c["outcome"] == "not-run")
    assert deselected["summary"].startswith("deselected")
    whole = pytester.runpytest_subprocess(
        "--conformance-adapter=reference", "--conformance-api=openai-chat", "--conformance-report=r"
    )
    assert whole.ret == pytest.ExitCode.OK and _results(pytester.path / "r")["complete"] is True


def test_the_results_file_is_written_under_the_cache_unless_asked(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--conformance-adapter=reference", "--conformance-api=kimi-chat")
    cached = pytester.path / ".pytest_cache" / "d" / "conformance" / "results.json"
    assert not (pytester.path / "conformance-results.json").exists()
    assert _results(cached)["counts"]["pass"] == result.parseoutcomes()["passed"]
    result.stdout.fnmatch_lines([f"results: {cached}"])
    nowhere = pytester.runpytest_subprocess("--conformance-adapter=reference", "-p", "no:cacheprovider", "-k", "kimi")
    nowhere.stdout.fnmatch_lines(["results: not written (give --conformance-report=PATH)"])


def test_warnings_are_shown_one_line_each_and_summarised(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(myadapter=UNSTABLE)
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=myadapter:ADAPTER", "--conformance-api=openai-chat", "-v"
    )
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*openai-chat/gemini-compat-empty-ids PASSED with 1 warning*",
            "conformance::openai-chat/gemini-compat-empty-ids: warning decode/unstable-id at *",
            "1 warning in 1 case: decode/unstable-id 1",
        ]
    )


@pytest.mark.parametrize("how", ["flag", "ini"])
def test_warnings_fail_the_run_when_asked(pytester: pytest.Pytester, how: str) -> None:
    pytester.makepyfile(myadapter=UNSTABLE)
    args = ["--conformance-adapter=myadapter:ADAPTER", "--conformance-api=openai-chat"]
    if how == "flag":
        args.append("--conformance-fail-on-warnings")
    else:
        pytester.makeini("[pytest]\nconformance_fail_on_warnings = true\n")
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=_chat_cases())
    result.stdout.fnmatch_lines(["FAILED: --conformance-fail-on-warnings: 1 warning in 1 case: decode/unstable-id 1"])


def test_a_bug_reproduction_means_what_it_means_in_the_matrix(pytester: pytest.Pytester) -> None:
    bug = load_corpus().bugs["genkit-3247"]
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=genkit-3247", "--conformance-api=openai-chat", "--conformance-report=r.json", "-rx"
    )
    result.stdout.fnmatch_lines(["*adapter: genkit-3247 (a known bug's reproduction)*"])
    document = _results(pytester.path / "r.json")
    # Every constructed case shows the bug; a recorded one may not exercise it (a recording that never
    # sends a result back), and then passes.
    scenarios = load_corpus().scenarios
    constructed = [c for c in document["cases"] if not scenarios[c["id"]].recorded and c["id"] != bug.scenario]
    assert len(constructed) == _constructed_chat_cases() - 1 and {c["outcome"] for c in constructed} == {"fail"}
    outcomes = result.parseoutcomes()
    assert outcomes.get("xfailed") == 1 and outcomes.get("failed", 0) + outcomes.get("passed", 0) == _chat_cases() - 1
    own = next(c for c in document["cases"] if c["id"] == bug.scenario)
    assert own["outcome"] == "xfail" and own["link"] == bug.report
    assert document["adapter"]["name"] == "genkit-3247" and document["adapter"]["homepage"] == bug.report


SUITE_FAULTS = """
import pytest
import conformance.running.known_bugs as known_bugs

_run = known_bugs.run_scenario

def raising(adapter, scenario, corpus, profile="default", options=None):
    if scenario.id == "openai-chat/one-call":
        raise RuntimeError("a fault inside the suite")
    return _run(adapter, scenario, corpus, profile, options)

known_bugs.run_scenario = raising

def pytest_runtest_setup(item):
    if item.name == "openai-chat/three-turn-chain":
        raise RuntimeError("a fault before the case ran")
"""


def test_a_case_the_suite_raised_on_is_an_error_as_pytest_says(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SUITE_FAULTS)
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=reference", "--conformance-api=openai-chat", "--conformance-report=r.json"
    )
    result.assert_outcomes(passed=_chat_cases() - 2, failed=1, errors=1)
    cases = {c["id"]: c for c in _results(pytester.path / "r.json")["cases"]}
    raised = cases["openai-chat/one-call"]
    assert raised["outcome"] == "error" and "RuntimeError: a fault inside the suite" in raised["summary"]
    setup = cases["openai-chat/three-turn-chain"]
    assert setup["outcome"] == "error" and "the suite failed in setup" in setup["summary"]
    assert "not-run" not in {c["outcome"] for c in cases.values()}


EXITS = """
import os
from conformance import CodecAdapter
from conformance.reference.openai_chat import OpenAIChatCodec

class Exits(OpenAIChatCodec):
    def decode(self, response):
        message = super().decode(response)
        if any(p.get("call_id") == "call_Rt8YwN3kAq6ZeX1cVb4Lm7Ps" for p in message["parts"]):
            os._exit(3)  # a call only three-turn-chain serves
        return message

ADAPTER = CodecAdapter(name="exits", version="1", codecs={"openai-chat": Exits()})
"""


def test_a_crashed_xdist_worker_is_a_crash_and_the_other_cases_keep_their_outcomes(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile(myadapter=EXITS)
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=myadapter:ADAPTER",
        "--conformance-api=openai-chat",
        "--conformance-report=r.json",
        "-n",
        "2",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    document = _results(pytester.path / "r.json")
    outcomes = {c["id"]: c["outcome"] for c in document["cases"]}
    assert outcomes.pop("openai-chat/three-turn-chain") == "crash"
    assert set(outcomes.values()) == {"pass"}, outcomes
    assert document["complete"] is False and document["counts"]["crash"] == 1
