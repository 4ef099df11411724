"""Other languages' recordings: go-vcr cassettes at each cassette version, HTTP Archives (LangChain.js,
Polly.js), and vcrpy cassettes recorded through aiohttp: read by
`conformance lint` and `conformance import`, on small cassettes written here in each recorder's
layout (a two-turn OpenAI chat exchange with one tool call)."""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.corpus.loading import Corpus
from conformance.importer import Options, import_cassette
from conformance.importer.formats import load_recording
from conformance.lint import lint_path
from conformance.recordings.bounds import MAX_BODY_BYTES
from conformance.recordings.cassette import CassetteError

URL = "https://api.openai.com/v1/chat/completions"
TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
ASK = {"role": "user", "content": "What is the weather in Lyon?"}
CALL = {"id": "call_Lw3TnY8qfKb2xR5mZp0sVd1c", "type": "function"}
CALL["function"] = {"name": "get_weather", "arguments": '{"city":"Lyon"}'}
CALLED = {"role": "assistant", "content": None, "tool_calls": [CALL]}
ANSWERED = {"role": "tool", "tool_call_id": CALL["id"], "content": "14 C, light rain"}


def _completion(message: dict[str, object], finish: str) -> str:
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o", "choices": [choice]})


EXCHANGES = [
    (json.dumps({"model": "gpt-4o", "messages": [ASK], "tools": [TOOL]}), _completion(CALLED, "tool_calls")),
    (
        json.dumps({"model": "gpt-4o", "messages": [ASK, CALLED, ANSWERED], "tools": [TOOL]}),
        _completion({"role": "assistant", "content": "It is 14 C and raining in Lyon."}, "stop"),
    ),
]


def _quoted(text: str) -> str:
    return json.dumps(text)  # a JSON string is a YAML double-quoted scalar


def govcr(version: str) -> str:
    """A cassette as go-vcr `version` writes one: v1 (format 1), v2 (format 1 with durations), v3 and v4
    (format 2, every field of Go's request and response)."""
    format_version = 1 if version in ("v1", "v2") else 2
    lines = ["---", f"version: {format_version}", "interactions:"]
    for index, (request, response) in enumerate(EXCHANGES):
        if format_version == 1:
            lines += [
                "- request:",
                f"    body: {_quoted(request)}",
                "    form: {}",
                "    headers:",
                "      Content-Type:",
                "      - application/json",
                f"    url: {URL}",
                "    method: POST",
                "  response:",
                f"    body: {_quoted(response)}",
                "    headers:",
                "      Content-Type:",
                "      - application/json",
                "    status: 200 OK",
                "    code: 200",
            ]
            if version == "v2":
                lines.append("    duration: 812.5ms")
            continue
        lines += [
            f"    - id: {index}",
            "      request:",
            "        proto: HTTP/1.1",
            "        proto_major: 1",
            "        proto_minor: 1",
            f"        content_length: {len(request)}",
            "        transfer_encoding: []",
            "        trailer: {}",
            "        host: api.openai.com",
            '        remote_addr: ""',
            '        request_uri: ""',
            f"        body: {_quoted(request)}",
            "        form: {}",
            "        headers:",
            "            Content-Type:",
            "                - application/json",
            f"        url: {URL}",
            "        method: POST",
            "      response:",
            "        proto: HTTP/2.0",
            "        proto_major: 2",
            "        proto_minor: 0",
            "        transfer_encoding: []",
            "        trailer: {}",
            "        content_length: -1",
            "        uncompressed: true",
            f"        body: {_quoted(response)}",
            "        headers:",
            "            Content-Type:",
            "                - application/json",
            '        status: "200 OK"' if version == "v4" else "        status: 200 OK",
            "        code: 200",
            "        duration: 1.204s" if version == "v3" else "        duration: 1204711250ns",
        ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("version", ["v1", "v2", "v3", "v4"])
def test_go_vcr_cassettes_of_every_version_are_linted_and_imported(
    version: str, corpus: Corpus, tmp_path: Path
) -> None:
    path = tmp_path / f"weather-{version}.yaml"
    path.write_text(govcr(version), encoding="utf-8")
    cassette = load_recording(path)
    assert [i.response.status for i in cassette] == [200, 200]
    assert all(i.request.uri == URL and i.request.method == "POST" for i in cassette)
    assert cassette.interactions[0].response.json()["choices"][0]["message"]["tool_calls"][0]["id"] == CALL["id"]
    assert cassette.interactions[1].request.headers["content-type"] == ("application/json",)
    report = lint_path(path, corpus)
    assert report.checked == {"openai-chat": 2} and not report.unreadable, report.unreadable
    imported = import_cassette(path, corpus, Options(output=tmp_path / "out", case_id=f"govcr-{version}"))
    assert [i.case_id for i in imported.imported] == [f"openai-chat/recorded/govcr-{version}"], imported.refused


def test_the_lint_command_reads_a_go_vcr_cassette(tmp_path: Path) -> None:
    path = tmp_path / "weather.yaml"
    path.write_text(govcr("v4"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "lint", str(path)], capture_output=True, text=True, timeout=300
    )
    assert "cannot read" not in done.stdout + done.stderr and "not an HTTP status" not in done.stdout + done.stderr
    assert done.returncode in (0, 1), done.stderr
    assert "openai-chat" in done.stdout, done.stdout


def test_a_go_vcr_cassette_of_an_unknown_version_is_refused_with_the_versions_read(tmp_path: Path) -> None:
    path = tmp_path / "future.yaml"
    path.write_text(govcr("v4").replace("version: 2", "version: 3", 1), encoding="utf-8")
    with pytest.raises(CassetteError, match="go-vcr cassette version 3: versions 1 and 2 are read"):
        load_recording(path)


def test_a_go_vcr_response_without_a_code_is_a_located_error(tmp_path: Path) -> None:
    path = tmp_path / "nocode.yaml"
    text = govcr("v1").replace("    code: 200\n", "").replace("status: 200 OK", "status: fine")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CassetteError, match=r"interaction\[0\]: the response has no `code`"):
        load_recording(path)


