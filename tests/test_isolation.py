"""Isolated adapters: whatever an adapter does to its process, the run goes on and tells the truth."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.isolation import AHEAD, IsolatedAdapter
from conformance.running.runner import RunOptions, run_scenario
from conformance.running.worker_process import Worker

ADAPTERS = Path(__file__).resolve().parent / "adapters"


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch) -> Worker:
    monkeypatch.syspath_prepend(str(ADAPTERS))
    monkeypatch.chdir(ADAPTERS)  # adapter specs import from the invocation directory
    made = Worker()
    yield made  # type: ignore[misc]
    made.close()


@pytest.mark.parametrize(
    ("name", "outcome", "words"),
    [
        ("EXIT_0", "error", "SystemExit: 0"),
        ("EXIT_3", "error", "SystemExit: 3"),
        ("KEYBOARD_INTERRUPT", "error", "KeyboardInterrupt"),
        ("BASE_EXCEPTION", "error", "Interrupted: stop everything"),
        ("OS_EXIT", "crash", "the adapter called os._exit(0)"),
        ("SEGFAULT", "crash", "SIGSEGV"),
        ("SWALLOWS_THE_TIME_LIMIT", "timeout", "its worker process was killed"),
        ("HANGS_IN_C", "timeout", "its worker process was killed"),
    ],
)
def test_an_adapter_fault_is_an_outcome_and_the_next_case_runs(
    name: str, outcome: str, words: str, worker: Worker, corpus: Corpus
) -> None:
    scenario = corpus.scenarios["openai-chat/one-call"]
    options = RunOptions(timeout=1)
    result = run_scenario(IsolatedAdapter(f"hostile:{name}", worker, grace=1), scenario, corpus, options=options)
    assert result.outcome == outcome, result.summary
    assert words in result.summary
    after = run_scenario(IsolatedAdapter("reference", worker), scenario, corpus, options=options)
    assert after.outcome == "pass", after.summary


def test_a_client_that_hangs_is_judged_on_what_it_sent_before(worker: Worker, corpus: Corpus) -> None:
    pytest.importorskip("openai", reason="the hanging client drives the official openai SDK")
    scenario = corpus.scenarios["openai-chat/one-call"]
    options = RunOptions(timeout=10, show_requests=True)  # the worker imports the SDK within it
    result = run_scenario(IsolatedAdapter("hostile:NAME_AS_ID_THEN_HANG", worker), scenario, corpus, options=options)
    assert result.outcome == "timeout", result.summary
    assert "by then it had sent 2 of the 2 request(s) the replay holds" in result.summary
    assert "roundtrip/id-altered" in result.summary
    assert {v.code for v in result.errors} == {"roundtrip/id-altered"}
    assert result.requests is not None and len(result.requests) == 2


def test_what_an_adapter_prints_cannot_pass_for_the_workers_answer(worker: Worker, corpus: Corpus) -> None:
    adapter = IsolatedAdapter("hostile:PRINTS", worker)
    assert run_scenario(adapter, corpus.scenarios["openai-chat/one-call"], corpus).outcome == "pass"


def test_an_adapter_that_cannot_be_imported_is_a_clear_error(worker: Worker) -> None:
    from conformance.connectors.adapters import AdapterSpecError

    with pytest.raises(AdapterSpecError, match="no_such_module"):
        IsolatedAdapter("no_such_module:ADAPTER", worker)


@pytest.mark.parametrize("name", ["EXIT_0", "SEGFAULT"])
def test_conformance_run_always_writes_a_truthful_report(name: str, tmp_path: Path) -> None:
    report = tmp_path / "results.json"
    command = ["run", "--adapter", f"hostile:{name}", "--api", "openai-chat", "--timeout", "5", "--report", str(report)]
    completed = subprocess.run(
        [sys.executable, "-m", "conformance.cli", *command],
        cwd=ADAPTERS,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 1, completed.stdout + completed.stderr
    document = json.loads(report.read_text())
    assert document["counts"]["pass"] == 0
    from conformance.corpus.loading import load_corpus

    assert len(document["cases"]) == sum(1 for s in load_corpus().scenarios.values() if s.api == "openai-chat")
    assert {c["outcome"] for c in document["cases"]} <= {"error", "crash", "skip"}


def test_the_pytest_plugin_isolates_on_request(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ADAPTERS))
    report = pytester.path / "results.json"
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=hostile:EXIT_3",
        "--conformance-isolate",
        "--conformance-api=kimi-chat",
        f"--conformance-report={report}",
        "-p",
        "no:randomly",
    )
    from conformance.corpus.loading import load_corpus

    counted = {
        api: sum(1 for s in load_corpus().scenarios.values() if s.api == api) for api in ("kimi-chat", "openai-chat")
    }
    # The adapter has no kimi-chat codec: every case is skipped, and the session survives to report.
    result.assert_outcomes(skipped=counted["kimi-chat"])
    assert json.loads(report.read_text())["counts"]["skip"] == counted["kimi-chat"]
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=hostile:EXIT_3",
        "--conformance-isolate",
        "--conformance-api=openai-chat",
        f"--conformance-report={report}",
        "-p",
        "no:randomly",
    )
    result.assert_outcomes(failed=counted["openai-chat"])
    outcomes = {c["outcome"] for c in json.loads(report.read_text())["cases"]}
    assert outcomes == {"error"}


@pytest.mark.parametrize("spec", ["forging:FORGES_ITS_VERDICT", "forging:CLIENT_FORGES_ITS_VERDICT"])
def test_an_adapter_that_rewrites_the_suite_in_its_worker_gets_its_true_verdict(
    spec: str, worker: Worker, corpus: Corpus
) -> None:
    """The forger replaces the result's JSON, the rules, the verdicts and the replay's record in its
    own process; the parent judges what it sent, so the verdict is the honest bug's."""
    scenario = corpus.scenarios["openai-chat/parallel-different-tools"]
    honest = run_scenario(IsolatedAdapter("forging:FORGED_NOTHING", worker), scenario, corpus)
    forged = run_scenario(IsolatedAdapter(spec, worker), scenario, corpus)
    assert honest.outcome == "fail", honest.summary
    assert forged.outcome == "fail", forged.summary
    assert {v.code for v in forged.errors} == {v.code for v in honest.errors}
    assert "roundtrip/id-altered" in {v.code for v in forged.errors}


