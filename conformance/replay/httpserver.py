"""An aiohttp server run on an event loop of its own thread, behind a synchronous start/stop: what the
replay server (`conformance serve`) and the recording proxy (`conformance proxy`) are served by.

aiohttp frames every request (chunked bodies, Content-Length with Transfer-Encoding, bad lengths,
HTTP/0.9 request lines: a 400 from its parser, never a request of ours), closes connections idle past
`idle_timeout` (a connection that never finishes its first request's head included), and its
`read_bounded` reads a body within a bound. The port is bound when the server is made, so that
a port in use is an OSError at once.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

BACKLOG = 1024  # connections waiting to be accepted; the kernel caps it at somaxconn
LINGERING_TIME = 2.0
# A client that breaks HTTP gets aiohttp's 400 and is its own business: aiohttp would log each with a
# traceback. The handlers served here answer every failure of their own, so nothing is lost by it.
_QUIET = logging.getLogger("conformance.http")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False

Handler = Callable[[web.BaseRequest], Awaitable[web.StreamResponse]]


class ClientClosedEarly(ConnectionError):
    """The client closed its side of the connection before its request's body ended."""


class _HalfClosing(RequestHandler):
    """aiohttp's connection, answering a client that closes its sending side after a request (which HTTP
    allows, and `nc -N` or a shell's redirection does): aiohttp would drop the connection unanswered."""

    reading: Any = None  # the body the handler is reading, set by ThreadedServer around each request
    ended = False  # the client closed its sending side: a body not whole by now never will be
    began = False  # a request reached the handler: aiohttp's keep-alive timer watches the connection from then

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        # aiohttp before 3.14 times a connection out only between requests: one that never finishes its
        # first request's head would be held for ever.
        timeout = self.keepalive_timeout
        if timeout:
            asyncio.get_running_loop().call_later(timeout, self._first_head_overdue)

    def _first_head_overdue(self) -> None:
        if not self.began and self.transport is not None:
            self.force_close()

    def eof_received(self) -> bool:  # type: ignore[override]  # asyncio's protocol returns whether to stay open
        pending = list(getattr(self, "_messages", ()))  # parsed, not yet handed to the handler
        if getattr(self, "_waiter", None) is not None and not pending:
            return False  # waiting for a request's head: there is nothing to answer, the connection ends
        self.close()  # aiohttp: no further request on it; closed once the answers in hand are sent
        self.ended = True
        for body in [self.reading, *(payload for _, payload in pending)]:
            self.cut(body)
        return True  # the sending side stays open for the answers

    def cut(self, body: Any) -> None:
        """A body that can no longer end, once the client has closed its side, ends in an error at once."""
        if self.ended and body is not None and not body.is_eof():
            body.set_exception(ClientClosedEarly("the client closed the connection before the body ended"))


class _Server(web.Server):
    def __call__(self) -> RequestHandler:
        return _HalfClosing(self, loop=self._loop, **self._kwargs)


async def read_bounded(content: Any, limit: int) -> bytes:
    """A body read to its end, refused (BodyTooLarge) as soon as it passes `limit` bytes."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in content.iter_chunked(1 << 16):
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(f"more than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


class BodyTooLarge(ValueError):
    """A body past its bound: refused, never cut."""


class ThreadedServer:
    def __init__(
        self,
        handler: Handler,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        idle_timeout: float,
        auto_decompress: bool = True,
        on_start: Callable[[], Awaitable[None]] | None = None,
        on_stop: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.socket = socket.create_server((host, port), backlog=BACKLOG)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="conformance-http", daemon=True)
        self._handler = handler
        self._options: dict[str, Any] = {
            "access_log": None,
            "keepalive_timeout": idle_timeout,
            # After an answer to a request whose body was left unread (refused, or never sent whole),
            # what more comes is read and dropped this long before the connection closes.
            "lingering_time": LINGERING_TIME,
            "auto_decompress": auto_decompress,
            "logger": _QUIET,
        }
        self._on_start, self._on_stop = on_start, on_stop
        self._runner: web.ServerRunner | None = None

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.socket.getsockname()[:2]
        return str(host), int(port)

    async def _start(self) -> None:
        if self._on_start is not None:
            await self._on_start()
        # aiohttp's low-level server: every request to the one handler, which reads its body within
        # bounds of its own (`read_bounded`), with no routing between.
        runner = web.ServerRunner(_Server(self._handle, **self._options), handle_signals=False)
        self._runner = runner
        await runner.setup()
        await web.SockSite(runner, self.socket, backlog=BACKLOG).start()

    async def _handle(self, request: web.BaseRequest) -> web.StreamResponse:
        protocol = request.protocol
        if isinstance(protocol, _HalfClosing):
            protocol.began = True
            protocol.reading = request.content
            protocol.cut(request.content)  # the client may have closed before the handler began
        if request.version >= (1, 1) and request.headers.get("expect", "").lower() == "100-continue":
            # What aiohttp's router does and its low-level server does not: curl waits a second for it
            # before sending a body over 1 KiB.
            await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        try:
            return await self._handler(request)
        finally:
            if isinstance(protocol, _HalfClosing):
                protocol.reading = None

    async def _stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._on_stop is not None:
            await self._on_stop()

    def start(self) -> None:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result()

    def stop(self, timeout: float = 60) -> None:
        """The answers in flight are finished first."""
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(self._stop(), self.loop).result(timeout=timeout)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=10)
        self.socket.close()
