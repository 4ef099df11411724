"""A call started now on a thread of its own and waited for later: how a front door starts an
isolated adapter's worker while it goes on importing the suite and reading the corpus."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class Soon:
    """A call run on a thread of its own; `result()` waits for it and raises what it raised."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self._outcome: tuple[bool, Any] = (False, None)
        self._thread = threading.Thread(target=self._run, args=(call,), daemon=True)
        self._thread.start()

    def _run(self, call: Callable[[], Any]) -> None:
        try:
            self._outcome = (True, call())
        except BaseException as exc:  # handed to the caller of result(), in its own thread
            self._outcome = (False, exc)

    def result(self) -> Any:
        self._thread.join()
        done, value = self._outcome
        if not done:
            raise value
        return value
