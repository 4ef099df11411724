"""`conformance import`: recordings become scenarios the corpus accepts, or are refused with a reason."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import REAL_TRAFFIC, ROOT
from interactions import bundled_interactions, request_body, with_request_body

from conformance.cli import main
from conformance.corpus.loading import Corpus, load_corpus
from conformance.importer import Options, Source, import_cassette
from conformance.reference import ADAPTER as REFERENCE
from conformance.replay.verdicts import codec_only
from conformance.running.runner import run_scenario


def _write(path: Path, interactions: list[dict[str, Any]]) -> Path:
    path.write_text(yaml.safe_dump({"interactions": interactions, "version": 1}))
    return path


def _import(tmp_path: Path, path: Path, corpus: Corpus, **options: Any) -> Any:
    return import_cassette(path, corpus, Options(output=tmp_path / "out", **options))


def _written(tmp_path: Path) -> Corpus:
    return load_corpus([tmp_path / "out" / "cases"], [tmp_path / "out" / "cassettes"])


def test_a_recording_becomes_the_scenario_it_records(tmp_path: Path, corpus: Corpus) -> None:
    source = _write(tmp_path / "weather.yaml", bundled_interactions("openai-chat/parallel-same-tool.yaml"))
    report = _import(tmp_path, source, corpus, revoice=False)  # a user's own recording, texts as recorded
    assert [i.case_id for i in report.imported] == ["openai-chat/recorded/weather"] and not report.refused
    written = _written(tmp_path)
    scenario = written.scenarios["openai-chat/recorded/weather"]
    original = corpus.scenarios["openai-chat/parallel-same-tool"]
    assert scenario.provenance == "recorded" and scenario.source is not None
    assert scenario.prompt == original.prompt and scenario.model == original.model
    assert [dict(t) for t in scenario.tools] == [dict(t) for t in original.tools]
    assert [(c.id, c.name, dict(c.arguments), c.output) for t in scenario.turns for c in t.calls] == [
        (c.id, c.name, dict(c.arguments), c.output) for t in original.turns for c in t.calls
    ]
    assert scenario.turns[-1].text == original.turns[-1].text
    assert set(scenario.features) == {"parallel-calls", "same-tool-twice"}
    assert set(scenario.wire_types) == set(original.wire_types)
    for profile in ("default", "strict"):
        assert run_scenario(REFERENCE, scenario, written, profile).outcome == "pass"


def test_the_answer_order_and_a_stream_are_read_from_the_traffic(tmp_path: Path, corpus: Corpus) -> None:
    source = _write(tmp_path / "reversed.yaml", bundled_interactions("openai-chat/parallel-results-reversed.yaml"))
    _import(tmp_path, source, corpus)
    assert _written(tmp_path).scenarios["openai-chat/recorded/reversed"].answer_order == "reversed"
    source = _write(tmp_path / "streamed.yaml", bundled_interactions("anthropic-messages/streamed-parallel-calls.yaml"))
    _import(tmp_path, source, corpus)
    scenario = _written(tmp_path).scenarios["anthropic-messages/recorded/streamed"]
    assert scenario.stream and "streaming" in scenario.features


def test_server_tools_keep_the_provider_s_results(tmp_path: Path, corpus: Corpus) -> None:
    source = _write(
        tmp_path / "search.yaml", bundled_interactions("anthropic-messages/web-search-beside-client-call.yaml")
    )
    _import(tmp_path, source, corpus)
    scenario = _written(tmp_path).scenarios["anthropic-messages/recorded/search"]
    search = scenario.turns[0].calls[0]
    assert search.provider_executed and search.name == "web_search" and "web_search_result" in search.output
    assert "server-tool" in scenario.features


def test_calls_the_recording_never_answered_get_the_suite_s_own_distinct_outputs(
    tmp_path: Path, corpus: Corpus
) -> None:
    """An empty canned output cannot be told from a result a client lost or replaced with a placeholder, and
    equal outputs hide results given to the wrong call: each unanswered call gets words of its own."""
    first = bundled_interactions("openai-chat/parallel-same-tool.yaml")[:1]  # the response with the calls
    source = _write(tmp_path / "stops.yaml", first)
    report = _import(tmp_path, source, corpus, revoice=False)
    scenario = _written(tmp_path).scenarios[report.imported[0].case_id]
    outputs = [c.output for c in scenario.turns[-1].calls]
    assert len(outputs) == 2 and all(outputs) and len(set(outputs)) == 2
    assert all(json.loads(o)["note"] == "the recording never sent this result" for o in outputs)
    assert scenario.answer_order == "as-called"  # nothing was sent back, so no order was read
    written = next((tmp_path / "out" / "cases").rglob("*.yaml")).read_text()
    assert "outputs are the suite''s own" in written


def test_a_question_asked_after_the_answer_begins_a_run_of_its_own(tmp_path: Path, corpus: Corpus) -> None:
    """The recording answers with a web search, then asks another question: the second turn is a run of a
    session (its prompt), which a client's single tool loop never asks; a client is not failed for it."""
    source = _write(
        tmp_path / "asked.yaml",
        bundled_interactions("recorded/mirascope-mirascope/openai-responses/mirascope-web-search-tool.yaml"),
    )
    _import(tmp_path, source, corpus, revoice=False)
    written = _written(tmp_path)
    scenario = written.scenarios["openai-responses/recorded/asked"]
    asked = [t.prompt for t in scenario.turns]
    assert (
        asked[0] is None
        and asked[1] == corpus.scenarios["openai-responses/recorded/mirascope-web-search-tool"].turns[1].prompt
    )
    assert codec_only(scenario) == "a session of several runs, which only a codec adapter can be handed run by run"
    assert run_scenario(REFERENCE, scenario, written).outcome == "pass"


