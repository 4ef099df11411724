"""`conformance proxy --upstream URL`: a recording proxy that checks each exchange as it happens.

It listens on 127.0.0.1, forwards every request to the upstream (a provider, a gateway, a local
server), answers the client with the upstream's response, and then:

- appends the exchange to a cassette, scrubbed by the project's one scrubber
  (`conformance.recordings.recording.Scrubber`: credential headers, key query parameters and body fields by
  name, and every credential it has seen by value, in every interaction written so far), and
  writes the whole cassette again, so the file on disk is always whole and always scrubbed;
- lints the cassette so far (`conformance.lint`: each request against the responses of its own
  conversation) and prints each violation the first time it is found, as it occurs.

The response is read whole before it is sent on: a stream reaches the client when it has ended.
Nothing here talks to a provider unless the user points `--upstream` at one.
"""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml

from conformance.corpus.loading import Corpus
from conformance.engine.violations import Violation
from conformance.lint import lint
from conformance.recordings.cassette import parse_cassette
from conformance.recordings.recording import Scrubber

# Headers that describe one hop, not the message: never forwarded either way.
_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
        "accept-encoding",
        "content-encoding",
    }
)


# The upstream is reached directly: proxy variables of the environment would send the traffic (and
# the credentials in it) somewhere the user did not name.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@dataclass
class Found:
    """A violation the proxy printed: the API and the violation, in the order found."""

    api: str
    violation: Violation


@dataclass
class Recorder:
    """The cassette being written and what has been reported on it; one lock for both."""

    upstream: str
    cassette: Path
    corpus: Corpus
    profile: str = "default"
    report: Callable[[str], None] = print
    scrubber: Scrubber = field(default_factory=Scrubber)
    interactions: list[dict[str, Any]] = field(default_factory=list)
    found: list[Found] = field(default_factory=list)
    _seen: set[tuple[str, str, str]] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, raw: dict[str, Any]) -> None:
        with self._lock:
            self.interactions.append(raw)
            # Learn every credential first, so that one seen now leaves the earlier exchanges too.
            for interaction in self.interactions:
                self.scrubber.interaction(interaction)
            scrubbed = [self.scrubber.interaction(i) for i in self.interactions]
            text = self.scrubber.text(
                yaml.safe_dump({"interactions": scrubbed, "version": 1}, sort_keys=False, allow_unicode=True)
            )
            self.cassette.parent.mkdir(parents=True, exist_ok=True)
            self.cassette.write_text(text, encoding="utf-8")
            self._check(text)

    def _check(self, text: str) -> None:
        cassette = parse_cassette(text, str(self.cassette))
        report = lint(cassette, self.corpus, self.profile)
        for problem in report.unreadable:
            key = ("unreadable", problem, "")
            if key not in self._seen:
                self._seen.add(key)
                self.report(f"unreadable: {problem}")
        for api, violation in report.violations:
            key = (violation.code, violation.location, violation.message)
            if key in self._seen:
                continue
            self._seen.add(key)
            self.found.append(Found(api, violation))
            from conformance.reports.textreport import violation_text

            self.report(
                f"exchange {len(self.interactions) - 1}: {api}\n"
                + violation_text(violation, api, report.quote(violation))
            )


def _handler(recorder: Recorder) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the violations are the output, not an access log

        def _forward(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            url = recorder.upstream.rstrip("/") + self.path
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
            request = urllib.request.Request(url, data=body or None, headers=headers, method=self.command)
            try:
                with _DIRECT.open(request, timeout=600) as answer:
                    status, answer_headers, answer_body = answer.status, answer.headers, answer.read()
            except urllib.error.HTTPError as exc:
                status, answer_headers, answer_body = exc.code, exc.headers, exc.read()
            except (urllib.error.URLError, OSError) as exc:
                message = f"conformance proxy: the upstream {recorder.upstream} did not answer: {exc}".encode()
                self.send_response(502)
                self.send_header("content-type", "text/plain")
                self.send_header("content-length", str(len(message)))
                self.end_headers()
                self.wfile.write(message)
                return
            kept = [(k, v) for k, v in answer_headers.items() if k.lower() not in _HOP]
            self.send_response(status)
            for name, value in kept:
                self.send_header(name, value)
            self.send_header("content-length", str(len(answer_body)))
            self.end_headers()
            self.wfile.write(answer_body)
            self.wfile.flush()
            try:
                phrase = HTTPStatus(status).phrase
            except ValueError:
                phrase = ""
            recorder.add(
                {
                    "request": {
                        "method": self.command,
                        "uri": url,
                        "headers": _listed(self.headers.items()),
                        "body": _text_or_bytes(body),
                    },
                    "response": {
                        "status": {"code": status, "message": phrase},
                        "headers": _listed(kept),
                        "body": {"string": _text_or_bytes(answer_body)},
                    },
                }
            )

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _forward

    return Handler


def _text_or_bytes(body: bytes) -> str | bytes:
    """Text where the body is UTF-8 (readable in the cassette), else its bytes (an AWS event stream)."""
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body


def _listed(items: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, value in items:
        out.setdefault(str(name), []).append(str(value))
    return out


class Proxy:
    """The proxy server; `start()` listens (port 0: any free port), `stop()` ends it."""

    def __init__(self, recorder: Recorder, port: int = 0) -> None:
        self.recorder = recorder
        self.server = ThreadingHTTPServer(("127.0.0.1", port), _handler(recorder))
        self.server.daemon_threads = True
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        port = self.server.server_address[1]
        return f"http://127.0.0.1:{port}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
