"""Sealed replays: while a replay runs, no socket connects anywhere but to the replay itself.

vcrpy answers the HTTP libraries it patches; a client may still open a socket another way (a
library vcrpy does not patch, a raw socket), and a thread a client leaves running may send after
its case has ended, when the patches are gone. The seal refuses every outgoing connection while a
replay runs, except to the replay servers' own addresses, and keeps refusing those of threads that
a replay started and left running. A refused connection raises ConnectionRefusedError, the error a
closed port gives, and is recorded for the report.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import weakref
from collections.abc import Iterator
from typing import Any

_lock = threading.RLock()
_active = 0  # replays running now
_allowed: set[tuple[str, int]] = set()  # the replay servers' addresses
# Threads started during a replay that outlived it, by the thread itself: an ident is reused by the
# next thread started, which would then be sealed for no reason (a test's own clients were refused).
_leftover: weakref.WeakSet[threading.Thread] = weakref.WeakSet()
_refused: list[str] = []  # what was refused, for the reports
_original_connect = socket.socket.connect
_original_connect_ex = socket.socket.connect_ex


def _refuse(address: Any) -> bool:
    if not isinstance(address, tuple) or len(address) < 2:
        return False  # Unix sockets and socket pairs: local, never the network
    with _lock:
        if not _active and threading.current_thread() not in _leftover:
            return False
        host, port = str(address[0]), int(address[1])
        if (host, port) in _allowed or (host in ("localhost", "::1") and ("127.0.0.1", port) in _allowed):
            return False
        _refused.append(f"{host}:{port}")
        return True


def _connect(self: Any, address: Any) -> None:
    if _refuse(address):
        raise ConnectionRefusedError(f"a conformance replay lets no request out (refused {address!r})")
    _original_connect(self, address)


def _connect_ex(self: Any, address: Any) -> int:
    if _refuse(address):
        return 111  # ECONNREFUSED
    return _original_connect_ex(self, address)


def _install() -> None:
    if socket.socket.connect is not _connect:
        socket.socket.connect = _connect  # type: ignore[method-assign]
        socket.socket.connect_ex = _connect_ex  # type: ignore[method-assign]


@contextlib.contextmanager
def sealed(*allowed: tuple[str, int]) -> Iterator[list[str]]:
    """Refuse outgoing connections while the block runs, but to `allowed`; yields what was refused."""
    global _active
    before = set(threading.enumerate())
    with _lock:
        _install()
        _active += 1
        _allowed.update(allowed)
        start = len(_refused)
    seen: list[str] = []
    try:
        yield seen
    finally:
        with _lock:
            _active -= 1
            _allowed.difference_update(allowed)
            seen.extend(_refused[start:])
            # Threads the client started and left running stay sealed for good.
            _leftover.update(t for t in threading.enumerate() if t.is_alive() and t not in before)