def test_a_text_sent_beside_tool_results_is_no_new_question(tmp_path: Path, corpus: Corpus) -> None:
    """CrewAI sends a user text with Gemini's function responses: that is the loop going on, not a new run."""
    source = _write(
        tmp_path / "beside.yaml",
        bundled_interactions("recorded/crewaiinc-crewai/gemini/crewai-tool-returning-float.yaml"),
    )
    _import(tmp_path, source, corpus, revoice=False)
    scenario = _written(tmp_path).scenarios["gemini/recorded/beside"]
    assert [t.prompt for t in scenario.turns] == [None] * len(scenario.turns)
    assert codec_only(scenario) is None


def test_a_conversation_moved_to_another_api_keeps_its_history(tmp_path: Path, corpus: Corpus) -> None:
    gemini = bundled_interactions("gemini/one-call.yaml")
    anthropic = bundled_interactions("anthropic-messages/one-call.yaml")
    served = yaml.safe_load((ROOT / "cassettes" / "gemini/one-call.yaml").read_text())
    call = json.loads(served["interactions"][0]["response"]["body"]["string"])["candidates"][0]["content"]["parts"][0]
    body = request_body(anthropic[0])
    body["messages"] += [
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_01Moved",
                    "name": call["functionCall"]["name"],
                    "input": call["functionCall"]["args"],
                }
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01Moved", "content": "21"}]},
    ]
    last = with_request_body(anthropic[1], body)
    source = _write(tmp_path / "moved.yaml", [gemini[0], last])
    report = _import(tmp_path, source, corpus)
    assert [i.case_id for i in report.imported] == ["gemini/recorded/moved", "anthropic-messages/recorded/moved-2"]
    moved = _written(tmp_path).scenarios["anthropic-messages/recorded/moved-2"]
    assert moved.history is not None and moved.history.api == "gemini"
    assert [(c.id, c.name, c.output) for t in moved.history.turns for c in t.calls] == [
        (call["functionCall"].get("id"), call["functionCall"]["name"], "21")
    ]
    assert "cross-provider" in moved.features
    gemini_turn = _written(tmp_path).scenarios["gemini/recorded/moved"].turns[0]
    assert gemini_turn.calls[0].output == "21"  # the output the client sent on the other API


