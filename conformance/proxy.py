"""`conformance proxy --upstream URL`: a recording proxy that checks each exchange as it happens.

It listens on 127.0.0.1 (aiohttp's server, which frames every request), forwards each request to the
upstream (aiohttp's client, which never follows a redirect: a 3xx goes back to the client, and the
credentials the client sent go to `--upstream` only), and for each answer, before the client gets it:

- records the exchange: its bodies opened from their content coding, scrubbed by the project's one
  scrubber (`conformance.recordings.recording.Scrubber`), and appended to the cassette in one write,
  so every exchange a client was answered is on disk, whole, whatever stops the proxy afterwards;
- lints it in its own conversation (`conformance.engine.conversations.Splitter`), so each exchange
  costs the same however long the session, and prints each violation the first time it is found.

What cannot be recorded whole (a body past `MAX_BODY_BYTES`, a coding the scrubber cannot open, an
upstream that breaks HTTP) is not forwarded either: the client gets a one-line error, and the
exchange is reported as a fault, which the exit status counts. Nothing here talks to a provider
unless the user points `--upstream` at one.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import yaml
from aiohttp import web
from multidict import CIMultiDict
from yarl import URL

from conformance.corpus.loading import Corpus
from conformance.engine.conversations import Conversation, Splitter
from conformance.engine.dialects.base import DialectError
from conformance.engine.faults import describe
from conformance.engine.quoting import quotes_for
from conformance.engine.rules import check
from conformance.engine.violations import Violation
from conformance.lint import conversation_context, exchange_of, violation_key
from conformance.recordings.bounds import MAX_BODY_BYTES
from conformance.recordings.cassette import CassetteError, parse_cassette
from conformance.recordings.encodings import EncodingError, accept_encoding, open_body
from conformance.recordings.recording import Scrubber
from conformance.replay.httpserver import BodyTooLarge, ThreadedServer, read_bounded

# Headers that describe one hop, not the message (RFC 9110 7.6.1), with those the framing sets
# itself: never forwarded either way, never recorded. Those a `Connection` header names go too.
HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
        "expect",  # a 100-continue is the proxy's to answer (it reads the body whole before forwarding)
    }
)
IDLE_TIMEOUT = 60.0  # seconds a connection may sit between requests, or before its first one
BODY_TIMEOUT = 60.0  # seconds a client may take to send a request's body
UPSTREAM_TIMEOUT = aiohttp.ClientTimeout(total=600, sock_connect=30)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's emitter where PyYAML was built with it


@dataclass
class Found:
    """A violation the proxy printed: the API and the violation, in the order found."""

    api: str
    violation: Violation


class Refused(Exception):
    """An exchange the proxy does not forward or answer as it is: the status the client gets, and why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Recorder:
    """The cassette being written and what has been reported on it. Every method runs on one thread
    (the proxy's recording thread), in the order the exchanges were answered."""

    upstream: str
    cassette: Path
    corpus: Corpus
    profile: str = "default"
    report: Callable[[str], None] = print
    scrubber: Scrubber = field(default_factory=Scrubber)
    recorded: int = 0
    found: list[Found] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    _splitter: Splitter = field(default_factory=Splitter)
    _seen: set[tuple[str, str, str, str, str]] = field(default_factory=set)
    _known_when_written: int = -1  # how many secrets the scrubber knew when the first exchange was written

    def __post_init__(self) -> None:
        # Its userinfo password and key parameters are credentials too: learned before anything is written.
        self.shown_upstream = self.scrubber.uri(self.upstream)

    def add(self, raw: dict[str, Any]) -> None:
        """Scrub one exchange, append it to the cassette, then lint it; raises OSError when it cannot be written."""
        self.scrubber.interaction(raw)  # learn first: a credential in the response leaves the request too
        scrubbed = self.scrubber.interaction(raw)
        item = self.scrubber.text(yaml.dump([scrubbed], Dumper=_DUMPER, sort_keys=False, allow_unicode=True))
        self._append(item)
        index = self.recorded
        self.recorded += 1
        where = f"exchange {index + 1}"  # counted from 1, as the summary counts exchanges
        try:  # recorded now: whatever judging it does, the client is answered
            interaction = parse_cassette("interactions:\n" + item, str(self.cassette)).interactions[0]
            self._lint(where, self._splitter.add(replace(interaction, index=index)))
        except CassetteError as exc:
            self.fault(where, f"recorded, but cannot be read back: {exc}")
        except Exception as exc:
            self.fault(where, f"recorded, but the suite failed while judging it: {describe(exc)}")

    def _append(self, item: str) -> None:
        first = self.recorded == 0
        data = (("version: 1\ninteractions:\n" if first else "") + item).encode("utf-8", "surrogatepass")
        flags = os.O_WRONLY | os.O_APPEND | (os.O_CREAT | os.O_TRUNC if first else 0)
        if first:
            self.cassette.parent.mkdir(parents=True, exist_ok=True)
            self._known_when_written = len(self.scrubber.secrets)
        fd = os.open(self.cassette, flags, 0o600)
        try:
            view = memoryview(data)
            while view:  # one write for an exchange, unless the kernel takes it in parts
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)

    def _lint(self, where: str, ended: Conversation | Any) -> None:
        if not isinstance(ended, Conversation):
            if ended.api is not None:  # a body of a known API it cannot read; side requests go unchecked
                self.fault(where, ended.reason)
            return
        exchange = exchange_of(ended)
        try:
            violations = list(check(exchange, conversation_context(ended, self.corpus, self.profile)))
        except DialectError as exc:
            self.fault(where, str(exc))
            return
        except Exception as exc:  # a rule that fails on what it was given must not end the session
            self.fault(where, f"the suite failed while checking this conversation: {describe(exc)}")
            return
        from conformance.reports.textreport import violation_text

        # The provider's error texts quoted with this recording's own ids, not the public report's.
        quotes = quotes_for(violations, exchange)
        for i, violation in enumerate(violations):
            key = violation_key(ended.api, violation)
            if key in self._seen:
                continue
            self._seen.add(key)
            self.found.append(Found(ended.api, violation))
            self.report(f"{where}: {ended.api}\n{violation_text(violation, ended.api, quotes.get(i))}")

    def fault(self, where: str, message: str) -> None:
        """What went wrong with one exchange: reported for it, counted by the exit status."""
        line = self.scrubber.text(f"{where}: fault: {message}")
        self.faults.append(line)
        self.report(line)

    def close(self) -> None:
        """A credential first learned after the first exchange was written is taken out of the whole file."""
        if self.recorded and len(self.scrubber.secrets) > self._known_when_written:
            text = self.cassette.read_text(encoding="utf-8", errors="surrogateescape")
            scrubbed = self.scrubber.text(text)
            if scrubbed != text:
                partial = self.cassette.with_name(self.cassette.name + ".partial")
                partial.write_text(scrubbed, encoding="utf-8", errors="surrogateescape")
                os.replace(partial, self.cassette)


