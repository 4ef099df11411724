"""The harness protocol: clients in any language, run out of process; their faults are outcomes."""

from __future__ import annotations

import json
import shutil
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conformance.connectors.adapters import AdapterSpecError
from conformance.connectors.harness import HarnessAdapter, problem
from conformance.corpus.loading import Corpus
from conformance.running.runner import RunOptions, run_scenario, select

ROOT = Path(__file__).resolve().parents[1]
MINIMAL_JS = f"node {ROOT / 'harnesses/minimal-js/harness.mjs'}"
MINIMAL_PY = f"{sys.executable} {ROOT / 'harnesses/minimal-python/harness.py'}"
UNRULY = f"{sys.executable} {ROOT / 'tests/harnesses/unruly.py'}"


@pytest.fixture(scope="module")
def node() -> str:
    # Node is on every machine the project runs on, CI's included; without it this protocol test
    # would pass on nothing, so its absence fails.
    found = shutil.which("node")
    assert found, "the harness protocol test needs node (Node.js 18 or later) on PATH"
    return found


def _run_all(command: str, corpus: Corpus, api: str = "openai-chat", timeout: float = 30) -> dict[str, str]:
    harness = HarnessAdapter(command)
    try:
        options = RunOptions(timeout=timeout)
        return {s.id: run_scenario(harness, s, corpus, options=options).outcome for s in select(corpus, [api])}
    finally:
        harness.close()


@pytest.mark.parametrize("language", ["javascript", "python"])
def test_the_minimal_harnesses_pass_every_openai_chat_scenario(language: str, corpus: Corpus, node: str) -> None:
    outcomes = _run_all(MINIMAL_JS if language == "javascript" else MINIMAL_PY, corpus)
    # What a harness cannot be handed is a skip: a restored history or a session unless it continues
    # them (the Python one does); and the Python one declares a history from another API's wire form a
    # skip of its own. A recording that ends on the provider's calls is handed to both.
    from conformance.replay.verdicts import codec_only as handed_to_codecs

    continues = {"history", "sessions"} if language == "python" else set()
    codec_only = [i for i in outcomes if handed_to_codecs(corpus.scenarios[i], continues)]
    crossed = [i for i in outcomes if language == "python" and _crossed(corpus, i) and i not in codec_only]
    assert bool(codec_only) == (language == "javascript")  # the Python harness continues every scenario
    assert {outcomes.pop(i) for i in [*codec_only, *crossed]} <= {"skip"}
    assert set(outcomes.values()) == {"pass"}, outcomes


def _crossed(corpus: Corpus, scenario_id: str) -> bool:
    history = corpus.scenarios[scenario_id].history
    return history is not None and history.api != corpus.scenarios[scenario_id].api


def test_a_harness_says_who_it_is(node: str) -> None:
    harness = HarnessAdapter(MINIMAL_JS)
    try:
        identity = harness.identity()
        assert identity["name"] == "minimal-js" and identity["connector"] == "harness"
        assert identity["language"] == "javascript" and "node" in identity["libraries"]
        assert harness.apis == ("openai-chat",)
    finally:
        harness.close()


def test_apis_a_harness_does_not_serve_are_skipped_with_its_reason(corpus: Corpus, node: str) -> None:
    harness = HarnessAdapter(MINIMAL_JS)
    try:
        result = run_scenario(harness, corpus.scenarios["anthropic-messages/one-call"], corpus)
        assert result.outcome == "skip"
        assert result.summary == "the minimal harness speaks Chat Completions only"
    finally:
        harness.close()


