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

import asyncio
import re
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from aiohttp import web
from multidict import CIMultiDict

from conformance.recordings.bounds import MAX_BODY_BYTES, MAX_DEPTH, json_text_depth, parse_json
from conformance.recordings.encodings import EncodingError, decode
from conformance.replay.continued import RunInterrupted
from conformance.replay.httpserver import BACKLOG, BodyTooLarge, ThreadedServer, read_bounded
from conformance.replay.session import ReplaySession
from conformance.replay.transports.base import Answer, Request

CONTROL = "/_conformance"
MAX_BODY = MAX_BODY_BYTES  # a tool-loop request is never near this; a larger one is refused, inflated or not
MAX_ESCAPES = 100  # proxy requests kept for the report; a client that loops on them adds no memory
# A CONNECT's target names a host and a port; anything else names no host at all.
AUTHORITY = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[^\s/:\[\]]+):\d{1,5}")
IDLE_TIMEOUT = 60.0  # seconds a connection may sit between requests, or before its first request's head ends
BODY_TIMEOUT = 60.0  # seconds a client may take to send a request's body


class BodyError(ValueError):
    """A request body the replay cannot read, with the status the provider answers it with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class ReplayServer:
    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._sessions: dict[str, tuple[ReplaySession, str]] = {}  # scenario id -> (session, base path)
        # scenario id -> the tools of its loop: (name, arguments) -> the canned output
        self._tools: dict[str, Callable[[str, Any, str | None], str]] = {}
        self._lock = threading.Lock()
        self._http = ThreadedServer(self._serve, host, port, idle_timeout=IDLE_TIMEOUT, auto_decompress=False)
        self.backlog = BACKLOG
        # Requests sent to this server as a proxy (an absolute URL, or CONNECT): a client that sends its
        # traffic past the replay. Refused, never forwarded, and kept for the report.
        self.escapes: deque[str] = deque(maxlen=MAX_ESCAPES)  # the latest of them
        self.escaped = 0  # how many there were
        # CONNECTs that name no host (grpc-go, dialing a target it cannot parse, sends `CONNECT  HTTP/1.1`):
        # refused, but they could reach nothing, so no escape; who sent each (its User-Agent) is kept.
        self.hostless: deque[str] = deque(maxlen=MAX_ESCAPES)
        self.hostless_count = 0
        # What `/_conformance/results` answers: the results document of what was played so far.
        self.results: Callable[[], Any] | None = None

    # --- lifecycle -----------------------------------------------------------------------------
    @property
    def address(self) -> tuple[str, int]:
        return self._http.address

    @property
    def url(self) -> str:
        host, port = self.address
        return f"http://{host}:{port}"

    def start(self) -> ReplayServer:
        self._http.start()
        return self

    def stop(self) -> None:
        self._http.stop(timeout=10)

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- scenarios ------------------------------------------------------------------------------
    def add(
        self, session: ReplaySession, base_path: str = "", tools: Callable[[str, Any, str | None], str] | None = None
    ) -> str:
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

    def hostless_since(self, mark: int) -> tuple[int, list[str]]:
        """How many CONNECTs naming no host came since `hostless_count` was `mark`, and who sent the latest."""
        count = self.hostless_count - mark
        return count, list(self.hostless)[-count:] if count else []

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

    async def _serve(self, request: web.BaseRequest) -> web.StreamResponse:
        method, target = request.method, request.raw_path
        if method.upper() == "CONNECT" and not AUTHORITY.fullmatch(target):
            self.hostless_count += 1
            self.hostless.append(request.headers.get("User-Agent", "no User-Agent"))
            message = "the conformance replay lets nothing out: a CONNECT naming no host was refused"
            return _response(Answer(403, message.encode(), {"content-type": "text/plain"}), close=True)
        if method.upper() == "CONNECT" or target.lower().startswith(("http://", "https://")):
            # A client configured with this server as its proxy, reaching for a host of its own.
            shown = (target if method.upper() != "CONNECT" else f"https://{target}").split("?", 1)[0]
            self.escaped += 1
            self.escapes.append(shown)
            message = f"the conformance replay lets nothing out: {shown} was refused"
            return _response(Answer(403, message.encode(), {"content-type": "text/plain"}), close=True)
        try:
            body = await _read_body(request)
        except BodyError as exc:
            # What is left of the body is not read: the connection cannot go on.
            return _response(self.refuse(target, exc.status, f"unreadable request body: {exc}"), close=True)
        headers = {k.lower(): v for k, v in request.headers.items()}
        try:
            if target.startswith(CONTROL):
                # A tool's output or the results may take their time (a tool the suite runs, the judging
                # of a whole run): answered from a thread, so that the provider requests of other
                # clients, and a harness's concurrent tool calls, are not held behind them.
                loop = asyncio.get_running_loop()
                answer = await loop.run_in_executor(None, self.dispatch, method, target, headers, body)
            else:
                answer = self.dispatch(method, target, headers, body)
        except Exception as exc:  # a fault of the replay itself: answered, never a dropped connection
            answer = Answer.json(500, {"error": {"message": f"the replay failed: {type(exc).__name__}: {exc}"}})
        return _response(answer)

    def _tool(self, scenario_id: str, body: bytes) -> Answer:
        """A harness's tool asks for its output: `{"name", "arguments"}` -> `{"output"}`."""
        tools = self._tools.get(scenario_id)
        if tools is None:
            return Answer.json(404, {"error": {"message": f"no tools are served for {scenario_id!r}"}})
        try:
            call = parse_json(body, "the tool call")
        except ValueError:  # not JSON, or nested past MAX_DEPTH (which Python's parser cannot take)
            call = None
        if not isinstance(call, dict) or not isinstance(call.get("name"), str) or "arguments" not in call:
            return Answer.json(400, {"error": {"message": 'a tool call is {"name": string, "arguments": ...}'}})
        try:
            call_id = call.get("call_id")
            output = tools(call["name"], call["arguments"], call_id if isinstance(call_id, str) else None)
            return Answer.json(200, {"output": output})
        except RunInterrupted as cut:
            return Answer.json(200, {"interrupted": str(cut)})