def test_a_go_vcr_body_goes_through_the_same_bounds_as_a_vcrpy_one(tmp_path: Path) -> None:
    # A gzip bomb as a go-vcr body: refused by the decompression bound, located, not inflated.
    bomb = gzip.compress(b"{" + b" " * (MAX_BODY_BYTES + 10) + b"}")
    text = govcr("v3")
    body = _quoted(EXCHANGES[0][1])
    text = text.replace(f"        body: {body}", f"        body: !!binary {base64.b64encode(bomb).decode()}", 1)
    path = tmp_path / "bomb.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CassetteError, match=r"interaction\[0\]: the response body \(gzip\) decompresses to more than"):
        load_recording(path)


AIOHTTP = """interactions:
- request:
    body: {request}
    headers:
      Content-Type:
      - application/json
    method: POST
    uri: {url}
  response:
    body:
      string: {response}
    headers:
      ? !!python/object/apply:multidict._multidict.istr
      - Content-Type
      : - application/json
      ? !!python/object/apply:multidict._multidict.istr
      - Openai-Processing-Ms
      : - '412'
    status:
      code: 200
      message: OK
    url: !!python/object/new:yarl.URL
      state: !!python/tuple
      - !!python/object/new:urllib.parse.SplitResult
        - https
        - api.openai.com
        - /v1/chat/completions
        - ''
        - ''
version: 1
"""


def test_a_vcrpy_cassette_recorded_through_aiohttp_is_read_without_running_its_tags(
    corpus: Corpus, tmp_path: Path
) -> None:
    path = tmp_path / "aiohttp.yaml"
    request, response = EXCHANGES[0]
    path.write_text(AIOHTTP.format(request=_quoted(request), response=_quoted(response), url=URL), encoding="utf-8")
    cassette = load_recording(path)
    assert cassette.interactions[0].response.headers["content-type"] == ("application/json",)
    assert cassette.interactions[0].response.headers["openai-processing-ms"] == ("412",)
    report = lint_path(path, corpus)
    assert report.checked == {"openai-chat": 1} and not report.unreadable, report.unreadable