def test_credentials_are_scrubbed_wherever_they_stand(tmp_path: Path, corpus: Corpus) -> None:
    interactions = bundled_interactions("openai-chat/one-call.yaml")
    first = copy.deepcopy(interactions[0])
    first["request"]["headers"]["authorization"] = ["Bearer sk-proj-abcdefghijklmnopqrstuvwxyz012345"]
    first["request"]["uri"] += "?key=AIzaSyA1234567890abcdefghijklmnopqrstuv"
    body = request_body(first)
    body["messages"][0]["content"] += " (my key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz)"
    first = with_request_body(first, body)
    first["response"]["headers"]["set-cookie"] = ["session=secret"]
    source = _write(tmp_path / "keys.yaml", [first, interactions[1]])
    report = _import(tmp_path, source, corpus)
    text = report.imported[0].cassette_path.read_text()
    for secret in ("sk-proj-abc", "AIzaSyA123", "sk-ant-api03", "session=secret"):
        assert secret not in text
    assert "<scrubbed>" in text


def test_gzip_bodies_are_written_decompressed(tmp_path: Path, corpus: Corpus) -> None:
    interactions = bundled_interactions("openai-chat/one-call.yaml")
    for interaction in interactions:
        raw = interaction["response"]["body"]["string"].encode()
        interaction["response"]["body"]["string"] = gzip.compress(raw)
        interaction["response"]["headers"]["content-encoding"] = ["gzip"]
    report = _import(tmp_path, _write(tmp_path / "zipped.yaml", interactions), corpus)
    written = yaml.safe_load(report.imported[0].cassette_path.read_text())
    response = written["interactions"][0]["response"]
    assert "content-encoding" not in response["headers"] and json.loads(response["body"]["string"])


def test_text_only_traffic_is_refused(tmp_path: Path, corpus: Corpus) -> None:
    last = bundled_interactions("openai-chat/one-call.yaml")[1]
    body = request_body(last)
    body["messages"] = body["messages"][:1]
    report = _import(tmp_path, _write(tmp_path / "text.yaml", [with_request_body(last, body)]), corpus)
    assert not report.imported
    assert [r.reason for r in report.refused] == [
        "no tool calls: no response serves one and the first request carries none"
    ]


@pytest.mark.parametrize(
    "change, reason",
    [
        (lambda b: b["messages"][1]["tool_calls"][0].update(id="call_other"), "with the id 'call_other'"),
        (lambda b: b["messages"][1]["tool_calls"].pop(1), "drops the call get_weather"),
        (lambda b: b["messages"].pop(3), "without its result"),
    ],
)
def test_a_conversation_the_client_contradicts_is_refused(
    tmp_path: Path, corpus: Corpus, change: Any, reason: str
) -> None:
    first, second = bundled_interactions("openai-chat/parallel-same-tool.yaml")
    body = request_body(second)
    change(body)
    report = _import(tmp_path, _write(tmp_path / "bad.yaml", [first, with_request_body(second, body)]), corpus)
    assert not report.imported and len(report.refused) == 1
    assert reason in report.refused[0].reason


def test_an_unreadable_body_is_refused_and_a_foreign_request_skipped(tmp_path: Path, corpus: Corpus) -> None:
    first, second = bundled_interactions("openai-chat/one-call.yaml")
    broken = copy.deepcopy(second)
    broken["request"]["body"] = "{not json"
    telemetry = copy.deepcopy(first)
    telemetry["request"]["uri"] = "https://telemetry.example.com/v1/traces"
    report = _import(tmp_path, _write(tmp_path / "broken.yaml", [telemetry, first, broken]), corpus)
    assert report.skipped == ["interaction[0]: no dialect for POST telemetry.example.com/v1/traces"]
    assert [r.interactions for r in report.refused] == [[2]]
    assert report.refused[0].reason.startswith("unreadable openai-chat interaction: request body is not JSON")


def test_an_http_error_is_no_served_turn(tmp_path: Path, corpus: Corpus) -> None:
    first, second = bundled_interactions("openai-chat/one-call.yaml")
    second = copy.deepcopy(second)
    second["response"]["status"] = {"code": 400, "message": "Bad Request"}
    report = _import(tmp_path, _write(tmp_path / "error.yaml", [first, second]), corpus)
    assert "response[1] is an HTTP 400 error" in report.refused[0].reason