@pytest.mark.parametrize(
    ("handed", "words"),
    [
        ([], "not an object"),
        ({"requests": [{}] * 9, "sent": 9}, "at most"),
        ({"requests": [], "sent": -1}, "sent is -1"),
        ({"requests": [], "sent": 0, "side": "GET /"}, "side is not a list"),
        ({"requests": [], "sent": 0, "fault": "boom"}, "not an exception's description"),
        ({"requests": [], "sent": 0, "tools_ran": [["get_weather"]]}, "tools_ran"),
    ],
)
def test_what_a_worker_hands_over_is_checked_as_data(handed: object, words: str, corpus: Corpus) -> None:
    from conformance.engine.dialects import dialect_for
    from conformance.recordings.cassette import load_cassette
    from conformance.replay.verdicts import scenario_context
    from conformance.running.handover import HandoverError, client_run

    scenario = corpus.scenarios["openai-chat/one-call"]
    recorded = load_cassette(corpus.cassette_path(scenario))
    ctx = scenario_context(corpus, scenario, "default")
    with pytest.raises(HandoverError, match=words):
        client_run(handed, scenario, recorded, dialect_for(scenario.api), ctx, replayed=True)


def _verdict(result: CaseResult) -> tuple[str, str, set[str]]:
    """What two runs of one case must agree on."""
    return result.outcome, result.summary, {v.code for v in result.errors}


def test_the_next_case_posted_ahead_gets_the_verdict_it_gets_in_its_turn(worker: Worker, corpus: Corpus) -> None:
    """A case the worker plays while this process judges the one before it: same verdict as asked in
    its turn, and a case posted for a test that did not come next is dropped, not taken for another."""
    first, second = corpus.scenarios["openai-chat/one-call"], corpus.scenarios["openai-chat/parallel-different-tools"]
    options = RunOptions()
    adapter = IsolatedAdapter("forging:FORGED_NOTHING", worker)  # sends each call's name as its id

    in_turn = {s.id: _verdict(run_scenario(adapter, s, corpus, options=options)) for s in (first, second)}
    assert in_turn[second.id][0] == "fail" and "roundtrip/id-altered" in in_turn[second.id][2]
    adapter.then([(second, options)])
    assert _verdict(run_scenario(adapter, first, corpus, options=options)) == in_turn[first.id]
    assert [p.case for p in adapter._posted] == [second.id]
    assert _verdict(run_scenario(adapter, second, corpus, options=options)) == in_turn[second.id]
    adapter.then([(second, options)])
    adapter.then([])  # the last test, or a next one pytest does not know: nothing posted
    assert _verdict(run_scenario(adapter, first, corpus, options=options)) == in_turn[first.id]
    assert not adapter._posted
    adapter.then([(second, options)])  # posted, but the run goes on with another case
    assert _verdict(run_scenario(adapter, first, corpus, options=options)) == in_turn[first.id]
    assert _verdict(run_scenario(adapter, first, corpus, options=options)) == in_turn[first.id]
    assert not adapter._posted


