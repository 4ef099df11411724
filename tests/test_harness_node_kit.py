"""The shared Node harness kit (harnesses/node-kit): the protocol loop every JavaScript framework
harness runs on, driven line by line through a harness that uses nothing else."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import jsonschema
import pytest
from conftest import ROOT
from toolchains import require

require("node", unit=None)

HARNESS = ROOT / "tests" / "harnesses" / "kit_harness.mjs"
SCHEMA = json.loads((ROOT / "conformance" / "schemas" / "harness.schema.json").read_text(encoding="utf-8"))


def _valid(message: dict[str, Any], kind: str) -> dict[str, Any]:
    jsonschema.validate(message, {**SCHEMA, "$ref": f"#/$defs/{kind}"})
    return message


@pytest.fixture(scope="module")
def tools_url() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A stand-in for the replay's tool endpoint: it records each toolCall and answers an output."""
    received: list[dict[str, Any]] = []

    class Tools(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append(json.loads(self.rfile.read(int(self.headers["content-length"]))))
            body = json.dumps({"output": '{"temp_c": 18}'}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Tools)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/_conformance/tools/openai-chat/one-call", received
    finally:
        server.shutdown()


def _case(prompt: str, tools_url: str = "http://127.0.0.1:9/tools") -> dict[str, Any]:
    return {
        "id": "openai-chat/one-call",
        "api": "openai-chat",
        "base_url": "http://127.0.0.1:9/v1",
        "api_key": "conformance-replay-key",
        "model": "gpt-4o-mini",
        "prompt": prompt,
        "stream": False,
        "tools": [{"name": "get_weather", "parameters": {"type": "object"}}],
        "tools_url": tools_url,
    }


def _converse(
    *commands: dict[str, Any] | str, env: dict[str, str] | None = None
) -> tuple[list[dict[str, Any]], str, int]:
    """Every command as one line on the harness's stdin (then EOF); its stdout lines, stderr, status."""
    lines = "".join((c if isinstance(c, str) else json.dumps(c)) + "\n" for c in commands)
    environment = {**os.environ, **(env or {})}
    done = subprocess.run(
        ["node", str(HARNESS)], input=lines, capture_output=True, text=True, timeout=30, env=environment
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    return answers, done.stderr, done.returncode


START = {"cmd": "start", "version": 1}


def test_it_answers_start_with_the_version_and_the_identity() -> None:
    (started,), _, status = _converse(START)
    _valid(started, "started")
    assert started["version"] == 1 and status == 0
    implementation = started["implementation"]
    assert implementation["name"] == "kit-test" and implementation["language"] == "javascript"
    assert implementation["libraries"]["kit-test"] == "1.0.0" and implementation["libraries"]["node"].startswith("v")


def test_a_tool_output_comes_from_the_tools_url(tools_url: tuple[str, list[dict[str, Any]]]) -> None:
    url, received = tools_url
    (_, ran), _, _ = _converse(START, {"cmd": "run", "seq": 1, "case": _case("call", url)})
    assert _valid(ran, "ran") == {"seq": 1, "ok": True, "output": '{"temp_c": 18}'}
    assert _valid(received[-1], "toolCall") == {
        "name": "get_weather",
        "arguments": {"city": "Paris"},
        "call_id": "call_1",
    }


def test_the_trace_variable_logs_each_request_to_stderr(tools_url: tuple[str, list[dict[str, Any]]]) -> None:
    url, _ = tools_url
    run = {"cmd": "run", "seq": 1, "case": _case("call", url)}
    (_, ran), stderr, _ = _converse(START, run, env={"CONFORMANCE_HARNESS_TRACE": "1"})
    assert ran["ok"] and f">> POST {url}" in stderr and '"call_id":"call_1"' in stderr
    _, quiet, _ = _converse(START, run, env={"CONFORMANCE_HARNESS_TRACE": "0"})
    assert ">> POST" not in quiet


def test_runs_answer_ok_skipped_and_errored_with_their_seq() -> None:
    answers, _, _ = _converse(
        START,
        {"cmd": "run", "seq": 1, "case": _case("hello")},
        {"cmd": "run", "seq": 2, "case": _case("skip")},
        {"cmd": "run", "seq": 3, "case": _case("throw")},
    )
    ok, skipped, errored = (_valid(a, "ran") for a in answers[1:])
    assert ok == {"seq": 1, "ok": True, "output": "echo: hello"}
    assert skipped == {"seq": 2, "skipped": "this harness cannot express the case"}
    assert errored["seq"] == 3 and errored["errored"]["message"] == "the library broke"
    detail = errored["errored"]["detail"]
    assert "Error: the library broke" in detail and "caused by: TypeError: deep cause" in detail
    # Stack frames are named from the repository's root, not from this machine's.
    assert "(tests/harnesses/kit_harness.mjs:" in detail and str(ROOT) not in detail


def test_what_a_library_prints_goes_to_stderr_and_stdout_stays_the_protocol() -> None:
    answers, stderr, _ = _converse(START, {"cmd": "run", "seq": 1, "case": _case("print")})
    assert answers[1] == {"seq": 1, "ok": True, "output": "quiet"}
    assert "a library logging to stdout" in stderr and "and writing to it" in stderr


def test_requests_beyond_the_loopback_are_refused_as_the_cases_error() -> None:
    (_, ran), _, _ = _converse(START, {"cmd": "run", "seq": 1, "case": _case("outside")})
    assert "refused http://192.0.2.1" in ran["errored"]["message"]


def test_connections_below_fetch_reach_the_loopback_only(tools_url: tuple[str, list[dict[str, Any]]]) -> None:
    url, _ = tools_url
    (_, ran), _, _ = _converse(START, {"cmd": "run", "seq": 1, "case": _case("below-fetch", url)})
    seen = json.loads(ran["output"])
    assert len(seen["outside"]) == 5 and all(
        "allows connections to the replay on 127.0.0.1 only" in s for s in seen["outside"]
    )
    assert seen["inside"] == "answered 501"  # the stand-in answers GET so: the connection was made


def test_a_line_that_is_not_a_command_is_logged_and_the_loop_goes_on() -> None:
    answers, stderr, status = _converse(
        START, "not json", "null", "[1]", "7", {"cmd": "bogus"}, {"cmd": "run", "seq": 1, "case": _case("x")}
    )
    assert [a.get("seq") for a in answers] == [None, 1] and status == 0
    assert "not a JSON command" in stderr and "unknown command" in stderr and "not a command object" in stderr


def test_stop_ends_the_harness_without_an_answer_and_so_does_eof() -> None:
    answers, _, status = _converse(START, {"cmd": "stop"}, {"cmd": "run", "seq": 1, "case": _case("x")})
    assert len(answers) == 1 and status == 0
    answers, _, status = _converse(START)
    assert len(answers) == 1 and status == 0


HISTORY_CASE = {
    "history_api": "gemini",
    "history": [
        {"role": "system", "parts": [{"type": "text", "text": "Be brief."}]},
        {"role": "user", "parts": [{"type": "text", "text": "Weather "}, {"type": "text", "text": "in two cities?"}]},
        {
            "role": "assistant",
            "parts": [
                {"type": "text", "text": "Looking."},
                {"type": "tool_call", "call_id": None, "name": "get_weather", "arguments": {"city": "Oslo"}},
                {"type": "tool_call", "call_id": "", "name": "search", "arguments": {}, "provider_executed": True},
                {
                    "type": "tool_call",
                    "call_id": None,
                    "name": "get_weather",
                    "arguments": {"city": "Lima"},
                    "extra": {"thoughtSignature": "c2ln"},
                },
            ],
        },
        {
            "role": "tool",
            "parts": [
                {"type": "tool_result", "call_id": None, "name": "get_weather", "output": "cold"},
                {"type": "tool_result", "call_id": None, "name": "get_weather", "output": "warm"},
            ],
        },
        {"role": "assistant", "parts": [{"type": "tool_call", "call_id": "call_9", "name": "get_weather"}]},
        {"role": "tool", "parts": [{"type": "tool_result", "call_id": "call_9", "name": "get_weather", "output": 3}]},
    ],
}


def _node(script: str) -> Any:
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        cwd=ROOT / "harnesses" / "node-kit",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_restored_history_gives_id_less_calls_minted_ids_and_their_results_the_same_in_order() -> None:
    script = f"""
        import {{ restoredHistory, textOf }} from "./history.mjs";
        let n = 0;
        const restored = restoredHistory({json.dumps(HISTORY_CASE)}, () => `minted-${{++n}}`);
        console.log(JSON.stringify({{ restored, user: textOf(restored[1]) }}));
    """
    seen = _node(script)
    calls = [p for p in seen["restored"][2]["parts"] if p["type"] == "tool_call"]
    assert [c["id"] for c in calls] == ["minted-1", "minted-2", "minted-3"]
    # The server call answers no result of the application's: the results pair with the other two in order.
    assert [r["id"] for r in seen["restored"][3]["parts"]] == ["minted-1", "minted-3"]
    assert seen["restored"][4]["parts"][0]["id"] == seen["restored"][5]["parts"][0]["id"] == "call_9"
    assert seen["user"] == "Weather in two cities?"


def test_a_restored_history_as_ai_sdk_model_messages() -> None:
    script = f"""
        import {{ modelMessages }} from "./ai-sdk.mjs";
        let n = 0;
        const c = {json.dumps(HISTORY_CASE)};
        const options = {{ mintId: () => `id${{++n}}`, signatureKeys: {{ gemini: "google" }} }};
        console.log(JSON.stringify(modelMessages(c, options)));
    """
    system, user, assistant, tool, _, last = _node(script)
    assert system == {"role": "system", "content": "Be brief."} and user["content"] == "Weather in two cities?"
    text, first, server, second = assistant["content"]
    assert text == {"type": "text", "text": "Looking."}
    assert (first["toolCallId"], first["toolName"], first["input"]) == ("id1", "get_weather", {"city": "Oslo"})
    assert server["providerExecuted"] is True and "providerOptions" not in first
    assert second["providerOptions"] == {"google": {"thoughtSignature": "c2ln"}}
    assert [r["toolCallId"] for r in tool["content"]] == ["id1", "id3"]
    assert tool["content"][0]["output"] == {"type": "text", "value": "cold"}
    assert last["content"][0]["output"]["value"] == "3"