def test_several_conversations_become_several_scenarios(tmp_path: Path, corpus: Corpus) -> None:
    one = bundled_interactions("openai-chat/one-call.yaml")
    chain = bundled_interactions("openai-chat/three-turn-chain.yaml")
    report = _import(tmp_path, _write(tmp_path / "two.yaml", [*one, *chain]), corpus, case_id="two-tests")
    assert [(i.case_id, i.interactions) for i in report.imported] == [
        ("openai-chat/recorded/two-tests", [0, 1]),
        ("openai-chat/recorded/two-tests-2", [2, 3, 4]),
    ]
    only = _import(tmp_path, _write(tmp_path / "two.yaml", [*one, *chain]), corpus, conversations=(2,), force=True)
    assert [i.interactions for i in only.imported] == [[2, 3, 4]]


@pytest.mark.parametrize(
    "recorded",
    [
        "anthropic-messages/recorded/mirascope-web-search-tool",
        "openai-responses/recorded/logfire-openai-agents-file-search",
    ],
)
def test_a_new_user_message_after_an_answer_opens_a_run_of_a_session(
    tmp_path: Path, corpus: Corpus, recorded: str
) -> None:
    """The recording goes on after the model's answer with a user message of its own: a session's next run,
    which no tool loop sends by itself. Read as a plain continuation, every client was reported as never
    sending the second request."""
    bundled = corpus.scenarios[recorded]
    source = _write(tmp_path / "session.yaml", bundled_interactions(str(bundled.cassette)))
    _import(tmp_path, source, corpus, revoice=False, case_id="session")
    written = _written(tmp_path)
    scenario = written.scenarios[f"{bundled.api}/recorded/session"]
    assert [t.prompt for t in scenario.turns] == [t.prompt for t in bundled.turns]
    assert scenario.turns[0].prompt is None and scenario.turns[1].prompt
    assert "session" in scenario.features and "session" in bundled.features
    assert run_scenario(REFERENCE, scenario, written).outcome == "pass"


def test_a_third_party_source_is_recorded_beside_the_scenario(tmp_path: Path, corpus: Corpus) -> None:
    source = Source(
        repository="owner/name", path="tests/cassettes/x.yaml", commit="a" * 40, licence="MIT", read="2026-01-02"
    )
    report = _import(
        tmp_path, _write(tmp_path / "x.yaml", bundled_interactions("openai-chat/one-call.yaml")), corpus, source=source
    )
    scenario = _written(tmp_path).scenarios[report.imported[0].case_id]
    assert scenario.source is not None and scenario.source.licence == "MIT" and scenario.source.commit == "a" * 40
    assert scenario.source.url == f"https://github.com/owner/name/blob/{'a' * 40}/tests/cassettes/x.yaml"
    assert report.imported[0].cassette_path == tmp_path / "out/cassettes/recorded/owner-name/openai-chat/name-x.yaml"


def test_a_polly_recording_is_named_by_its_test_without_should(tmp_path: Path, corpus: Corpus) -> None:
    # Polly.js writes `recording.har` into a folder per mocha/jest test title, which starts "should";
    # the description (whose rule refuses "should") names the test by its folder, the word dropped.
    path = "recordings/Test-OpenAI_1770406427/should-call-the-weather-tool_1703714575/recording.har"
    source = Source(repository="owner/name", path=path, commit="a" * 40, licence="MIT", read="2026-01-02")
    recording = _write(tmp_path / "recording.yaml", bundled_interactions("openai-chat/one-call.yaml"))
    report = _import(tmp_path, recording, corpus, source=source)
    assert len(report.imported) == 1, report.refused
    description = _written(tmp_path).scenarios[report.imported[0].case_id].description
    assert description.endswith("(name: call-the-weather-tool)"), description


