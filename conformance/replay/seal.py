"""Sealed replays: while a replay runs, no socket connects anywhere but to the replay itself, and
no host name is looked up.

vcrpy answers the HTTP libraries it patches; a client may still open a socket another way (a
library vcrpy does not patch, a raw socket), and a thread a client leaves running may send after
its case has ended, when the patches are gone. The seal refuses every outgoing connection while a
replay runs, except to the replay servers' own addresses, and keeps refusing those of threads that
a replay started and left running. A refused connection raises ConnectionRefusedError, the error a
closed port gives, and is recorded for the report.

A name lookup is traffic too: a DNS query for the provider's host tells a resolver (and whoever
watches it) that the client is running, and a client that resolves before it connects would reach
the network before any connection is refused. So is every lookup of a name other than the local
host's: it raises socket.gaierror (EAI_NONAME, the error of a name that does not exist). The
errors say the client went around the replay, so the case's error says so where the client raises it.
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
_original_getaddrinfo = socket.getaddrinfo
_original_gethostbyname = socket.gethostbyname
_original_gethostbyname_ex = socket.gethostbyname_ex
_original_gethostbyaddr = socket.gethostbyaddr
_LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", ""})
WENT_AROUND = "the client went around the conformance replay"


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


def _sealed_now() -> bool:
    with _lock:
        return bool(_active) or threading.current_thread() in _leftover


def _numeric(host: str) -> bool:
    """An address written out (`127.0.0.1`, `::1`): resolving it asks no resolver."""
    for family in (socket.AF_INET, socket.AF_INET6):
        try:
            socket.inet_pton(family, host.split("%", 1)[0])
            return True
        except (OSError, ValueError):
            continue
    return False


def _refuse_name(host: Any) -> bool:
    if host is None:
        return False  # getaddrinfo(None, port): the local wildcard or loopback address, no lookup
    name = host.decode("idna", "replace") if isinstance(host, bytes) else str(host)
    name = name.rstrip(".").lower()
    if name in _LOCAL_NAMES or _numeric(name) or not _sealed_now():
        return False
    with _lock:
        _refused.append(f"name lookup of {name}")
    return True


def _no_such_name(host: Any) -> socket.gaierror:
    return socket.gaierror(
        socket.EAI_NONAME, f"{WENT_AROUND}: a replay resolves no host names (refused the lookup of {host!r})"
    )


def _getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if _refuse_name(host):
        raise _no_such_name(host)
    return _original_getaddrinfo(host, *args, **kwargs)


def _gethostbyname(host: Any) -> Any:
    if _refuse_name(host):
        raise _no_such_name(host)
    return _original_gethostbyname(host)


def _gethostbyname_ex(host: Any) -> Any:
    if _refuse_name(host):
        raise _no_such_name(host)
    return _original_gethostbyname_ex(host)


def _gethostbyaddr(host: Any) -> Any:
    # A reverse lookup of an address asks the resolver too, numeric or not; the local host's does not leave.
    if _sealed_now() and str(host) not in ("127.0.0.1", "::1", "localhost"):
        with _lock:
            _refused.append(f"reverse lookup of {host}")
        raise socket.herror(1, f"{WENT_AROUND}: a replay resolves no addresses (refused the lookup of {host!r})")
    return _original_gethostbyaddr(host)


def _connect(self: Any, address: Any) -> None:
    if _refuse(address):
        raise ConnectionRefusedError(f"{WENT_AROUND}: a replay lets no request out (refused {address!r})")
    _original_connect(self, address)


def _connect_ex(self: Any, address: Any) -> int:
    if _refuse(address):
        return 111  # ECONNREFUSED
    return _original_connect_ex(self, address)


def _install() -> None:
    if socket.socket.connect is not _connect:
        socket.socket.connect = _connect  # type: ignore[method-assign]
        socket.socket.connect_ex = _connect_ex  # type: ignore[method-assign]
    if socket.getaddrinfo is not _getaddrinfo:
        # Patched on the module: asyncio, urllib3, httpx and the rest look the functions up there when
        # they resolve, so this covers them (a library that imported the function by name before the
        # first replay keeps the original, and still meets the connection seal).
        socket.getaddrinfo = _getaddrinfo
        socket.gethostbyname = _gethostbyname
        socket.gethostbyname_ex = _gethostbyname_ex
        socket.gethostbyaddr = _gethostbyaddr


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
