"""WireMock stub mappings its recorder wrote (Java suites' recordings): read by `conformance lint` and
`conformance import` in each layout a suite keeps them in, and a stub that records no traffic refused
with its place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from conformance.corpus.loading import Corpus
from conformance.importer import Options, import_cassette
from conformance.importer.formats import load_recording
from conformance.lint import lint_path
from conformance.recordings.cassette import CassetteError

TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
ASK = {"role": "user", "content": "What is the weather in Lyon?"}
CALL = {"id": "call_Lw3TnY8qfKb2xR5mZp0sVd1c", "type": "function"}
CALL["function"] = {"name": "get_weather", "arguments": '{"city":"Lyon"}'}
CALLED = {"role": "assistant", "content": None, "tool_calls": [CALL]}
ANSWERED = {"role": "tool", "tool_call_id": CALL["id"], "content": "14 C, light rain"}
SERVED = {"Content-Type": "application/json", "openai-version": "2020-10-01", "Content-Encoding": "gzip"}


def _completion(message: dict[str, object], finish: str) -> dict[str, object]:
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o", "choices": [choice]}


def stubs(json_body: bool = False) -> list[dict[str, object]]:
    """The two stubs WireMock's recorder writes for a tool call and its answer (request bodies pretty-printed)."""
    turns = [
        ({"model": "gpt-4o", "messages": [ASK], "tools": [TOOL]}, _completion(CALLED, "tool_calls")),
        (
            {"model": "gpt-4o", "messages": [ASK, CALLED, ANSWERED], "tools": [TOOL]},
            _completion({"role": "assistant", "content": "It is 14 C and raining in Lyon."}, "stop"),
        ),
    ]
    written = []
    for n, (request, response) in enumerate(turns):
        served: dict[str, object] = {"status": 200, "headers": SERVED}
        served.update({"jsonBody": response} if json_body else {"body": json.dumps(response)})
        written.append(
            {
                "id": f"3f9cba30-8e45-408c-8f93-8a2f28fc114{n}",
                "name": "chat_completions",
                "request": {
                    "url": "/chat/completions",
                    "method": "POST",
                    "bodyPatterns": [{"equalToJson": json.dumps(request, indent=2), "ignoreArrayOrder": False}],
                },
                "response": served,
                "persistent": True,
                "insertionIndex": n + 2,
            }
        )
    return written


def _write(tmp_path: Path, layout: str, written: list[dict[str, object]]) -> Path:
    if layout == "yaml-stream":  # one test's stubs as a YAML stream, one document each
        path = tmp_path / "chattest.yaml"
        path.write_text(yaml.safe_dump_all(written, explicit_start=True, sort_keys=False), encoding="utf-8")
    else:
        path = tmp_path / "mappings.json"
        path.write_text(json.dumps({"mappings": written}, indent=2), encoding="utf-8")
    return path


@pytest.mark.parametrize(("layout", "json_body"), [("yaml-stream", False), ("mappings", True)])
def test_recorded_stubs_are_linted_and_imported(layout: str, json_body: bool, corpus: Corpus, tmp_path: Path) -> None:
    path = _write(tmp_path, layout, stubs(json_body))
    cassette = load_recording(path)
    assert [i.request.uri for i in cassette] == ["https://api.openai.com/chat/completions"] * 2
    assert cassette.interactions[0].response.json()["choices"][0]["message"]["tool_calls"][0]["id"] == CALL["id"]
    assert "content-encoding" not in cassette.interactions[0].response.headers  # the text is decoded
    report = lint_path(path, corpus)
    assert report.checked == {"openai-chat": 2} and not report.unreadable, report.unreadable
    imported = import_cassette(path, corpus, Options(output=tmp_path / "out", case_id="wiremock"))
    assert [i.case_id for i in imported.imported] == ["openai-chat/recorded/wiremock"], imported.refused


def test_a_single_stub_file_without_a_provider_header_is_a_local_server(tmp_path: Path) -> None:
    stub = stubs()[0]
    stub["response"] = {"status": 200, "body": stub["response"]["body"]}  # type: ignore[index]
    path = tmp_path / "chat_completions-3f9cba30.json"
    path.write_text(json.dumps(stub), encoding="utf-8")
    assert [i.request.uri for i in load_recording(path)] == ["http://localhost:8080/chat/completions"]


def test_a_stub_that_matches_the_body_instead_of_recording_it_is_a_located_error(tmp_path: Path) -> None:
    written = stubs()
    written[1]["request"]["bodyPatterns"] = [{"contains": "Lyon"}]  # type: ignore[index]
    path = _write(tmp_path, "mappings", written)
    with pytest.raises(CassetteError, match=r"interaction\[1\]: a WireMock stub: the request body is matched"):
        load_recording(path)


def test_a_body_file_outside_the_recorder_s_folder_is_refused(tmp_path: Path) -> None:
    written = stubs()
    written[0]["response"] = {"status": 200, "bodyFileName": "../../secret.json"}
    path = _write(tmp_path, "mappings", written)
    with pytest.raises(CassetteError, match=r"interaction\[0\]: .* is outside the recorder's __files folder"):
        load_recording(path)


def test_a_body_file_in_the_recorder_s_folder_is_read(tmp_path: Path) -> None:
    (tmp_path / "mappings").mkdir()
    (tmp_path / "__files").mkdir()
    written = stubs()
    (tmp_path / "__files" / "body-1.json").write_text(written[0]["response"]["body"], encoding="utf-8")  # type: ignore[index]
    written[0]["response"] = {"status": 200, "bodyFileName": "body-1.json", "headers": SERVED}
    path = _write(tmp_path / "mappings", "mappings", written)
    assert load_recording(path).interactions[0].response.json()["choices"][0]["finish_reason"] == "tool_calls"
