"""The pytest plugin, run the way users run it: in a fresh directory, through pytester."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conformance import plugin
from conformance.corpus.caseschema import vocabulary

USER_ADAPTER = """
from conformance import CodecAdapter
from conformance.reference.openai_chat import OpenAIChatCodec

class Mine(OpenAIChatCodec):
    def result_id(self, part):
        return part["name"]   # a bug: the tool's name instead of the call's id

ADAPTER = CodecAdapter(name="mine", version="9.9", codecs={"openai-chat": Mine()})

def make():
    return CodecAdapter(name="made", version="1", codecs={"openai-chat": OpenAIChatCodec()})
"""


def test_reference_passes_every_case_from_an_empty_directory(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=reference", "--conformance-report=conformance-results.json", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=len(_scenario_ids()))
    result.stdout.fnmatch_lines(["*tool-call id conformance*", "adapter: reference*", "all *"])
    assert document_complete(pytester)


def test_failure_reads_like_a_review(pytester: pytest.Pytester) -> None:
    # The reproduction as an ordinary adapter: by its bug id, its own scenario would be an expected failure.
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=conformance.reproductions.genkit:GENKIT_3247",
        "--conformance-api=openai-chat",
        "-k",
        "one-call",
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*pairing/orphan-result (error) at request[[]1[]].messages[[]2[]].tool_call_id",
            "*OpenAI's error for this: Invalid parameter: messages with role 'tool' must be a response*",
            "*roundtrip/id-altered (error) at request[[]1[]].messages[[]1[]].tool_calls[[]0[]].id",
            "*the id sent is the tool's name ('get_weather')*",
            "*expected: 'call_Vq3XbR0LkS8mJ2tN6yPw4cDe'",
            "*received: 'get_weather'",
            "*What was sent, against what a correct adapter sends*",
            '*changed from "call_Vq3XbR0LkS8mJ2tN6yPw4cDe" to "get_weather"*',
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_user_adapter_by_module_and_object(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(myadapter=USER_ADAPTER)
    result = pytester.runpytest_subprocess("--conformance-adapter=myadapter:ADAPTER", "--conformance-api=openai-chat")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) >= 1
    result.stdout.fnmatch_lines(["*adapter: mine 9.9*"])
    made = pytester.runpytest_subprocess("--conformance-adapter=myadapter:make")
    made.stdout.fnmatch_lines(["*adapter: made 1*"])


def test_api_option_narrows_and_unknown_api_is_a_usage_error(pytester: pytest.Pytester) -> None:
    narrowed = pytester.runpytest_subprocess("--conformance-adapter=reference", "--conformance-api=gemini")
    assert narrowed.parseoutcomes().get("passed", 0) == len([s for s in _scenario_ids() if s.startswith("gemini/")])
    bad = pytester.runpytest_subprocess("--conformance-adapter=reference", "--conformance-api=openai-chatt")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*unknown API 'openai-chatt' (did you mean 'openai-chat'?)*"])


def test_unknown_adapter_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--conformance-adapter=nosuchmodule:X")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*cannot import 'nosuchmodule'*"])


def test_ini_keys_mirror_the_options(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        "[pytest]\nconformance_adapter = reference\nconformance_api = openai-chat\nconformance_report = out/r.json\n"
    )
    result = pytester.runpytest_subprocess()
    assert result.parseoutcomes()["passed"] >= 6
    assert (pytester.path / "out" / "r.json").is_file()


def test_stop_early_records_the_rest_as_not_run(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=genkit-3247", "-x", "--conformance-api=openai-chat", "--conformance-report=r.json"
    )
    result.assert_outcomes(failed=1)
    document = json.loads((pytester.path / "r.json").read_text())
    assert document["counts"]["fail"] == 1
    assert document["counts"]["not-run"] == len(document["cases"]) - 1
    assert document["complete"] is False


def test_xdist_results_reach_the_controller(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=reference", "-n", "2", "--conformance-api=openai-chat", "--conformance-report=r.json"
    )
    assert result.parseoutcomes()["passed"] >= 6
    document = json.loads((pytester.path / "r.json").read_text())
    assert document["counts"]["pass"] == result.parseoutcomes()["passed"]


def test_plugin_without_adapter_adds_nothing_and_loads_no_library(tmp_path) -> None:
    code = (
        "import sys, pytest; pytest.main(['--co', '-q', '-p', 'no:cacheprovider', '/nonexistent-dir-for-test']);"
        "print('LOADED' if 'conformance.corpus.loading' in sys.modules"
        " or 'conformance.engine.rules' in sys.modules else 'LIGHT')"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=tmp_path)
    out = run.stdout
    assert out.strip().endswith("LIGHT")


def test_marker_apis_match_the_schema_vocabulary() -> None:
    assert set(plugin.APIS) == set(vocabulary("api"))


def document_complete(pytester: pytest.Pytester) -> bool:
    document = json.loads((pytester.path / "conformance-results.json").read_text())
    assert document["adapter"]["name"] == "reference"
    assert {c["outcome"] for c in document["cases"]} == {"pass"}
    assert document["counts"]["pass"] == len(_scenario_ids())
    return bool(document["complete"])


def _scenario_ids() -> list[str]:
    from conformance.corpus.loading import load_corpus

    return sorted(load_corpus().scenarios)


def test_the_suites_modules_are_imported_without_assertion_rewriting(pytester: pytest.Pytester) -> None:
    # pytest marks every module of a plugin's distribution for rewriting; rewriting ours cost a fresh
    # runner's first run more than judging the corpus, for asserts nobody reads.
    pytester.makepyfile(
        test_loaders="""
        import importlib

        def test_loader():
            module = importlib.import_module("conformance.engine.wording")
            assert type(module.__loader__).__name__ != "AssertionRewritingHook", module.__loader__
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_only_the_suites_own_mark_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    class AssertionRewritingHook:  # as pytest's hook keeps what it must rewrite
        def __init__(self) -> None:
            self._must_rewrite = {"conformance", "myadapter"}

    hook = AssertionRewritingHook()
    monkeypatch.setattr(sys, "meta_path", [hook, *sys.meta_path])
    plugin._import_plainly()
    assert hook._must_rewrite == {"myadapter"}