async def _read_body(request: web.BaseRequest) -> bytes:
    """The request's body, read within MAX_BODY and BODY_TIMEOUT, gzip opened (every member)."""
    declared = request.content_length
    if declared is not None and declared > MAX_BODY:
        raise BodyError(413, f"{declared} bytes; the replay accepts at most {MAX_BODY}")
    try:
        async with asyncio.timeout(BODY_TIMEOUT):
            body = await read_bounded(request.content, MAX_BODY)
    except BodyTooLarge:
        raise BodyError(413, f"more than {MAX_BODY} bytes; the replay accepts at most {MAX_BODY}") from None
    except TimeoutError:
        raise BodyError(408, f"the body was not sent within {BODY_TIMEOUT:.0f} s") from None
    except Exception as exc:  # the client closed early, or its chunks or length broke
        raise BodyError(400, f"the body ended early or its framing broke: {exc}") from None
    if request.headers.get("content-encoding", "").lower() == "gzip" and body[:2] == b"\x1f\x8b":
        body = _gunzip(body, MAX_BODY)
    return body


def _response(answer: Answer, close: bool = False) -> web.Response:
    # A recorded Server or Date header is the only one sent (aiohttp adds its own only where none is):
    # two Date headers reach a client as one unparseable value, which SDKs that read it refuse.
    headers = CIMultiDict(
        (name, value)
        for name, value in answer.headers.items()
        if name.lower() not in ("content-length", "transfer-encoding", "connection")
    )
    response = web.Response(status=answer.status, body=answer.body, headers=headers)
    if close or answer.headers.get("connection") == "close":
        response.force_close()
    return response


def _names_a_scenario(path: str) -> bool:
    """Whether a path begins where scenarios are served (`/API/`): no provider's own path does."""
    from conformance.corpus.caseschema import vocabulary

    return path.lstrip("/").split("/", 1)[0] in vocabulary("api")


def _gunzip(body: bytes, limit: int) -> bytes:
    """A gzip body inflated (every member) to at most `limit` bytes; what goes past it, or stops short, is refused."""
    try:
        return decode(body, "gzip", limit)
    except EncodingError as exc:
        if str(exc).startswith("decompresses to more than"):
            raise BodyError(413, f"inflates past {limit} bytes; the replay accepts at most {limit}") from None
        if "cut off" in str(exc):
            raise BodyError(400, "the gzip stream is truncated") from None
        raise BodyError(400, f"not gzip: {exc}") from None
