"""A per-case time limit: an adapter that hangs becomes a `timeout` outcome, and the run goes on.

In the main thread on POSIX an interval timer interrupts the adapter's own code (sleeps and
socket waits included); elsewhere the case runs in a daemon thread that is abandoned when it
overruns. `CaseTimeout` is a BaseException so that an adapter's `except Exception` cannot
swallow it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from conformance.engine.faults import CaseTimeout

T = TypeVar("T")

DEFAULT_SECONDS = 60.0


def call_with_timeout(fn: Callable[[], T], seconds: float | None) -> T:
    if not seconds or seconds <= 0:
        return fn()
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        return _with_alarm(fn, seconds)
    return _with_thread(fn, seconds)


def _with_alarm(fn: Callable[[], T], seconds: float) -> T:
    def expire(signum: int, frame: Any) -> None:
        raise CaseTimeout(seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _with_thread(fn: Callable[[], T], seconds: float) -> T:
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the caller's thread below
            box["error"] = exc

    worker = threading.Thread(target=target, daemon=True, name="conformance-case")
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise CaseTimeout(seconds)
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]