def test_a_python_tag_that_names_a_call_is_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = tmp_path / "hostile.yaml"
    request, response = EXCHANGES[0]
    text = AIOHTTP.format(request=_quoted(request), response=_quoted(response), url=URL)
    hostile = f"    run: !!python/object/apply:os.system ['touch {marker}']\n    url: !!python/object/new:yarl.URL"
    text = text.replace("    url: !!python/object/new:yarl.URL", hostile)
    path.write_text(text, encoding="utf-8")
    with contextlib.suppress(CassetteError):  # refusing it is fine; running it is not
        load_recording(path)
    assert not marker.exists()


ANTHROPIC = "https://api.anthropic.com/v1/messages"
TOOL_USE = {
    "type": "tool_use",
    "id": "toolu_01Kx7WmQ2rTn5VbYc8LpZs3F",
    "name": "get_weather",
    "input": {"city": "Lyon"},
}
RESULT = {"type": "tool_result", "tool_use_id": TOOL_USE["id"], "content": "14 C, light rain"}
ASK_ANTHROPIC = {"role": "user", "content": "What is the weather in Lyon?"}
TOOLS = [{"name": "get_weather", "input_schema": {"type": "object"}}]


def _message(content: list[dict[str, object]], stop: str) -> dict[str, object]:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": stop,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def har(base64_second: bool = False) -> dict[str, object]:
    """An archive as LangChain.js's net-mocks writes one: two turns of an Anthropic tool call."""
    turns = [
        (
            {"model": "claude-sonnet-4-5", "max_tokens": 256, "tools": TOOLS, "messages": [ASK_ANTHROPIC]},
            _message([TOOL_USE], "tool_use"),
        ),
        (
            {
                "model": "claude-sonnet-4-5",
                "max_tokens": 256,
                "tools": TOOLS,
                "messages": [
                    ASK_ANTHROPIC,
                    {"role": "assistant", "content": [TOOL_USE]},
                    {"role": "user", "content": [RESULT]},
                ],
            },
            _message([{"type": "text", "text": "14 C and raining in Lyon."}], "end_turn"),
        ),
    ]
    entries = []
    for n, (request, response) in enumerate(turns):
        text = json.dumps(response)
        content: dict[str, object] = {"mimeType": "application/json", "size": len(text), "text": text}
        if base64_second and n == 1:
            content = {**content, "text": base64.b64encode(gzip.compress(text.encode())).decode(), "encoding": "base64"}
        entries.append(
            {
                "startedDateTime": "2026-01-05T10:00:00.000Z",
                "time": 812.5,
                "request": {
                    "method": "POST",
                    "url": ANTHROPIC,
                    "httpVersion": "HTTP/1.1",
                    "cookies": [],
                    "headers": [
                        {"name": "content-type", "value": "application/json"},
                        {"name": "x-api-key", "value": "<redacted>"},
                    ],
                    "queryString": [],
                    "postData": {"mimeType": "application/json", "text": json.dumps(request)},
                    "headersSize": -1,
                    "bodySize": -1,
                },
                "response": {
                    "status": 200,
                    "statusText": "OK",
                    "httpVersion": "HTTP/1.1",
                    "cookies": [],
                    # The archive's text is decoded: this header describes the wire, not the text.
                    "headers": [
                        {"name": "content-type", "value": "application/json"},
                        {"name": "content-encoding", "value": "gzip" if base64_second and n == 1 else "br"},
                    ],
                    "content": content,
                    "redirectURL": "",
                    "headersSize": -1,
                    "bodySize": -1,
                },
                "cache": {},
                "timings": {"send": 0, "wait": 800, "receive": 12},
            }
        )
    return {"log": {"version": "1.2", "creator": {"name": "langchain-net-mocks", "version": "1"}, "entries": entries}}