def test_cases_posted_several_ahead_keep_their_verdicts_and_order(worker: Worker, corpus: Corpus) -> None:
    """Up to AHEAD cases are posted at once, each answered in its turn with its own verdict; a run
    that changes its order drops what it posted rather than take one case's answer for another's."""
    ids = [
        "openai-chat/one-call",
        "openai-chat/parallel-different-tools",
        "openai-chat/parallel-same-tool",
        "openai-chat/three-turn-chain",
        "openai-chat/streamed-parallel-calls",
        "openai-chat/parallel-results-reversed",
    ]
    cases = [corpus.scenarios[i] for i in ids]
    options = RunOptions()
    adapter = IsolatedAdapter("forging:FORGED_NOTHING", worker)

    in_turn = {s.id: _verdict(run_scenario(adapter, s, corpus, options=options)) for s in cases}
    assert {v[0] for v in in_turn.values()} == {"fail"}, in_turn  # each its own fail
    for k, scenario in enumerate(cases):
        adapter.then((s, options) for s in cases[k + 1 :])
        assert _verdict(run_scenario(adapter, scenario, corpus, options=options)) == in_turn[scenario.id]
        assert [p.case for p in adapter._posted] == ids[k + 1 : k + 1 + AHEAD]
    # Posted in one order, run in another: every verdict is still the case's own.
    adapter.then((s, options) for s in cases[1:])
    run_scenario(adapter, cases[0], corpus, options=options)
    for scenario in reversed(cases[1:]):
        adapter.then([])
        assert _verdict(run_scenario(adapter, scenario, corpus, options=options)) == in_turn[scenario.id]
    assert not adapter._posted


@pytest.mark.parametrize(
    ("spec", "survives"), [("hostile:CRASHES_ON_ANTHROPIC", True), ("hostile:KILLED_ON_ANTHROPIC", False)]
)
def test_a_crash_in_a_case_posted_ahead_is_that_cases_outcome(
    worker: Worker, corpus: Corpus, spec: str, survives: bool
) -> None:
    """An exit the worker traps (it answers `crash` and goes on) and a kill (the worker is gone)."""
    honest, crashing = corpus.scenarios["openai-chat/one-call"], corpus.scenarios["anthropic-messages/one-call"]
    later = corpus.scenarios["openai-chat/parallel-same-tool"]
    options = RunOptions(timeout=5)
    adapter = IsolatedAdapter(spec, worker, grace=1)
    adapter.then([(crashing, options)])
    assert run_scenario(adapter, honest, corpus, options=options).outcome == "pass"
    crashed = run_scenario(adapter, crashing, corpus, options=options)
    assert crashed.outcome == "crash", crashed.summary
    assert run_scenario(adapter, honest, corpus, options=options).outcome == "pass"
    # Posted, but another case came next: the crash is dropped with the case, not laid on the next one.
    adapter.then([(crashing, options)])
    assert run_scenario(adapter, honest, corpus, options=options).outcome == "pass"
    assert run_scenario(adapter, honest, corpus, options=options).outcome == "pass"
    # Posted behind an honest case and ahead of another: the one before it keeps the answer it got
    # before the crash, the crash is the crashing case's, and the one after is answered by the worker
    # that trapped the exit, or asked again of a new one.
    adapter.then([(honest, options), (crashing, options), (later, options)])
    assert run_scenario(adapter, honest, corpus, options=options).outcome == "pass"
    assert [p.case for p in adapter._posted] == [honest.id, crashing.id, later.id]
    adapter.then([(crashing, options), (later, options)])
    assert run_scenario(adapter, honest, corpus, options=options).outcome == "pass"
    adapter.then([(later, options)])
    crashed = run_scenario(adapter, crashing, corpus, options=options)
    assert crashed.outcome == "crash", crashed.summary
    assert [p.case for p in adapter._posted] == ([later.id] if survives else [])
    adapter.then([])
    assert run_scenario(adapter, later, corpus, options=options).outcome == "pass"


