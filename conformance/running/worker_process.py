"""The worker process an isolated adapter runs in, as the suite's process holds it: started, asked,
and stopped (conformance.running.worker is the other end). Small on purpose: the pytest plugin
starts the worker before it imports the rest of the suite, so that the two boot at once."""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conformance.connectors.supervisor import Fault, Supervisor


class Worker:
    """One supervised worker process, shared by the adapters that run in it."""

    def __init__(self, cases: Sequence[Path] = (), cassettes: Sequence[Path] = ()) -> None:
        hello = {
            "cmd": "start",
            "cases": [str(Path(p).resolve()) for p in cases],
            "cassettes": [str(Path(p).resolve()) for p in cassettes],
            # What imports here imports there: the invocation directory (adapter specs import from it, as in
            # process) and this process's own path (a test's or a tool's additions).
            "path": list(dict.fromkeys([os.getcwd(), *(p for p in sys.path if p)])),
        }
        self.supervisor = Supervisor(
            [sys.executable, "-m", "conformance.running.worker"],
            name="the adapter's worker process",
            hello=hello,
            check_greeting=lambda answer: None if answer.get("ready") else str(answer.get("error", "not ready")),
        )
        self._seq = itertools.count(1)

    def ask(self, message: dict[str, Any], timeout: float | None) -> dict[str, Any] | Fault:
        seq = next(self._seq)
        return self._checked(seq, self.supervisor.ask({**message, "seq": seq}, timeout))

    def post(self, message: dict[str, Any]) -> int | Fault:
        """Send a command whose answer `collect` takes later: its number, or why it could not be sent."""
        seq = next(self._seq)
        fault = self.supervisor.post({**message, "seq": seq})
        return seq if fault is None else fault

    def collect(self, seq: int, timeout: float | None) -> dict[str, Any] | Fault:
        return self._checked(seq, self.supervisor.collect(seq, timeout))

    def _checked(self, seq: int, answer: dict[str, Any] | Fault) -> dict[str, Any] | Fault:
        if isinstance(answer, dict) and answer.get("seq") != seq:
            self.supervisor.stop(kill=True)
            return Fault("garbage", f"the worker answered message {answer.get('seq')!r} when asked {seq}")
        return answer

    def close(self) -> None:
        self.supervisor.stop()
