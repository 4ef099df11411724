"""`conformance proxy` under faults and hostile input: nothing an answered client saw is lost, nothing a
client sent leaks, every fault is told for its own exchange, and the proxy's framing is aiohttp's.

A fake upstream on 127.0.0.1 answers by path (see `_Upstream`); the proxy runs in a process of its own,
as a user runs it, and is stopped the three ways a supervisor stops it.
"""

from __future__ import annotations

import gzip
import http.client
import json
import signal
import socket
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from test_proxy import CALLS, _completion

from conformance.recordings.bounds import MAX_BODY_BYTES
from conformance.recordings.cassette import load_cassette

SECRET = "field-only-secret-0123456789abcdef"  # no provider key shape: found by name and by value only
PASSWORD = "upstream-password-0123456789"
QUERY_KEY = "upstream-query-key-0123456789"


class _Upstream:
    """A fake provider: what it was sent, and an answer chosen by the request's path."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                # Headers and body go in two writes: without it each answer waits on a delayed ACK.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                upstream.seen.append({"path": self.path, "headers": headers, "body": body})
                upstream.respond(self, body)

            do_GET = do_POST = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def respond(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        path = handler.path
        headers: dict[str, str] = {"content-type": "application/json"}
        if "bad-status" in path:
            handler.wfile.write(b"HTTP/1.1 2x0 Nonsense\r\n\r\n")
            handler.close_connection = True
            return
        if "long-header" in path:
            handler.wfile.write(b"HTTP/1.1 200 OK\r\nx-long: " + b"a" * 100_000 + b"\r\ncontent-length: 0\r\n\r\n")
            handler.close_connection = True
            return
        if "redirect" in path:
            handler.send_response(302)
            handler.send_header("location", path.split("to=", 1)[1])
            handler.send_header("content-length", "0")
            handler.end_headers()
            return
        if "huge" in path:
            handler.send_response(200)
            handler.send_header("content-length", str(MAX_BODY_BYTES + 1))
            handler.end_headers()
            for _ in range(MAX_BODY_BYTES // (1 << 20) + 1):
                handler.wfile.write(b" " * (1 << 20))
            handler.wfile.write(b" ")
            return
        sent = body
        if handler.headers.get("content-encoding") == "gzip":
            sent = gzip.decompress(body)
        elif handler.headers.get("content-encoding") == "deflate":
            sent = zlib.decompress(body)
        if "echo" in path:
            data = json.dumps({"echo": sent.decode("utf-8", "replace"), "tail": "kept"}).encode()
        elif b'"tool"' in sent:
            data = json.dumps(_completion({"role": "assistant", "content": "Paris 21, Tokyo 18."}, "stop")).encode()
        else:
            data = json.dumps(_completion({"role": "assistant", "content": None, "tool_calls": CALLS}, "tool_calls"))
            data = data.encode()
        if "gzip-members" in path:
            data = gzip.compress(data[: len(data) // 2]) + gzip.compress(data[len(data) // 2 :])
            headers["content-encoding"] = "gzip"
        elif "gzip-broken" in path:
            data = gzip.compress(data)[:-30]
            headers["content-encoding"] = "gzip"
        elif "gzip" in path:
            data = gzip.compress(data)
            headers["content-encoding"] = "gzip"
        elif "deflate" in path:
            data = zlib.compress(data)
            headers["content-encoding"] = "deflate"
        handler.send_response(200)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("x-echoed", handler.headers.get("authorization", ""))
        handler.send_header("connection", "x-hop-answer")
        handler.send_header("x-hop-answer", "one hop only")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def upstream() -> Iterator[_Upstream]:
    server = _Upstream()
    yield server
    server.stop()


class _Running:
    def __init__(self, upstream: str, cassette: Path, *extra: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "conformance", "proxy", "--upstream", upstream, "--cassette", str(cassette), *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert self.process.stdout is not None
        self.first = self.process.stdout.readline()
        assert self.first.startswith("listening on http://127.0.0.1:"), self.first + self.stderr_now()
        self.url = self.first.split()[2].rstrip(",")
        self.port = int(self.url.rsplit(":", 1)[1])

    def stderr_now(self) -> str:
        if self.process.poll() is None:
            self.process.kill()
        assert self.process.stderr is not None
        return self.process.stderr.read()

    def stop(self, how: str = "stdin") -> tuple[int, str, str]:
        assert self.process.stdin is not None and self.process.stdout is not None
        if how == "stdin":
            self.process.stdin.close()
            self.process.stdin = None  # closed: nothing for communicate() to flush
        elif how == "term":
            self.process.send_signal(signal.SIGTERM)
        else:
            self.process.kill()
        out, err = self.process.communicate(timeout=60)
        return self.process.returncode, self.first + out, err


@pytest.fixture
def running(tmp_path: Path) -> Iterator[list[_Running]]:
    started: list[_Running] = []
    yield started
    for proxy in started:
        if proxy.process.poll() is None:
            proxy.process.kill()
            proxy.process.wait()


def _start(running: list[_Running], upstream: str, cassette: Path, *extra: str) -> _Running:
    proxy = _Running(upstream, cassette, *extra)
    running.append(proxy)
    return proxy


def _post(
    connection: http.client.HTTPConnection, path: str, body: bytes, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    connection.request("POST", path, body=body, headers={"content-type": "application/json", **(headers or {})})
    answer = connection.getresponse()
    return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()


FIRST = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "Weather?"}]}).encode()


def _raw(port: int, data: bytes, wait: float = 2.0) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        sock.sendall(data)
        chunks = []
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except TimeoutError:
            pass
    return b"".join(chunks)


# --- 1: every answered exchange is on disk, whatever stops the proxy ---------------------------


@pytest.mark.parametrize("how", ["kill", "term", "stdin"])
def test_every_exchange_a_client_was_answered_is_on_disk_however_the_proxy_stops(
    how: str, tmp_path: Path, upstream: _Upstream, running: list[_Running]
) -> None:
    cassette = tmp_path / "rec.yaml"
    proxy = _start(running, upstream.url, cassette)
    connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=30)
    for _ in range(40):
        status, _, _ = _post(connection, "/v1/chat/completions", FIRST)
        assert status == 200
    code, out, err = proxy.stop(how)
    assert len(load_cassette(cassette)) == 40, (out, err)
    if how != "kill":
        assert code == 0 and "40 exchange(s) recorded" in out, out
        assert "Traceback" not in err, err


# --- 2: the cost of an exchange does not grow with the session ---------------------------------


def test_a_thousand_exchange_session_costs_linear_time(
    tmp_path: Path, upstream: _Upstream, running: list[_Running]
) -> None:
    proxy = _start(running, upstream.url, tmp_path / "long.yaml")
    connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=30)
    took: list[float] = []
    for _ in range(1000):
        began = time.perf_counter()
        assert _post(connection, "/v1/chat/completions", FIRST)[0] == 200
        took.append(time.perf_counter() - began)
    code, out, _ = proxy.stop()
    # Medians, after a warm-up, of 200 exchanges early and 200 late: the machine is shared, so a few
    # slow exchanges say nothing. Measured on 2 cores: 1,000 exchanges in 5 to 8 s, the medians of
    # each hundred 1.3 to 1.5 ms from the 200th on (with the whole cassette rewritten and relinted
    # at each exchange, the 120th took 8.9 s).
    first, last = sorted(took[50:250])[100], sorted(took[-200:])[100]
    assert last < 3 * first + 0.005, f"median exchange {first * 1000:.1f} ms early, {last * 1000:.1f} ms late"
    assert code == 0 and "1000 exchange(s) recorded" in out
    assert len(load_cassette(tmp_path / "long.yaml")) == 1000


# --- 3: a fault is told for its own exchange; the rest are judged ------------------------------


def test_a_fault_in_one_exchange_is_told_for_it_and_the_later_ones_are_still_judged(
    tmp_path: Path, upstream: _Upstream, running: list[_Running]
) -> None:
    cassette = tmp_path / "rec.yaml"
    proxy = _start(running, upstream.url, cassette)
    connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=60)
    for path in ("/v1/chat/completions?huge=1", "/v1/chat/completions?gzip-broken=1"):
        status, _, body = _post(connection, path, FIRST)
        assert status == 502 and body.count(b"\n") == 1, body[:300]
        connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=60)
    status, _, body = _post(connection, "/v1/chat/completions", b"x" * 10, {"content-length": str(MAX_BODY_BYTES + 1)})
    assert status == 413, body
    connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=60)
    served = json.loads(_post(connection, "/v1/chat/completions", FIRST)[2])["choices"][0]["message"]
    calls = json.loads(json.dumps(served["tool_calls"]))
    calls[1]["id"] = "get_weather"  # the planted bug, after the faults
    history = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *({"role": "tool", "tool_call_id": c["id"], "content": "21 C"} for c in calls),
    ]
    _post(connection, "/v1/chat/completions", json.dumps({"model": "gpt-4o", "messages": history}).encode())
    code, out, err = proxy.stop()
    assert out.count(": fault: ") == 3, out
    assert "exchange 2: openai-chat" in out and "get_weather" in out, out
    assert "2 exchange(s) recorded" in out and "3 fault(s)" in out and code == 2, (code, out)
    assert len(load_cassette(cassette)) == 2
    assert "Traceback" not in err, err


# --- 4: redirects go back to the client; credentials go to --upstream only ---------------------


def test_a_redirect_goes_back_to_the_client_and_no_credential_follows_it(
    tmp_path: Path, upstream: _Upstream, running: list[_Running]
) -> None:
    elsewhere = _Upstream()
    try:
        proxy = _start(running, upstream.url, tmp_path / "rec.yaml")
        connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=30)
        status, headers, _ = _post(
            connection,
            f"/v1/chat/completions?redirect=1&to={elsewhere.url}/steal",
            FIRST,
            {"authorization": f"Bearer {SECRET}", "x-api-key": SECRET},
        )
        proxy.stop()
    finally:
        elsewhere.stop()
    assert status == 302 and headers["location"] == f"{elsewhere.url}/steal"
    assert elsewhere.seen == []
    assert upstream.seen[0]["headers"]["authorization"] == f"Bearer {SECRET}"


# --- 5 and 7: credentials in every coding and placement never reach a file or the terminal -------


CODED_REQUESTS = {
    "gzip": lambda b: gzip.compress(b),
    "deflate": lambda b: zlib.compress(b),
}


def test_no_credential_reaches_the_cassette_the_terminal_or_a_502(
    tmp_path: Path, upstream: _Upstream, running: list[_Running]
) -> None:
    cassette = tmp_path / "rec.yaml"
    netloc = upstream.url.removeprefix("http://")
    proxy = _start(running, f"http://user:{PASSWORD}@{netloc}/base?key={QUERY_KEY}", cassette)
    connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=30)
    body = json.dumps({"model": "m", "api_key": SECRET, "messages": []}).encode()
    for coding, encode in CODED_REQUESTS.items():
        for answer in ("echo", "echo-gzip-members", "echo-deflate", "echo-gzip"):
            status, _, _ = _post(connection, f"/v1/x?{answer}=1", encode(body), {"content-encoding": coding})
            assert status == 200
    # The upstream got the client's path under its own, then both queries, and the userinfo as a header.
    seen = upstream.seen[0]
    assert seen["path"] == f"/base/v1/x?echo=1&key={QUERY_KEY}", seen["path"]
    assert seen["headers"]["content-encoding"] == "gzip" and gzip.decompress(seen["body"]) == body
    assert seen["headers"]["authorization"].startswith("Basic ")
    dead = _start(running, f"http://user:{PASSWORD}@127.0.0.1:9/base?key={QUERY_KEY}", tmp_path / "dead.yaml")
    status, _, refused = _post(http.client.HTTPConnection("127.0.0.1", dead.port, timeout=30), "/v1/x", body)
    assert status == 502 and refused.count(b"\n") == 1
    outputs = [*proxy.stop(), *dead.stop()]
    text = cassette.read_text()
    for secret in (SECRET, PASSWORD, QUERY_KEY):
        for where, content in (("cassette", text), ("502", refused.decode()), *(("output", str(o)) for o in outputs)):
            assert secret not in content, f"{secret} in the {where}"
    records = load_cassette(cassette).interactions
    assert len(records) == 8
    for record in records:  # recorded opened, and whole: the second gzip member is there
        assert json.loads(record.response.body)["tail"] == "kept"
        assert "content-encoding" not in {k.lower() for k in record.response.headers}


def test_an_existing_cassette_is_not_overwritten_without_force(tmp_path: Path, upstream: _Upstream) -> None:
    cassette = tmp_path / "kept.yaml"
    cassette.write_text("interactions: []\nversion: 1\n")
    command = [sys.executable, "-m", "conformance", "proxy", "--upstream", upstream.url, "--cassette", str(cassette)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "--force" in done.stderr and done.stderr.count("\n") == 1, done
    assert cassette.read_text() == "interactions: []\nversion: 1\n"


# --- 6: framing is aiohttp's --------------------------------------------------------------------


def test_framing_hop_by_hop_headers_and_codings_pass_as_http_says(
    tmp_path: Path, upstream: _Upstream, running: list[_Running]
) -> None:
    cassette = tmp_path / "rec.yaml"
    proxy = _start(running, upstream.url, cassette)
    head = b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
    chunked = head + b"transfer-encoding: chunked\r\n\r\n" + b"%x\r\n" % len(FIRST) + FIRST + b"\r\n0\r\n\r\n"
    assert _raw(proxy.port, chunked + b"").startswith(b"HTTP/1.1 200")
    assert upstream.seen[-1]["body"] == FIRST and len(upstream.seen) == 1
    smuggled = b"GET /smuggled HTTP/1.1\r\nhost: x\r\n\r\n"
    for framing in (
        b"content-length: %d\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n" % (len(smuggled) + 5) + smuggled,
        b"content-length: -1\r\n\r\n" + FIRST,
        b"content-length: abc\r\n\r\n" + FIRST,
    ):
        answer = _raw(proxy.port, head + framing)
        assert answer.startswith((b"HTTP/1.1 400", b"HTTP/1.0 400")), answer[:200]
    with socket.create_connection(("127.0.0.1", proxy.port)) as sock:  # hangs up mid-body
        sock.sendall(head + b"content-length: 1000\r\n\r\n" + FIRST[:20])
    time.sleep(0.5)
    assert len(upstream.seen) == 1, [s["path"] for s in upstream.seen]
    for path in ("/v1/x?bad-status=1", "/v1/x?long-header=1"):
        status, _, body = _post(http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=30), path, FIRST)
        assert status == 502 and body.count(b"\n") == 1, body
    # Hop-by-hop headers, and those a Connection header names, are neither forwarded nor recorded;
    # a coding passes through as it came.
    connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=30)
    status, headers, body = _post(
        connection,
        "/v1/chat/completions?gzip=1",
        FIRST,
        {"connection": "keep-alive, x-hop", "x-hop": "one hop", "keep-alive": "timeout=5", "accept-encoding": "gzip"},
    )
    assert status == 200 and headers["content-encoding"] == "gzip" and json.loads(gzip.decompress(body))
    assert "x-hop-answer" not in headers
    sent = upstream.seen[-1]["headers"]
    assert not {"x-hop", "keep-alive"} & {k.lower() for k in sent}
    code, _, err = proxy.stop()
    text = cassette.read_text()
    assert code == 2, "the two upstreams that broke HTTP are faults"
    assert "one hop" not in text and "x-hop" not in text.lower(), text
    assert "Traceback" not in err, err
    assert len(load_cassette(cassette)) == 2


def test_a_credential_first_seen_late_is_taken_out_of_earlier_exchanges_when_the_proxy_stops(
    tmp_path: Path, corpus: Any
) -> None:
    from conformance.proxy import Recorder

    late = "late-credential-0123456789abcdef"  # no provider key shape: known only once a header names it
    cassette = tmp_path / "rec.yaml"
    recorder = Recorder("http://127.0.0.1:9", cassette, corpus, report=lambda _: None)

    def exchange(headers: dict[str, list[str]], echoed: str) -> dict[str, Any]:
        return {
            "request": {"method": "POST", "uri": "http://127.0.0.1:9/v1/x", "headers": headers, "body": "{}"},
            "response": {
                "status": {"code": 200, "message": "OK"},
                "headers": {"content-type": ["application/json"]},
                "body": {"string": json.dumps({"echo": echoed})},
            },
        }

    recorder.add(exchange({}, f"the key is {late}"))
    assert late in cassette.read_text()  # written before anything named it a credential
    recorder.add(exchange({"authorization": [f"Bearer {late}"]}, "nothing"))
    recorder.close()
    assert late not in cassette.read_text()
    assert len(load_cassette(cassette)) == 2


def test_an_exchange_the_suite_fails_to_judge_is_still_recorded_and_told_as_a_fault(
    tmp_path: Path, corpus: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conformance.engine.conversations import Splitter
    from conformance.proxy import Recorder

    def broken(self: Any, interaction: Any) -> Any:
        raise RuntimeError("a rule broke")

    monkeypatch.setattr(Splitter, "add", broken)
    told: list[str] = []
    recorder = Recorder("http://127.0.0.1:9", tmp_path / "rec.yaml", corpus, report=told.append)
    recorder.add(
        {
            "request": {"method": "POST", "uri": "http://127.0.0.1:9/v1/x", "headers": {}, "body": "{}"},
            "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": "{}"}},
        }
    )
    assert len(load_cassette(tmp_path / "rec.yaml")) == 1  # on disk: the client is answered
    assert recorder.faults and "a rule broke" in told[0]
