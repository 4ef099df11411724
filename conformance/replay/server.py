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
import re
import socket
import sys
import threading
import zlib
from collections import deque
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from conformance.recordings.bounds import MAX_BODY_BYTES, MAX_DEPTH, json_text_depth
from conformance.replay.continued import RunInterrupted
from conformance.replay.session import ReplaySession
from conformance.replay.transports.base import Answer, Request

CONTROL = "/_conformance"
MAX_BODY = MAX_BODY_BYTES  # a tool-loop request is never near this; a larger one is refused, inflated or not
# Connections waiting to be accepted. The stdlib's 5 refused connections (8-12% of requests failed)
# once 64 clients connected at the same moment; the kernel caps this at somaxconn.
BACKLOG = 1024
MAX_ESCAPES = 100  # proxy requests kept for the report; a client that loops on them adds no memory
_DIGITS = re.compile(r"[0-9]+")


class BodyError(ValueError):
    """A request body the replay cannot read, with the status the provider answers it with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


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
        self.escapes: deque[str] = deque(maxlen=MAX_ESCAPES)  # the latest of them
        self.escaped = 0  # how many there were
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

    def escapes_since(self, mark: int) -> tuple[int, list[str]]:
        """How many requests escaped since `escaped` was `mark`, and the latest of their targets."""
        count = self.escaped - mark
        return count, list(self.escapes)[-count:] if count else []

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
        if json_text_depth(body) > MAX_DEPTH:
            # Python's parser would overflow its stack; the provider's parser refuses such a body.
            message = f"The request body nests deeper than {MAX_DEPTH} levels; it is not valid JSON."
            return self.refuse(target, 400, message)
        session, prefix = self._session_at(path)
        if session is None:
            served = ", ".join(sorted(self._sessions)) or "none"
            return Answer.json(404, {"error": {"message": f"no scenario is served at {path}; served: {served}"}})
        return session.handle(Request.of(method, target[len(prefix) :] or "/", headers, body))

    def refuse(self, target: str, status: int, message: str) -> Answer:
        """An error for a request that never reached its session, in its provider's shape when one is served there."""
        session, _ = self._session_at(target.split("?", 1)[0])
        if session is None:
            return Answer.json(status, {"error": {"message": message}})
        return session.transport.error(status, message)

    def _session_at(self, path: str) -> tuple[ReplaySession | None, str]:
        with self._lock:
            ids = sorted(self._sessions, key=len, reverse=True)
            chosen = next((i for i in ids if path == f"/{i}" or path.startswith(f"/{i}/")), None)
            # One scenario served answers at any provider path (a client given only the host), but
            # never at another scenario's place: a late request of a finished case is that case's
            # 404, not a turn of the one served now.
            if chosen is None and len(self._sessions) == 1 and not _names_a_scenario(path):
                chosen, prefix = ids[0], ""
            else:
                prefix = f"/{chosen}"
            session = self._sessions[chosen][0] if chosen is not None else None
        return session, prefix

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
        try:
            return Answer.json(200, {"output": tools(call["name"], call["arguments"])})
        except RunInterrupted as cut:
            return Answer.json(200, {"interrupted": str(cut)})


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = BACKLOG
    replay: ReplayServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up mid-request is its own business, not a traceback on our stderr.
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, which Node's fetch and most SDKs use
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        # Without it a keep-alive answer waits for the client's delayed ACK (about 40 ms) whenever
        # the kernel has something unacknowledged in flight.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

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
            self.server.replay.escaped += 1
            self.server.replay.escapes.append(target.split("?", 1)[0])
            self.close_connection = True
            message = f"the conformance replay lets nothing out: {target.split('?', 1)[0]} was refused"
            self._send(Answer(403, message.encode(), {"content-type": "text/plain", "connection": "close"}))
            return
        try:
            body = self._body()
        except BodyError as exc:
            self.close_connection = True  # what is left of the body is not read: the connection cannot go on
            self._send(self.server.replay.refuse(self.path, exc.status, f"unreadable request body: {exc}"))
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            answer = self.server.replay.dispatch(self.command, self.path, headers, body)
        except Exception as exc:  # a fault of the replay itself: answered, never a dropped connection
            answer = Answer.json(500, {"error": {"message": f"the replay failed: {type(exc).__name__}: {exc}"}})
        self._send(answer)

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            body = self._chunked()
        else:
            declared = (self.headers.get("content-length") or "0").strip()
            if not _DIGITS.fullmatch(declared):
                raise BodyError(400, f"Content-Length {declared!r} is not a length")
            length = int(declared)
            if length > MAX_BODY:
                raise BodyError(413, f"{length} bytes; the replay accepts at most {MAX_BODY}")
            body = self.rfile.read(length) if length else b""
            if len(body) < length:
                raise BodyError(400, f"the body ended after {len(body)} of {length} bytes")
        if self.headers.get("content-encoding", "").lower() == "gzip" and body[:2] == b"\x1f\x8b":
            body = _gunzip(body, MAX_BODY)
        return body

    def _chunked(self) -> bytes:
        chunks: list[bytes] = []
        total = 0
        while True:
            line = self.rfile.readline(1024).split(b";", 1)[0].strip() or b"0"
            try:
                size = int(line, 16)
            except ValueError:
                raise BodyError(400, f"chunk size {line[:20]!r} is not hexadecimal") from None
            if size < 0:
                raise BodyError(400, f"chunk size {line[:20]!r} is negative")
            if size == 0:
                while self.rfile.readline(65537).strip():  # trailers
                    pass
                return b"".join(chunks)
            total += size
            if total > MAX_BODY:
                raise BodyError(413, f"more than {MAX_BODY} bytes; the replay accepts at most {MAX_BODY}")
            chunk = self.rfile.read(size)
            if len(chunk) < size:
                raise BodyError(400, "the body ended inside a chunk")
            chunks.append(chunk)
            self.rfile.readline(1024)

    def _send(self, answer: Answer) -> None:
        # send_response would add the server's own Server and Date beside the recorded ones; two
        # Date headers reach a client as one unparseable value ("<now>, <recorded>"), which SDKs
        # that read the response's date (as its timestamp) refuse. A recorded header wins.
        self.log_request(answer.status)
        self.send_response_only(answer.status)
        sent = {name.lower() for name in answer.headers}
        if "server" not in sent:
            self.send_header("Server", self.version_string())
        if "date" not in sent:
            self.send_header("Date", self.date_time_string())
        for name, value in answer.headers.items():
            if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(name, value)
        if answer.headers.get("connection") == "close" or self.close_connection:
            self.send_header("connection", "close")
        self.send_header("content-length", str(len(answer.body)))
        # Headers and body in one send: two small writes wait on the client's delayed ACK.
        self._headers_buffer.append(b"\r\n")
        if self.command.upper() != "HEAD":
            self._headers_buffer.append(answer.body)
        self.flush_headers()


def _names_a_scenario(path: str) -> bool:
    """Whether a path begins where scenarios are served (`/API/`): no provider's own path does."""
    from conformance.corpus.caseschema import vocabulary

    return path.lstrip("/").split("/", 1)[0] in vocabulary("api")


def _gunzip(body: bytes, limit: int) -> bytes:
    """A gzip body inflated to at most `limit` bytes; what goes past it, or stops short, is refused."""
    out: list[bytes] = []
    size = 0
    rest = body
    while rest:
        inflater = zlib.decompressobj(wbits=31)
        try:
            part = inflater.decompress(rest, limit - size + 1)
        except zlib.error as exc:
            raise BodyError(400, f"not gzip: {exc}") from None
        size += len(part)
        if size > limit or inflater.unconsumed_tail:
            raise BodyError(413, f"inflates past {limit} bytes; the replay accepts at most {limit}")
        if not inflater.eof:
            raise BodyError(400, "the gzip stream is truncated")
        out.append(part)
        rest = inflater.unused_data
    return b"".join(out)
