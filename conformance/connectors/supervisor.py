"""A child process spoken to in JSON lines, whose every fault is an answer, never the caller's crash.

Both out-of-process ways of running an adapter use it: a harness in any language (the harness
protocol) and an isolated Python adapter (`conformance.running.worker`). The suite writes one JSON object
per line to the child's stdin and reads one per line from its stdout; the child's stderr is kept
(its last lines explain a crash). `ask` returns the child's answer, or a `Fault`:

- `crash`: the child exited (an exit call, a segfault, an uncaught exception) before answering;
- `timeout`: no answer in time; the child (and every process it started) is killed;
- `garbage`: the child printed something that is not a JSON object, or answered out of turn.

After a fault the child is stopped; the next `ask` starts a new one, so the run goes on.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any, Literal

FaultKind = Literal["crash", "timeout", "garbage"]
_EOF = object()
MAX_LINE = 64 * 1024 * 1024  # one answer; a child printing more without a newline is broken


@dataclass(frozen=True)
class Fault:
    kind: FaultKind
    summary: str
    stderr: str = ""  # the child's last lines of stderr

    def detail(self) -> str:
        if not self.stderr:
            return self.summary
        return f"{self.summary}\n--- last lines of the process's stderr ---\n{self.stderr}"


class Supervisor:
    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        name: str = "child",
        hello: Mapping[str, Any] | None = None,
        check_greeting: Callable[[dict[str, Any]], str | None] | None = None,
        start_timeout: float = 60.0,
    ) -> None:
        self.argv = list(argv)
        # Sent after every start; the answer (checked by `check_greeting`, which names what is wrong)
        # is kept as `greeting`.
        self.hello = dict(hello) if hello is not None else None
        self.check_greeting = check_greeting
        self.start_timeout = start_timeout
        self.greeting: dict[str, Any] | None = None
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self.name = name
        self.starts = 0  # how many times a process was started
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[Any] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=60)
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def _start(self) -> None:
        self._lines = queue.Queue()
        self._stderr.clear()
        self.starts += 1
        self._process = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self.cwd,
            env=self.env,
            start_new_session=True,  # its own process group: a timeout kills what it started too
        )
        assert self._process.stdout is not None and self._process.stderr is not None
        threading.Thread(target=self._read_lines, args=(self._process.stdout, self._lines), daemon=True).start()
        threading.Thread(target=self._read_stderr, args=(self._process.stderr, self._stderr), daemon=True).start()

    @staticmethod
    def _read_lines(stream: IO[bytes], into: queue.Queue[Any]) -> None:
        try:
            while True:
                line = stream.readline(MAX_LINE)
                if not line:
                    break
                into.put(line)
        except (OSError, ValueError):
            pass
        into.put(_EOF)

    @staticmethod
    def _read_stderr(stream: IO[bytes], into: deque[str]) -> None:
        with contextlib.suppress(OSError, ValueError):
            for raw in iter(stream.readline, b""):
                into.append(raw.decode("utf-8", errors="replace").rstrip("\n"))

    def stderr_tail(self, lines: int = 30) -> str:
        return "\n".join(list(self._stderr)[-lines:])

    def ask(self, message: Mapping[str, Any], timeout: float | None) -> dict[str, Any] | Fault:
        """Send one message and wait for one answer (a JSON object), starting the child if need be."""
        with self._lock:
            if not self.running:
                fault = self._launch()
                if fault is not None:
                    return fault
            return self._exchange(message, timeout)

    def greet(self) -> dict[str, Any] | Fault:
        """Start the child if it is not running; its greeting, or why it could not start."""
        with self._lock:
            if not self.running:
                fault = self._launch()
                if fault is not None:
                    return fault
            return self.greeting or {}

    def tell(self, message: Mapping[str, Any]) -> None:
        """Send a message that gets no answer (a running child only)."""
        with self._lock:
            process = self._process
            if process is None or process.stdin is None or process.poll() is not None:
                return
            with contextlib.suppress(BrokenPipeError, OSError):
                process.stdin.write(json.dumps(message).encode() + b"\n")
                process.stdin.flush()

    def _launch(self) -> Fault | None:
        try:
            self._start()
        except OSError as exc:
            return Fault("crash", f"{self.name} cannot start ({' '.join(self.argv)}): {exc.strerror or exc}")
        if self.hello is None:
            return None
        answer = self._exchange(self.hello, self.start_timeout)
        if isinstance(answer, Fault):
            return Fault(answer.kind, f"while starting: {answer.summary}", answer.stderr)
        problem = self.check_greeting(answer) if self.check_greeting else None
        if problem:
            self.stop(kill=True)
            greeting = json.dumps(answer)[:300]
            return Fault("garbage", f"{self.name} greeted with {greeting}: {problem}", self.stderr_tail())
        self.greeting = answer
        return None

    def _exchange(self, message: Mapping[str, Any], timeout: float | None) -> dict[str, Any] | Fault:
        process = self._process
        assert process is not None and process.stdin is not None
        try:
            process.stdin.write(json.dumps(message).encode() + b"\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            return self._crashed("before it read the command")
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            self.stop(kill=True)
            return Fault("timeout", f"{self.name} gave no answer within {timeout:g} s", self.stderr_tail())
        if line is _EOF:
            return self._crashed("before it answered")
        try:
            answer = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            shown = line[:200].decode("utf-8", errors="replace").rstrip()
            self.stop(kill=True)
            return Fault("garbage", f"{self.name} printed {shown!r}, which is not a JSON message", self.stderr_tail())
        if not isinstance(answer, dict):
            self.stop(kill=True)
            return Fault("garbage", f"{self.name} answered {line[:200]!r}, which is not a JSON object")
        return answer

    def _crashed(self, when: str) -> Fault:
        process = self._process
        code = None
        if process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = process.wait(timeout=5)
        self.stop(kill=True)
        if code is None:
            how = "closed its output"
        elif code < 0:
            try:
                how = f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"was killed by signal {-code}"
        else:
            how = f"exited with status {code}"
        return Fault("crash", f"{self.name} {how} {when}", self.stderr_tail())

    def stop(self, *, kill: bool = False, grace: float = 2.0) -> None:
        """End the child: politely (stdin closed, then a grace period) or at once with `kill`."""
        process, self._process = self._process, None
        if process is None:
            return
        if not kill:
            with contextlib.suppress(OSError):
                if process.stdin:
                    process.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=grace)
        # The whole group: whatever the child started goes with it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)
        for stream in (process.stdin, process.stdout, process.stderr):
            with contextlib.suppress(OSError):
                if stream:
                    stream.close()
