"""The Rust harness kit (harnesses/rust/kit): the protocol every Rust harness speaks, driven through
kit-probe, a harness that uses nothing else.

kit-probe is built by `harnesses/rust/build -p toolcall-conformance-kit` into a target directory
outside the repository (a small build: the kit alone, without the libraries); the module is skipped,
with that command as the reason, where cargo or the build is missing (and fails there when CI requires the unit:
tests/toolchains.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from toolchains import require

from conformance.connectors.harness import problem

RELEASE = (
    Path(os.environ.get("CARGO_TARGET_DIR") or Path.home() / ".cache" / "toolcall-conformance" / "cargo-target")
    / "release"
)
PROBE = RELEASE / "kit-probe"

require("cargo", built=PROBE, install="harnesses/rust/build -p toolcall-conformance-kit", unit="rust-kit")


# --- the kit: the protocol every Rust harness speaks ------------------------------------------------


class _Probe:
    """kit-probe over its stdin/stdout, one JSON line each way."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [str(PROBE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    def ask(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        return answer

    def stop(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"cmd": "stop"}) + "\n")
        self.process.stdin.flush()
        return self.process.wait(timeout=10)


def _case(prompt: str, tools_url: str = "http://127.0.0.1:9/none") -> dict[str, Any]:
    return {
        "id": "openai-chat/one-call",
        "api": "openai-chat",
        "base_url": "http://127.0.0.1:9/v1",
        "api_key": "k",
        "model": "m",
        "prompt": prompt,
        "stream": False,
        "tools": [{"name": "get_weather", "parameters": {"type": "object"}}],
        "tools_url": tools_url,
    }


@pytest.fixture
def probe() -> Iterator[_Probe]:
    started = _Probe()
    yield started
    if started.process.poll() is None:
        started.process.kill()
        started.process.wait()


def test_the_kit_answers_start_with_a_valid_started(probe: _Probe) -> None:
    started = probe.ask({"cmd": "start", "version": 1})
    assert problem(started, "started") is None
    assert started["implementation"]["language"] == "rust"
    assert "unsupported" not in started["implementation"]  # an empty map is left out


def test_a_panic_is_the_case_errored_and_the_harness_goes_on(probe: _Probe) -> None:
    probe.ask({"cmd": "start", "version": 1})
    panicked = probe.ask({"cmd": "run", "seq": 1, "case": _case("panic")})
    assert problem(panicked, "ran") is None
    assert panicked["seq"] == 1
    assert panicked["errored"]["message"] == "panic: the probe panics as asked"
    assert "kit-probe.rs" in panicked["errored"]["detail"]
    assert probe.ask({"cmd": "run", "seq": 2, "case": _case("still here")}) == {
        "seq": 2,
        "ok": True,
        "output": "still here",
    }
    assert probe.stop() == 0


def test_errors_skips_and_bad_cases_have_their_forms(probe: _Probe) -> None:
    probe.ask({"cmd": "start", "version": 1})
    failed = probe.ask({"cmd": "run", "seq": 1, "case": _case("fail")})
    assert failed == {
        "seq": 1,
        "errored": {"message": "the probe fails as asked", "detail": failed["errored"]["detail"]},
    }
    assert probe.ask({"cmd": "run", "seq": 2, "case": _case("skip")}) == {
        "seq": 2,
        "skipped": "the probe skips as asked",
    }
    malformed = probe.ask({"cmd": "run", "seq": 3, "case": {"id": "x"}})
    assert problem(malformed, "ran") is None
    assert malformed["seq"] == 3
    assert malformed["errored"]["message"].startswith("the run command's case does not parse: missing field")


def test_stdout_holds_only_answers_and_eof_ends_the_harness(probe: _Probe) -> None:
    assert probe.process.stdin is not None and probe.process.stdout is not None
    probe.process.stdin.write('{"cmd": "start", "version": 1}\nnot json\n{"cmd": "bogus"}\n')
    probe.process.stdin.close()
    assert probe.process.wait(timeout=10) == 0
    lines = probe.process.stdout.read().splitlines()
    assert len(lines) == 1 and "implementation" in json.loads(lines[0])
    assert probe.process.stderr is not None
    logged = probe.process.stderr.read()
    assert "not JSON" in logged and "unknown command" in logged


class _Tools(BaseHTTPRequestHandler):
    received: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        _Tools.received.append(body)
        answer = json.dumps({"output": "18 C"}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: Any) -> None:
        pass


def test_call_tool_posts_a_tool_call_and_returns_its_output(probe: _Probe) -> None:
    server = HTTPServer(("127.0.0.1", 0), _Tools)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Tools.received.clear()
    try:
        probe.ask({"cmd": "start", "version": 1})
        url = f"http://127.0.0.1:{server.server_address[1]}/_conformance/tools/x"
        ran = probe.ask({"cmd": "run", "seq": 1, "case": _case("tool", url)})
    finally:
        server.shutdown()
        server.server_close()
    assert ran == {"seq": 1, "ok": True, "output": "18 C"}
    assert _Tools.received == [{"name": "get_weather", "arguments": {}, "call_id": "probe_1"}]
    assert problem(_Tools.received[0], "toolCall") is None