@pytest.mark.parametrize(
    ("behaviour", "outcome", "words"),
    [
        ("crash", "crash", "exited with status 3"),
        ("segfault", "crash", "SIGSEGV"),
        ("hang", "timeout", "no answer within 2 s; it was stopped and will be started again; it had sent no request"),
        ("garbage", "error", "not a JSON message"),
        ("exit-early", "crash", "exited with status 0"),
        ("wrong-seq", "error", "seq"),
        ("bad-answer", "error", "no answer to run"),
        ("skip", "skip", "no parallel tool calls"),
        ("error", "error", "TypeError: x is undefined"),
        ("nothing", "fail", "never requested"),
    ],
)
def test_a_fault_is_the_cases_outcome_and_the_run_goes_on(
    behaviour: str, outcome: str, words: str, corpus: Corpus
) -> None:
    target = "openai-chat/parallel-same-tool"
    harness = HarnessAdapter(f"{UNRULY} {behaviour} {target}")
    try:
        options = RunOptions(timeout=2)
        faulty = run_scenario(harness, corpus.scenarios[target], corpus, options=options)
        assert faulty.outcome == outcome, faulty.summary
        assert words in faulty.summary + faulty.detail
        # The harness is started again if it must be, and the next case runs as usual.
        after = run_scenario(harness, corpus.scenarios["openai-chat/one-call"], corpus, options=options)
        assert after.outcome == "pass", after.summary
    finally:
        harness.close()


def test_a_harness_that_hangs_after_its_loop_is_judged_on_what_it_sent(corpus: Corpus) -> None:
    target = "openai-chat/parallel-same-tool"
    harness = HarnessAdapter(f"{UNRULY} run-then-hang {target}")
    try:
        # Long enough for the loop's requests on a loaded machine; the hang itself is what runs out.
        result = run_scenario(harness, corpus.scenarios[target], corpus, options=RunOptions(timeout=8))
        assert result.outcome == "timeout", result.summary
        assert "by then it had sent 2 of the 2 request(s) the replay holds" in result.summary
    finally:
        harness.close()


@pytest.mark.parametrize(
    ("behaviour", "outcome", "words"),
    [
        ("connect", "fail", "past the replay, to https://example.com:443: refused, never forwarded"),
        ("hostless-connect", "pass", "1 tunnel(s) naming no host (grpc-go/1.70.0): refused; they reach nothing"),
    ],
)
def test_a_tunnel_to_a_host_fails_the_case_and_one_naming_none_is_only_said(
    behaviour: str, outcome: str, words: str, corpus: Corpus
) -> None:
    harness = HarnessAdapter(f"{UNRULY} {behaviour}")
    try:
        result = run_scenario(harness, corpus.scenarios["openai-chat/one-call"], corpus, options=RunOptions(timeout=30))
        assert result.outcome == outcome, result.summary
        assert words in result.summary
    finally:
        harness.close()


def test_a_library_error_keeps_the_harnesses_stack_trace(corpus: Corpus) -> None:
    harness = HarnessAdapter(f"{UNRULY} error")
    try:
        result = run_scenario(harness, corpus.scenarios["openai-chat/one-call"], corpus)
        assert result.outcome == "error"
        assert "TypeError: x is undefined" in result.summary
        assert result.detail == "at loop (run.mjs:12)"
    finally:
        harness.close()


def test_log_lines_on_stderr_are_no_fault(corpus: Corpus) -> None:
    assert set(_run_all(f"{UNRULY} stderr", corpus).values()) <= {"pass", "skip"}


@pytest.mark.parametrize(
    ("behaviour", "words"),
    [
        ("start-crash", "exited with status 5"),
        ("start-garbage", "which is not a JSON object"),
        ("start-version", "speaks protocol version 99; this suite speaks 1"),
        ("start-bad", "implementation"),
    ],
)
def test_a_harness_that_cannot_start_is_a_clear_error(behaviour: str, words: str) -> None:
    with pytest.raises(AdapterSpecError, match=words):
        HarnessAdapter(f"{UNRULY} {behaviour}")


def test_a_missing_harness_program_is_a_clear_error() -> None:
    with pytest.raises(AdapterSpecError, match="cannot start"):
        HarnessAdapter("/nonexistent/harness --flag")