def test_the_command_writes_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _write(tmp_path / "call.yaml", bundled_interactions("openai-chat/one-call.yaml"))
    assert main(["import", str(source), "--output", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "imported openai-chat/recorded/call from interactions [0, 1]" in out
    assert main(["check", "--cases", str(tmp_path / "out" / "cases"), "--no-examples"]) == 0
    assert main(["import", str(source), "--output", str(tmp_path / "out")]) == 1  # exists, not replaced
    assert "use --force" in capsys.readouterr().out
    assert main(["import", str(source), "--source-repo", "owner/name"]) == 2
    garbage = tmp_path / "garbage.yaml"
    garbage.write_text("interactions: [")
    assert main(["import", str(garbage), "--output", str(tmp_path / "out")]) == 2


def test_a_bundled_recorded_scenario_must_name_its_repository(tmp_path: Path) -> None:
    from conformance.check import check_corpus

    cases = tmp_path / "cases" / "scenarios" / "openai-chat" / "recorded"
    cases.mkdir(parents=True)
    source = {"repository": "owner/name", "path": "x.yaml", "commit": "b" * 40, "read": "2026-01-01"}
    for slug, licence in (("gpl", "GPL-3.0"), ("mit", "MIT")):
        doc = yaml.safe_load((ROOT / "cases/scenarios/openai-chat/one-call.yaml").read_text())
        doc.update(
            id=f"openai-chat/recorded/{slug}",
            provenance="recorded",
            description=f"A recorded scenario under the {licence} licence",
            source={**source, "licence": licence},
        )
        (cases / f"{slug}.yaml").write_text(yaml.safe_dump(doc))
    report = check_corpus([tmp_path / "cases"], [ROOT / "cassettes"], examples=False)
    rules = {(p.rule, Path(p.path).name) for p in report.problems}
    assert ("schema:enum", "gpl.yaml") in rules  # GPL-3.0 is not a licence the corpus takes
    assert ("source", "mit.yaml") in rules  # its cassette is a constructed one


@pytest.mark.skipif(not REAL_TRAFFIC.is_dir(), reason="the shared real-traffic recordings are not beside this checkout")
def test_every_shared_real_recording_imports_or_is_refused_with_a_reason(tmp_path: Path, corpus: Corpus) -> None:
    for path in sorted(REAL_TRAFFIC.rglob("*.yaml")):
        out = tmp_path / path.parent.name
        report = import_cassette(path, corpus, Options(output=out))
        assert report.imported or report.refused, path
        for refusal in report.refused:
            assert refusal.reason, path
        for imported in report.imported:
            assert not imported.reference, (path, imported.reference)


def test_account_headers_of_a_response_are_scrubbed(tmp_path: Path, corpus: Corpus) -> None:
    interactions = bundled_interactions("openai-chat/parallel-same-tool.yaml")
    for interaction in interactions:
        interaction["response"]["headers"]["openai-project"] = ["proj_2kPLXdwNOjkHt3ifb0aZ4FwU"]
        interaction["response"]["headers"]["openai-organization"] = ["user-abcdefghijklmnop"]
    report = _import(tmp_path, _write(tmp_path / "account.yaml", interactions), corpus)
    written = report.imported[0].cassette_path.read_text()
    assert "proj_2kPLXdwNOjkHt3ifb0aZ4FwU" not in written and "user-abcdefghijklmnop" not in written


def test_an_account_name_is_scrubbed_from_the_traffic_not_from_the_source_s_name(
    tmp_path: Path, corpus: Corpus
) -> None:
    # The organisation a response header names can be the repository's owner: the traffic loses it,
    # the provenance (the suite's own words) keeps the source's name and the import passes the checks.
    interactions = bundled_interactions("openai-chat/one-call.yaml")
    for interaction in interactions:
        interaction["response"]["headers"]["openai-organization"] = ["acmeowner"]
    source = Source(repository="acmeowner/tools", path="t/x.yaml", commit="a" * 40, licence="MIT", read="2026-01-02")
    report = _import(tmp_path, _write(tmp_path / "x.yaml", interactions), corpus, source=source, case_id="acmeowner-x")
    assert len(report.imported) == 1, report.refused
    written = yaml.safe_load(report.imported[0].cassette_path.read_text())
    assert written["provenance"]["source"]["repository"] == "acmeowner/tools"
    assert written["provenance"]["scenario"] == "openai-chat/recorded/acmeowner-x"
    assert {i["response"]["headers"]["openai-organization"][0] for i in written["interactions"]} == {"<scrubbed>"}