@pytest.mark.parametrize("base64_second", [False, True])
def test_an_http_archive_is_linted_and_imported(base64_second: bool, corpus: Corpus, tmp_path: Path) -> None:
    path = tmp_path / "ChatAnthropic_calls_a_tool.har"
    path.write_text(json.dumps(har(base64_second)), encoding="utf-8")
    cassette = load_recording(path)
    assert [i.request.uri for i in cassette] == [ANTHROPIC, ANTHROPIC]
    assert cassette.interactions[0].response.json()["content"][0]["id"] == TOOL_USE["id"]
    assert cassette.interactions[1].response.json()["stop_reason"] == "end_turn"
    report = lint_path(path, corpus)
    assert report.checked == {"anthropic-messages": 2} and not report.unreadable, report.unreadable
    imported = import_cassette(path, corpus, Options(output=tmp_path / "out", case_id="har"))
    assert [i.case_id for i in imported.imported] == ["anthropic-messages/recorded/har"], imported.refused


def test_an_archive_by_its_content_not_its_name_is_read(tmp_path: Path) -> None:
    path = tmp_path / "recording.json"
    path.write_text(json.dumps(har()), encoding="utf-8")
    assert len(load_recording(path)) == 2


def test_an_archive_body_goes_through_the_same_bounds_as_a_vcrpy_one(tmp_path: Path) -> None:
    archive = har()
    bomb = gzip.compress(b"{" + b" " * (MAX_BODY_BYTES + 10) + b"}")
    entry = archive["log"]["entries"][1]  # type: ignore[index]
    entry["response"]["content"] = {"encoding": "base64", "text": base64.b64encode(bomb).decode()}
    path = tmp_path / "bomb.har"
    path.write_text(json.dumps(archive), encoding="utf-8")
    with pytest.raises(CassetteError, match=r"interaction\[1\]: the response body \(gzip\) decompresses to more than"):
        load_recording(path)


def test_an_archive_entry_without_a_status_is_a_located_error(tmp_path: Path) -> None:
    archive = har()
    del archive["log"]["entries"][0]["response"]["status"]  # type: ignore[index]
    path = tmp_path / "nostatus.har"
    path.write_text(json.dumps(archive), encoding="utf-8")
    with pytest.raises(CassetteError, match=r"interaction\[0\]: the response status 'None' is not an HTTP status"):
        load_recording(path)


def _polly_chunked(archive: dict[str, object], chunks: object) -> dict[str, object]:
    entry = archive["log"]["entries"][1]  # type: ignore[index]
    entry["response"]["content"] = {"encoding": "base64", "mimeType": "application/json", "text": json.dumps(chunks)}
    entry["response"]["headers"] = [{"name": "content-encoding", "value": "gzip"}]
    return archive


def test_a_polly_archive_of_base64_chunks_is_read_as_the_chunks_joined(tmp_path: Path) -> None:
    # Polly.js's node-http adapter keeps a compressed body as the JSON array of each chunk's base64.
    archive = har()
    text = archive["log"]["entries"][1]["response"]["content"]["text"]  # type: ignore[index]
    wire = gzip.compress(text.encode())
    chunks = [base64.b64encode(wire[:10]).decode(), base64.b64encode(wire[10:]).decode()]
    path = tmp_path / "recording.har"
    path.write_text(json.dumps(_polly_chunked(archive, chunks)), encoding="utf-8")
    assert load_recording(path).interactions[1].response.json()["stop_reason"] == "end_turn"


@pytest.mark.parametrize("chunks", [[1, 2], ["not base64!"]])
def test_a_polly_chunk_list_that_is_not_base64_texts_is_a_located_error(chunks: object, tmp_path: Path) -> None:
    path = tmp_path / "recording.har"
    path.write_text(json.dumps(_polly_chunked(har(), chunks)), encoding="utf-8")
    with pytest.raises(CassetteError, match=r"interaction\[1\]: the response's base64 content is"):
        load_recording(path)
