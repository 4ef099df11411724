"""The replay server under load: requests per second and latency at 1 to 256 concurrent clients.

    python benchmarks/server.py                       # 1, 8, 64, 256 clients, 2,000 requests each level, 3 runs
    python benchmarks/server.py --clients 64 --requests 5000 --runs 5

Two servers answer the same bytes (a small JSON body, as `/_conformance/scenarios` is):

- replay: the replay server (`conformance.replay.server`, on aiohttp's low-level server) with its
  dispatch answering that body, so what is measured is the server, not a scenario's judging;
- aiohttp: the same bytes from a bare aiohttp application, the anchor.

Each server runs in its own process (the load generator would otherwise share its interpreter). Every
client holds one keep-alive connection and sends its requests one after the other, all clients
opening their connections at the same moment; a request fails when its connection is refused or
reset, or its answer is not a 200 with the body sent. Each level is run `--runs` times, the servers
taking turns, and the median of each figure is reported. Exit status 1 when any request failed, when
one client's keep-alive median is 5 ms or more, or when the replay server misses its goal at 1, 64
or 256 clients: at least half the anchor's requests per second, and a p99 at most twice its p99.
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
GOAL_LEVELS = (1, 64, 256)
GOAL_RPS = 0.5  # the replay's requests per second, at least this share of the anchor's
GOAL_P99 = 2.0  # the replay's p99, at most this many times the anchor's


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


def _median(levels: list[Level]) -> Level:
    first = levels[0]
    return Level(
        first.server,
        first.clients,
        first.requests,
        max(level.failed for level in levels),
        statistics.median(level.seconds for level in levels),
        statistics.median(level.p50_ms for level in levels),
        statistics.median(level.p99_ms for level in levels),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="*", default=list(LEVELS))
    parser.add_argument("--requests", type=int, default=2000, help="requests per level, shared among the clients")
    parser.add_argument("--runs", type=int, default=3, help="runs of each level; medians are reported")
    args = parser.parse_args(argv)
    ports: dict[str, int] = {}
    processes = []
    for name, serve in _servers():
        receive, send = multiprocessing.Pipe(duplex=False)
        process = multiprocessing.Process(target=serve, args=(send,), daemon=True)
        process.start()
        processes.append(process)
        ports[name] = receive.recv()
    runs: dict[tuple[str, int], list[Level]] = {}
    try:
        for name, port in ports.items():
            measure(name, port, 4, 200)  # warm-up
        for _ in range(max(1, args.runs)):
            for clients in args.clients:
                for name, port in ports.items():  # the servers take turns, so that both meet the same machine
                    level = measure(name, port, clients, max(args.requests, clients))
                    runs.setdefault((name, clients), []).append(level)
    finally:
        for process in processes:
            process.terminate()
            process.join()
    results = [_median(levels) for levels in runs.values()]
    print(f"{'server':<8} {'clients':>7} {'requests':>8} {'failed':>6} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7}")
    for level in sorted(results, key=lambda r: (r.server != "replay", r.clients)):
        print(
            f"{level.server:<8} {level.clients:>7} {level.requests:>8} {level.failed:>6} "
            f"{level.rps:>8.0f} {level.p50_ms:>7.2f} {level.p99_ms:>7.2f}"
        )
    single = [r for r in results if r.server == "replay" and r.clients == 1]
    slow = bool(single) and single[0].p50_ms >= 5
    missed = False
    by = {(r.server, r.clients): r for r in results}
    for clients in GOAL_LEVELS:
        replay, anchor = by.get(("replay", clients)), by.get(("aiohttp", clients))
        if replay is None or anchor is None:
            continue
        rps, p99 = replay.rps / anchor.rps, replay.p99_ms / anchor.p99_ms
        met = rps >= GOAL_RPS and p99 <= GOAL_P99
        missed |= not met
        verdict = "met" if met else "MISSED"
        print(f"{clients:>4} clients: {rps:.2f}x the anchor's req/s, p99 {p99:.2f}x its p99: {verdict}")
    return 1 if slow or missed or any(r.failed for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
