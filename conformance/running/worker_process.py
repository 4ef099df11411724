"""The worker process an isolated adapter runs in, as the suite's process holds it: started, asked,
and stopped (conformance.running.worker is the other end). Small on purpose: the pytest plugin
starts the worker before it imports the rest of the suite, so that the two boot at once.

Every command carries a fresh random nonce, and its answer must echo it. What the adapter prints never
reaches the answers' pipe (the worker sends its stdout to stderr); a line that code in the worker
writes on that pipe by other means (it can find the pipe among its descriptors) cannot know the nonce
of a command not sent yet, so it cannot answer for a later case, or for the next adapter in the same
worker. Code in the worker's process can read the nonce of the command it runs in, so nothing the
worker says blames the suite without the suite checking it (conformance.running.isolation).
"""

from __future__ import annotations

import itertools
import os
import secrets
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
        self._nonces: dict[int, str] = {}  # per command sent and not answered yet: the nonce its answer echoes

    def _numbered(self, message: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        seq = next(self._seq)
        self._nonces[seq] = secrets.token_hex(16)
        return seq, {**message, "seq": seq, "nonce": self._nonces[seq]}

    def ask(self, message: dict[str, Any], timeout: float | None) -> dict[str, Any] | Fault:
        """One command and its answer. An answer the worker did not write is met after code that ran
        in the worker (an earlier adapter's, maybe) wrote on its pipe: the worker is replaced and asked
        once more, so that what one adapter did is not laid on the next."""
        seq, numbered = self._numbered(message)
        answer = self._checked(seq, self.supervisor.ask(numbered, timeout))
        if isinstance(answer, Fault) and answer.kind == "garbage" and _FORGED in answer.summary:
            seq, numbered = self._numbered(message)
            answer = self._checked(seq, self.supervisor.ask(numbered, timeout))
        return answer

    def post(self, message: dict[str, Any]) -> int | Fault:
        """Send a command whose answer `collect` takes later: its number, or why it could not be sent."""
        seq, numbered = self._numbered(message)
        fault = self.supervisor.post(numbered)
        return seq if fault is None else fault

    def collect(self, seq: int, timeout: float | None) -> dict[str, Any] | Fault:
        return self._checked(seq, self.supervisor.collect(seq, timeout))

    def _checked(self, seq: int, answer: dict[str, Any] | Fault) -> dict[str, Any] | Fault:
        nonce = self._nonces.pop(seq, None)
        if isinstance(answer, Fault):
            return answer
        if answer.get("seq") != seq:
            self.supervisor.stop(kill=True)
            return Fault("garbage", f"the worker answered message {answer.get('seq')!r} when asked {seq}")
        if nonce is None or answer.pop("nonce", None) != nonce:
            self.supervisor.stop(kill=True)
            return Fault("garbage", f"message {seq} was answered by a line {_FORGED}")
        return answer

    def close(self) -> None:
        self.supervisor.stop()


_FORGED = (
    "that the worker did not write (it does not echo the message's nonce): code run in the worker's "
    "process wrote on the worker's answer pipe"
)
