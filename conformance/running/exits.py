"""`os._exit(0)` inside an in-process adapter: a case that crashed, not a run that passed.

`os._exit` ends the process at once: no `finally`, no report, and with status 0 a CI job that
passed. While an adapter runs in the suite's own process, `os._exit(0)` (and `posix._exit(0)`)
raises `ProcessExit` instead, which the runner turns into the case's `crash`; the run goes on and
its report is written. A non-zero status still ends the process as the adapter asked: the run then
fails visibly (pytest-xdist reports the case as crashed), which is what the adapter's author sees
in any other runner too.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Any, NoReturn

from conformance.engine.faults import ProcessExit

try:
    import posix
except ImportError:  # Windows: os._exit is nt._exit
    posix = None  # type: ignore[assignment]

__all__ = ["ProcessExit", "exits_trapped"]


_lock = threading.Lock()
_depth = 0
_original: Any = os._exit


def _trapped(status: int) -> NoReturn:
    if status == 0:
        raise ProcessExit(status)
    _original(status)
    raise AssertionError("unreachable")  # pragma: no cover


@contextlib.contextmanager
def exits_trapped() -> Iterator[None]:
    """While inside, `os._exit(0)` raises ProcessExit (nested and concurrent uses share one trap)."""
    global _depth
    with _lock:
        if _depth == 0:
            os._exit = _trapped
            if posix is not None:
                posix._exit = _trapped
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                os._exit = _original
                if posix is not None:
                    posix._exit = _original