def hop_by_hop(headers: Iterable[tuple[str, str]]) -> frozenset[str]:
    """The hop-by-hop headers, with every header a `Connection` header names."""
    named = {
        token.strip().lower()
        for name, value in headers
        if name.lower() in ("connection", "proxy-connection")
        for token in value.split(",")
    }
    return HOP | named


def end_to_end(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    headers = list(headers)
    hop = hop_by_hop(headers)
    return [(k, v) for k, v in headers if k.lower() not in hop]


def target(upstream: str, raw_path: str) -> str:
    """The upstream URL a request goes to: the upstream's path then the client's, the client's query then
    the upstream's; the userinfo is sent as a header instead (`basic_auth`)."""
    base, sent = urlsplit(upstream), urlsplit(raw_path)
    host = base.netloc.rpartition("@")[2]
    query = "&".join(q for q in (sent.query, base.query) if q)
    return urlunsplit((base.scheme, host, base.path.rstrip("/") + (sent.path or "/"), query, ""))


def basic_auth(upstream: str) -> aiohttp.BasicAuth | None:
    parts = urlsplit(upstream)
    if parts.username is None:
        return None
    return aiohttp.BasicAuth(parts.username, parts.password or "")


def _text_or_bytes(body: bytes) -> str | bytes:
    """Text where the body is UTF-8 (readable in the cassette), else its bytes (an AWS event stream)."""
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body


def _listed(items: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, value in items:
        out.setdefault(str(name), []).append(str(value))
    return out


def _opened(body: bytes, headers: list[tuple[str, str]], what: str) -> tuple[bytes, list[tuple[str, str]]]:
    """A body as recorded, opened from its content coding, with the headers that describe it opened."""
    coding = ", ".join(v for k, v in headers if k.lower() == "content-encoding")
    try:
        opened = open_body(body, coding, MAX_BODY_BYTES)
    except EncodingError as exc:
        status = 502 if what == "response" else 415
        raise Refused(status, f"the {what} body ({coding}) cannot be recorded: {exc}") from None
    return opened, [(k, v) for k, v in headers if k.lower() != "content-encoding"]


class _Forwarder:
    """The request handler: one exchange in, one answer out, recorded first."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="conformance-proxy-record")
        self.session: aiohttp.ClientSession | None = None
        self.auth = basic_auth(recorder.upstream)

    async def start(self) -> None:
        self.session = aiohttp.ClientSession(
            auto_decompress=False,  # forwarded as it came; opened only for the record
            cookie_jar=aiohttp.DummyCookieJar(),  # one client's cookies never reach another's request
            timeout=UPSTREAM_TIMEOUT,
            trust_env=False,  # proxy variables would send the traffic (and its credentials) elsewhere
            skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
        )

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close()

    def _fault(self, request: web.BaseRequest, status: int, message: str) -> web.Response:
        self.writer.submit(self.recorder.fault, f"{request.method} {request.path}", message)
        response = web.Response(status=status, text=self.recorder.scrubber.text(f"conformance proxy: {message}\n"))
        response.force_close()
        return response

    async def __call__(self, request: web.BaseRequest) -> web.StreamResponse:
        try:
            return await self._exchange(request)
        except Exception as exc:  # a fault of the proxy itself: told for this exchange, answered in one line
            return self._fault(request, 500, f"the proxy failed: {describe(exc)}")

    async def _exchange(self, request: web.BaseRequest) -> web.StreamResponse:
        try:
            body = await self._request_body(request)
        except Refused as exc:
            return self._fault(request, exc.status, str(exc))
        except Exception:  # the client hung up mid-body, or broke its framing: nothing forwarded, nothing recorded
            response = web.Response(status=400)
            response.force_close()
            return response
        sent = end_to_end(request.headers.items())
        try:
            recorded_request, request_headers = _opened(body, sent, "request")
        except Refused as exc:
            return self._fault(request, exc.status, str(exc))
        url = target(self.recorder.upstream, request.raw_path)
        forwarded = CIMultiDict(
            [(k, v) for k, v in sent if k.lower() != "accept-encoding"]
            + [("Accept-Encoding", accept_encoding(request.headers.get("accept-encoding")))]
        )
        auth = self.auth if "authorization" not in forwarded else None
        assert self.session is not None
        try:
            async with self.session.request(
                request.method,
                URL(url, encoded=True),
                headers=forwarded,
                data=body if body else None,
                allow_redirects=False,
                auth=auth,
            ) as answer:
                try:
                    answer_body = await read_bounded(answer.content, MAX_BODY_BYTES)
                except BodyTooLarge:
                    raise Refused(
                        502, f"the response body is over {MAX_BODY_BYTES} bytes, which the proxy does not record"
                    ) from None
                status, reason = answer.status, answer.reason or ""
                kept = end_to_end(answer.headers.items())
        except Refused as exc:
            return self._fault(request, exc.status, str(exc))
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            shown = self.recorder.shown_upstream
            return self._fault(request, 502, f"the upstream {shown} did not answer: {type(exc).__name__}: {exc}")
        try:
            recorded_answer, answer_headers = _opened(answer_body, kept, "response")
        except Refused as exc:
            return self._fault(request, exc.status, str(exc))
        raw = {
            "request": {
                "method": request.method,
                "uri": url,
                "headers": _listed(request_headers),
                "body": _text_or_bytes(recorded_request),
            },
            "response": {
                "status": {"code": status, "message": reason},
                "headers": _listed(answer_headers),
                "body": {"string": _text_or_bytes(recorded_answer)},
            },
        }
        try:
            await asyncio.get_running_loop().run_in_executor(self.writer, self.recorder.add, raw)
        except Exception as exc:  # the disk is full, the directory went away: the client is told, not misled
            return self._fault(request, 502, f"the exchange could not be recorded: {describe(exc)}")
        return web.Response(status=status, reason=reason, body=answer_body, headers=CIMultiDict(kept))

    async def _request_body(self, request: web.BaseRequest) -> bytes:
        declared = request.content_length
        if declared is not None and declared > MAX_BODY_BYTES:
            raise Refused(413, f"a request body of {declared} bytes is over {MAX_BODY_BYTES}, which the proxy refuses")
        try:
            async with asyncio.timeout(BODY_TIMEOUT):
                return await read_bounded(request.content, MAX_BODY_BYTES)
        except BodyTooLarge:
            raise Refused(413, f"a request body over {MAX_BODY_BYTES} bytes, which the proxy refuses") from None
        except TimeoutError:
            raise Refused(408, f"the request body was not sent within {BODY_TIMEOUT:.0f} s") from None


class Proxy:
    """The proxy server; `start()` listens (port 0: any free port), `stop()` ends it. The port is bound
    when it is made, so an OSError (a port in use) comes from the constructor."""

    def __init__(self, recorder: Recorder, port: int = 0) -> None:
        self.recorder = recorder
        self._forwarder = _Forwarder(recorder)
        self._server = ThreadedServer(
            self._forwarder,
            port=port,
            idle_timeout=IDLE_TIMEOUT,
            # A body is forwarded as it came, and opened (within bounds) only to be recorded.
            auto_decompress=False,
            on_start=self._forwarder.start,
            on_stop=self._forwarder.close,
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.address[1]}"

    def start(self) -> None:
        self._server.start()

    def stop(self) -> None:
        """Answers in flight are finished and recorded, then the cassette is closed."""
        self._server.stop()
        self._forwarder.writer.shutdown(wait=True)
        self.recorder.close()
