"""The replay server under load: requests per second and latency at 1 to 256 concurrent clients.

    python benchmarks/server.py                       # 1, 8, 64, 256 clients, 2,000 requests each level
    python benchmarks/server.py --clients 64 --requests 5000

Two servers answer the same bytes (a small JSON body, as `/_conformance/scenarios` is):

- replay: the suite's own HTTP stack (`conformance.replay.server`, stdlib threads) with its
  dispatch answering that body, so what is measured is the server, not a scenario's judging;
- aiohttp: the same bytes from aiohttp's server, as an anchor, when aiohttp is installed.

Each server runs in its own process (the load generator would otherwise share its interpreter). Every
client holds one keep-alive connection and sends its requests one after the other, all clients
opening their connections at the same moment; a request fails when its connection is refused or
reset, or its answer is not a 200 with the body sent. Exit status 1 when any request failed, or
when one client's keep-alive median is 5 ms or more.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BODY = b'{"url": "http://127.0.0.1", "scenarios": [{"id": "openai-chat/one-call", "api": "openai-chat"}]}'
LEVELS = (1, 8, 64, 256)


def _serve_replay(ready: Any) -> None:
    from conformance.replay.server import ReplayServer
    from conformance.replay.transports.base import Answer

    server = ReplayServer()
    answer = Answer(200, BODY, {"content-type": "application/json"})
    server.dispatch = lambda *_: answer  # type: ignore[method-assign]
    server.start()
    ready.send(server.address[1])
    threading.Event().wait()


def _serve_aiohttp(ready: Any) -> None:
    from aiohttp import web

    async def answer(_: web.Request) -> web.Response:
        return web.Response(body=BODY, content_type="application/json")

    async def main() -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", answer)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        ready.send(port)
        await asyncio.Event().wait()

    asyncio.run(main())


@dataclass(frozen=True)
class Level:
    server: str
    clients: int
    requests: int
    failed: int
    seconds: float
    p50_ms: float
    p99_ms: float

    @property
    def rps(self) -> float:
        return (self.requests - self.failed) / self.seconds


REQUEST = b"GET /_conformance/scenarios HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


async def _client(port: int, count: int, start: asyncio.Event, latencies: list[float]) -> int:
    await start.wait()
    failed = 0
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return count
    try:
        for done in range(count):
            began = time.perf_counter()
            writer.write(REQUEST)
            try:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                body = await reader.readexactly(length)
            except (OSError, asyncio.IncompleteReadError, StopIteration, ValueError):
                return failed + count - done
            latencies.append(time.perf_counter() - began)
            if not head.startswith(b"HTTP/1.1 200") or body != BODY:
                failed += 1
    finally:
        writer.close()
    return failed


async def _level(port: int, clients: int, total: int) -> tuple[int, float, list[float]]:
    start = asyncio.Event()
    latencies: list[float] = []
    each = max(1, total // clients)
    tasks = [asyncio.create_task(_client(port, each, start, latencies)) for _ in range(clients)]
    await asyncio.sleep(0.05)
    began = time.perf_counter()
    start.set()
    failed = sum(await asyncio.gather(*tasks))
    return failed, time.perf_counter() - began, latencies


def measure(name: str, port: int, clients: int, total: int) -> Level:
    failed, seconds, latencies = asyncio.run(_level(port, clients, total))
    ordered = sorted(latencies) or [float("nan")]
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    requests = max(1, total // clients) * clients
    return Level(name, clients, requests, failed, seconds, statistics.median(ordered) * 1000, p99 * 1000)


def _servers() -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = [("replay", _serve_replay)]
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        print("aiohttp is not installed: the replay server alone", file=sys.stderr)
    else:
        found.append(("aiohttp", _serve_aiohttp))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="*", default=list(LEVELS))
    parser.add_argument("--requests", type=int, default=2000, help="requests per level, shared among the clients")
    args = parser.parse_args(argv)
    results: list[Level] = []
    for name, serve in _servers():
        receive, send = multiprocessing.Pipe(duplex=False)
        process = multiprocessing.Process(target=serve, args=(send,), daemon=True)
        process.start()
        port = receive.recv()
        try:
            measure(name, port, 4, 200)  # warm-up
            for clients in args.clients:
                results.append(measure(name, port, clients, max(args.requests, clients)))
        finally:
            process.terminate()
            process.join()
    print(f"{'server':<8} {'clients':>7} {'requests':>8} {'failed':>6} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7}")
    for level in results:
        print(
            f"{level.server:<8} {level.clients:>7} {level.requests:>8} {level.failed:>6} "
            f"{level.rps:>8.0f} {level.p50_ms:>7.2f} {level.p99_ms:>7.2f}"
        )
    single = [r for r in results if r.server == "replay" and r.clients == 1]
    slow = bool(single) and single[0].p50_ms >= 5
    return 1 if slow or any(r.failed for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