def test_the_run_command_and_the_minimal_harnesses_answers_follow_the_schema(corpus: Corpus) -> None:
    from conformance.connectors.harness import run_case
    from conformance.connectors.serving import ScenarioServer

    scenario = corpus.scenarios["openai-chat/one-call"]
    with ScenarioServer(corpus) as server:
        listing = server.add(scenario)
        case = run_case(scenario, listing, server.loops[scenario.id])  # what the adapter sends
        assert problem({"cmd": "run", "seq": 1, "case": case}, "run") is None
        assert problem({"cmd": "run", "seq": 0, "case": case}, "run") is not None
        # The tools endpoint answers the scenario's canned output, and refuses what is not a call.
        output = _post(listing.tools_url, {"name": "get_weather", "arguments": {"city": "Paris"}})
        assert problem(output, "toolOutput") is None
        assert output["output"] == scenario.turns[0].calls[0].output
        with pytest.raises(urllib.error.HTTPError) as refused:
            _post(listing.tools_url, {"arguments": {}})
        assert refused.value.code == 400
    assert problem({"seq": 1, "ok": True, "output": "done"}, "ran") is None
    assert problem({"seq": 1, "ok": True, "skipped": "x"}, "ran") is not None
    assert problem({"cmd": "start", "version": 1}, "start") is None


def _post(url: str, body: object) -> dict[str, object]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def _runnable(corpus: Corpus) -> tuple[int, int]:
    """How many OpenAI Chat scenarios a client runs, and how many only a codec can be handed."""
    from conformance.replay.verdicts import codec_only

    chosen = select(corpus, ["openai-chat"])
    skipped = sum(1 for s in chosen if codec_only(s))
    return len(chosen) - skipped, skipped


def test_the_cli_runs_a_harness_and_writes_a_results_file(tmp_path: Path, node: str, corpus: Corpus) -> None:
    from conformance.cli import main

    report = tmp_path / "results.json"
    code = main(["run", "--harness", MINIMAL_JS, "--api", "openai-chat", "--report", str(report)])
    assert code == 0
    document = json.loads(report.read_text())
    assert document["adapter"]["name"] == "minimal-js" and document["adapter"]["connector"] == "harness"
    assert document["counts"]["pass"] == _runnable(corpus)[0]


def test_the_pytest_plugin_runs_a_harness(pytester: pytest.Pytester, node: str, corpus: Corpus) -> None:
    result = pytester.runpytest_subprocess(
        f"--conformance-harness={MINIMAL_JS}", "--conformance-api=openai-chat", "-p", "no:randomly"
    )
    passed, skipped = _runnable(corpus)
    result.assert_outcomes(passed=passed, skipped=skipped)


def test_a_late_request_of_a_finished_case_is_not_a_turn_of_the_case_served_now(corpus: Corpus) -> None:
    """One scenario served answers at a provider's own path, but a request at another scenario's place
    (a library still running the case before) is a 404 that names what is served."""
    from conformance.connectors.serving import ScenarioServer

    first, second = corpus.scenarios["openai-chat/one-call"], corpus.scenarios["openai-chat/parallel-same-tool"]
    body = {"model": first.model, "messages": [{"role": "user", "content": first.prompt}]}
    with ScenarioServer(corpus) as server:
        late = server.add(first).base_url + "/chat/completions"
        server.server.remove(first.id)
        listing = server.add(second)
        with pytest.raises(urllib.error.HTTPError) as refused:
            _post(late, body)
        assert refused.value.code == 404
        assert "openai-chat/parallel-same-tool" in refused.value.read().decode()
        # The provider's own path still reaches the one scenario served.
        root = listing.base_url.split("/openai-chat/")[0]
        from conformance.clients.official_sdks.common import chat_tool

        tools = [chat_tool(t) for t in second.tools]  # the provider calls only the tools a request declares
        asked = {**body, "messages": [{"role": "user", "content": second.prompt}], "tools": tools}
        answer = _post(f"{root}/v1/chat/completions", asked)
        assert answer["choices"][0]["message"]["tool_calls"]


@pytest.mark.parametrize(
    "scenario_id", ["openai-chat/recorded/openllmetry-chat-tool-calls-history", "openai-chat/session-memory-window"]
)
def test_the_minimal_python_harness_continues_a_history_and_a_session(corpus: Corpus, scenario_id: str) -> None:
    adapter = HarnessAdapter(MINIMAL_PY)
    try:
        assert adapter.continues == {"history", "sessions"}
        result = run_scenario(adapter, corpus.scenarios[scenario_id], corpus)
        assert result.outcome == "pass", result.summary
        crossed = run_scenario(adapter, corpus.scenarios["openai-chat/from-anthropic"], corpus)
        assert crossed.outcome == "skip" and "wire form only" in crossed.summary
    finally:
        adapter.close()
