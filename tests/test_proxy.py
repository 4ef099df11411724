"""`conformance proxy`: end to end against a fake upstream on 127.0.0.1, with credentials planted at
run time (none on disk) and a client that breaks a call's id; every violation is printed as the
exchange that shows it happens, and the cassette written holds no credential."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from conformance.recordings.cassette import load_cassette

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]


def _completion(message: dict[str, Any], reason: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-B9mQ2xYz7KpL4nR8sT1uV3wX5yZ0aBcD",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "message": message, "finish_reason": reason}],
    }


CALLS = [
    {
        "id": "call_Qh3kT9wZp2LmX7vB4nR8sYc1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
    },
    {
        "id": "call_Fj7SxA2vNu5GkR0pHt8Zq4Ey",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Tokyo"}'},
    },
]


@pytest.fixture
def upstream() -> Iterator[tuple[str, list[dict[str, Any]], str]]:
    """A fake provider: the first request gets two calls, the next a final text; it echoes the key."""
    seen: list[dict[str, Any]] = []
    key = "sk-proj-" + secrets.token_urlsafe(36)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            seen.append({"headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
            if len(seen) == 1:
                answer = _completion({"role": "assistant", "content": None, "tool_calls": CALLS}, "tool_calls")
            else:
                answer = _completion({"role": "assistant", "content": "Paris 21, Tokyo 18."}, "stop")
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("x-request-echo", self.headers.get("authorization", ""))
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen, key
    server.shutdown()
    server.server_close()


def _post(base: str, key: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        base + "/v1/chat/completions?api_key=" + key,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "authorization": f"Bearer {key}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def _conversation(base: str, key: str, *, rename_second_id: bool) -> None:
    first = {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "Weather in Paris and Tokyo?"}],
        "tools": TOOLS,
    }
    served = _post(base, key, first)["choices"][0]["message"]
    calls = json.loads(json.dumps(served["tool_calls"]))
    if rename_second_id:
        calls[1]["id"] = "get_weather"  # the planted bug: an id replaced by the tool's name
    history = [
        *first["messages"],
        {"role": "assistant", "content": None, "tool_calls": calls},
        *({"role": "tool", "tool_call_id": c["id"], "content": "21 C"} for c in calls),
    ]
    _post(base, key, {**first, "messages": history})


def _start(url: str, cassette: Path) -> tuple[subprocess.Popen[str], str]:
    # In a process of its own: other tests of this session may have patched this process's HTTP.
    process = subprocess.Popen(
        [sys.executable, "-m", "conformance", "proxy", "--upstream", url, "--cassette", str(cassette)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("listening on http://127.0.0.1:"), line
    return process, line.split()[2].rstrip(",")


def _stop(process: subprocess.Popen[str]) -> tuple[int, str]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.close()  # closing standard input stops the proxy
    out = process.stdout.read()
    return process.wait(timeout=60), out


def test_the_proxy_forwards_records_scrubbed_and_reports_each_violation_as_it_occurs(
    tmp_path: Path, upstream: tuple[str, list[dict[str, Any]], str]
) -> None:
    url, seen, key = upstream
    cassette = tmp_path / "rec.yaml"
    process, base = _start(url, cassette)
    try:
        _conversation(base, key, rename_second_id=True)
        # Printed when the second exchange happened, while the proxy still runs.
        assert process.stdout is not None
        first = process.stdout.readline()  # numbered from 1, as the summary counts
        assert first.startswith("exchange 2: openai-chat"), first
        assert process.poll() is None
        code, rest = _stop(process)
    finally:
        if process.poll() is None:
            process.kill()
    out = first + rest
    assert code == 1 and "get_weather" in out and ("roundtrip/" in out or "pairing/" in out), out
    # Forwarded as sent, credentials included: the upstream is the user's.
    assert len(seen) == 2 and seen[0]["headers"]["authorization"] == f"Bearer {key}"
    # The cassette is whole, readable, and holds no credential in any form.
    text = cassette.read_text()
    assert key not in text and key[8:30] not in text and "<scrubbed>" in text
    assert len(load_cassette(cassette)) == 2


def test_a_correct_client_through_the_proxy_gets_no_violation(
    tmp_path: Path, upstream: tuple[str, list[dict[str, Any]], str]
) -> None:
    url, _, key = upstream
    process, base = _start(url, tmp_path / "ok.yaml")
    try:
        _conversation(base, key, rename_second_id=False)
        code, out = _stop(process)
    finally:
        if process.poll() is None:
            process.kill()
    assert code == 0 and "2 exchange(s) recorded; 0 violation(s), 0 error(s)" in out, out
