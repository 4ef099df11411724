"""The replay server: scenarios played over HTTP on 127.0.0.1, to clients in any language.

Each scenario is served under its own prefix, its id: `http://127.0.0.1:PORT/openai-chat/one-call`
followed by the base path its API's clients are configured with (`/v1` for OpenAI, nothing for
Anthropic or Gemini, whose SDKs add the version themselves). A server that plays one scenario also
answers it without the prefix, so `curl http://127.0.0.1:PORT/v1/chat/completions` works. Methods
are matched in any case; request bodies may be sent whole or chunked. `/_conformance/scenarios`
lists what is served and `/_conformance/results` judges what was played so far.

Every request is answered by its scenario's `ReplaySession`; nothing is forwarded anywhere.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from conformance.replay.session import ReplaySession
from conformance.replay.transports.base import Answer, Request

CONTROL = "/_conformance"
MAX_BODY = 64 * 1024 * 1024  # a tool-loop request is never near this; a larger one is refused


class ReplayServer:
    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._sessions: dict[str, tuple[ReplaySession, str]] = {}  # scenario id -> (session, base path)
        # scenario id -> the tools of its loop: (name, arguments) -> the canned output
        self._tools: dict[str, Callable[[str, Any], str]] = {}
        self._lock = threading.Lock()
        self._httpd = _HTTPServer((host, port), _Handler)
        self._httpd.replay = self
        self._thread: threading.Thread | None = None
        # Requests sent to this server as a proxy (an absolute URL, or CONNECT): a client that sends its
        # traffic past the replay. Refused, never forwarded, and kept for the report.
        self.escapes: list[str] = []
        # What `/_conformance/results` answers: the results document of what was played so far.
        self.results: Callable[[], Any] | None = None

    # --- lifecycle -----------------------------------------------------------------------------
    @property
    def address(self) -> tuple[str, int]:
        host, port = self._httpd.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        return f"http://{host}:{port}"

    def start(self) -> ReplayServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="conformance-replay", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- scenarios ------------------------------------------------------------------------------
    def add(self, session: ReplaySession, base_path: str = "", tools: Callable[[str, Any], str] | None = None) -> str:
        """Serve a session (and its tools at `tools_url`); returns the base URL its client is configured with."""
        with self._lock:
            self._sessions[session.scenario.id] = (session, base_path)
            if tools is not None:
                self._tools[session.scenario.id] = tools
        return self.base_url(session.scenario.id)

    def tools_url(self, scenario_id: str) -> str:
        return f"{self.url}{CONTROL}/tools/{scenario_id}"

    def remove(self, scenario_id: str) -> None:
        with self._lock:
            self._sessions.pop(scenario_id, None)

    def base_url(self, scenario_id: str) -> str:
        _, base_path = self._sessions[scenario_id]
        return f"{self.url}/{scenario_id}{base_path}"

    def sessions(self) -> Iterator[ReplaySession]:
        with self._lock:
            found = [s for s, _ in self._sessions.values()]
        yield from found

    def dispatch(self, method: str, target: str, headers: dict[str, str], body: bytes) -> Answer:
        path = target.split("?", 1)[0]
        if path.startswith(CONTROL + "/") or path == CONTROL:
            return self._control(path[len(CONTROL) :], body)
        with self._lock:
            ids = sorted(self._sessions, key=len, reverse=True)
            chosen = next((i for i in ids if path == f"/{i}" or path.startswith(f"/{i}/")), None)
            if chosen is None and len(self._sessions) == 1:
                chosen, prefix = ids[0], ""
            else:
                prefix = f"/{chosen}"
            session = self._sessions[chosen][0] if chosen is not None else None
        if session is None:
            served = ", ".join(sorted(self._sessions)) or "none"
            return Answer.json(404, {"error": {"message": f"no scenario is served at {path}; served: {served}"}})
        return session.handle(Request.of(method, target[len(prefix) :] or "/", headers, body))

    def _control(self, what: str, body: bytes = b"") -> Answer:
        if what.startswith("/tools/"):
            return self._tool(what[len("/tools/") :], body)
        if what in ("", "/", "/scenarios"):
            from conformance.replay.serve_listing import scenario_entry

            listing = [
                scenario_entry(s, self.url, self.base_url(s.scenario.id), self.tools_url(s.scenario.id))
                for s in self.sessions()
            ]
            return Answer.json(200, {"url": self.url, "scenarios": listing})
        if what == "/results" and self.results is not None:
            return Answer.json(200, self.results())
        return Answer.json(404, {"error": {"message": f"unknown control path {CONTROL}{what}"}})

    def _tool(self, scenario_id: str, body: bytes) -> Answer:
        """A harness's tool asks for its output: `{"name", "arguments"}` -> `{"output"}`."""
        tools = self._tools.get(scenario_id)
        if tools is None:
            return Answer.json(404, {"error": {"message": f"no tools are served for {scenario_id!r}"}})
        try:
            call = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            call = None
        if not isinstance(call, dict) or not isinstance(call.get("name"), str) or "arguments" not in call:
            return Answer.json(400, {"error": {"message": 'a tool call is {"name": string, "arguments": ...}'}})
        return Answer.json(200, {"output": tools(call["name"], call["arguments"])})


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    replay: ReplayServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, which Node's fetch and most SDKs use
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        # http.server looks up do_<METHOD> as sent; clients send `post` too.
        if name.startswith("do_"):
            return self._serve
        raise AttributeError(name)

    def _serve(self) -> None:
        if self.command.upper() == "CONNECT" or self.path.lower().startswith(("http://", "https://")):
            # A client configured with this server as its proxy, reaching for a host of its own.
            target = self.path if self.command.upper() != "CONNECT" else f"https://{self.path}"
            self.server.replay.escapes.append(target.split("?", 1)[0])
            self.close_connection = True
            message = f"the conformance replay lets nothing out: {target.split('?', 1)[0]} was refused"
            self._send(Answer(403, message.encode(), {"content-type": "text/plain", "connection": "close"}))
            return
        try:
            body = self._body()
        except ValueError as exc:
            self._send(Answer.json(400, {"error": {"message": f"unreadable request body: {exc}"}}))
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            answer = self.server.replay.dispatch(self.command, self.path, headers, body)
        except Exception as exc:  # a fault of the replay itself: answered, never a dropped connection
            answer = Answer.json(500, {"error": {"message": f"the replay failed: {type(exc).__name__}: {exc}"}})
        self._send(answer)

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            chunks: list[bytes] = []
            total = 0
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline().strip():  # trailers
                        pass
                    return b"".join(chunks)
                total += size
                if total > MAX_BODY:
                    raise ValueError("larger than the replay accepts")
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_BODY:
            raise ValueError("larger than the replay accepts")
        body = self.rfile.read(length) if length else b""
        if self.headers.get("content-encoding", "").lower() == "gzip" and body[:2] == b"\x1f\x8b":
            import gzip

            body = gzip.decompress(body)
        return body

    def _send(self, answer: Answer) -> None:
        self.send_response(answer.status)
        for name, value in answer.headers.items():
            if name not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(name, value)
        self.send_header("content-length", str(len(answer.body)))
        self.end_headers()
        if self.command.upper() != "HEAD":
            self.wfile.write(answer.body)