@pytest.mark.parametrize(
    ("handed", "error", "words"),
    [
        ([], "HandoverError", "not an object"),
        ({"requests": [], "decoded": [], "history": []}, "HandoverError", "requests is not 2 pairs"),
        ({"requests": [[{}, {}]] * 3, "decoded": [], "history": []}, "HandoverError", "requests is not 2 pairs"),
        ({"requests": [[{}], [{}]], "decoded": [], "history": []}, "HandoverError", "requests is not 2 pairs"),
        ({"requests": [[{}, {}]] * 2, "decoded": [[{}, {}]] * 2, "history": [[{}, {}]]}, "HandoverError", "history"),
        ({"requests": [[[], {}]] * 2, "decoded": [[{}, {}]] * 2, "history": []}, "AdapterFault", "not a JSON object"),
        ({"requests": [[{}, {}]] * 2, "decoded": [[{}, {}]] * 2, "history": []}, "AdapterFault", "'parts'"),
    ],
)
def test_what_a_codecs_worker_hands_over_is_checked_as_data(
    handed: object, error: str, words: str, corpus: Corpus
) -> None:
    from conformance.engine.dialects import dialect_for
    from conformance.recordings.cassette import load_cassette
    from conformance.running.handover import codec_exchange

    scenario = corpus.scenarios["openai-chat/one-call"]
    recorded = load_cassette(corpus.cassette_path(scenario))
    assert len(recorded.interactions) == 2
    with pytest.raises(Exception, match=words) as raised:
        codec_exchange(handed, scenario, recorded, dialect_for(scenario.api), None)
    assert type(raised.value).__name__ == error


def test_a_failure_of_the_suites_own_code_in_the_worker_is_an_error_not_the_adapters_crash(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    import conformance.connectors.codec as codec
    from conformance.connectors.adapters import resolve_adapter
    from conformance.running.worker import _codec_run

    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("a bug of the suite's")

    monkeypatch.setattr(codec, "answers", broken)  # how the suite answers a decoded call
    answer = _codec_run(resolve_adapter("reference"), corpus, corpus.scenarios["openai-chat/one-call"], {})
    assert set(answer) == {"error"} and "the suite failed in the worker" in answer["error"]


@pytest.mark.parametrize("spec", ["forging:WRITES_ON_EVERY_PIPE", "forging:WRITES_WITH_THE_NONCE"])
def test_an_adapter_that_writes_the_workers_answers_cannot_blame_the_corpus(
    spec: str, worker: Worker, corpus: Corpus
) -> None:
    """Its answers blame the corpus for every message; whether they are refused as not the worker's (no
    nonce) or checked against the recordings (the nonce read out of the worker), the case is the
    adapter's error, and the next adapter in the same worker is judged as ever."""
    scenario = corpus.scenarios["openai-chat/parallel-different-tools"]
    forged = run_scenario(IsolatedAdapter(spec, worker), scenario, corpus)
    assert forged.outcome == "error", forged.summary
    assert not forged.summary.startswith("the corpus is at fault"), forged.summary
    assert "the adapter's process blamed the suite" in forged.summary or "wrote on the worker's answer pipe" in (
        forged.summary
    )
    honest = run_scenario(IsolatedAdapter("forging:FORGED_NOTHING", worker), scenario, corpus)
    assert honest.outcome == "fail" and "roundtrip/id-altered" in {v.code for v in honest.errors}


def test_a_worker_blaming_a_corpus_that_is_at_fault_is_believed(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conformance.running.isolation import _corpus_claim
    from conformance.running.runner import CorpusError

    scenario = corpus.scenarios["openai-chat/one-call"]
    claimed = _corpus_claim("made up", scenario, corpus)
    assert claimed.outcome == "error" and "the adapter's process blamed the suite" in claimed.summary
    broken = tmp_path / "broken.yaml"
    broken.write_text(corpus.cassette_path(scenario).read_text().replace("interactions:", "exchanges:"))
    monkeypatch.setattr(corpus, "cassette_path", lambda _: broken)
    with pytest.raises(CorpusError, match="not a vcrpy cassette"):
        _corpus_claim("whatever the worker says", scenario, corpus)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("declaring:PREFIXED", "served calls under the names the client declared"),
        ("declaring:SUBMITTING", "the client asked again, forcing a tool call"),
    ],
)
def test_what_the_replay_made_of_a_request_is_rebuilt_from_its_body(
    spec: str, words: str, worker: Worker, corpus: Corpus
) -> None:
    """A turn served under a prefixed name, and a forced request past the final answer, are worked out in
    the worker's replay; isolated, the parent works them out again from the bodies handed over, and the
    verdict is the one the client earns in process."""
    from conformance.connectors.adapters import resolve

    scenario = corpus.scenarios["openai-chat/one-call"]
    isolated = run_scenario(IsolatedAdapter(spec, worker), scenario, corpus)
    assert isolated.outcome == "pass" and words in (isolated.summary or ""), isolated.summary
    in_process = run_scenario(resolve(spec, base=ADAPTERS).adapter, scenario, corpus)
    assert (in_process.outcome, in_process.summary) == (isolated.outcome, isolated.summary)
