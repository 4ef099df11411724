"""A child process spoken to in JSON lines, whose every fault is an answer, never the caller's crash.

Both out-of-process ways of running an adapter use it: a harness in any language (the harness
protocol) and an isolated Python adapter (`conformance.running.worker`). The suite writes one JSON object
per line to the child's stdin and reads one per line from its stdout; the child's stderr is kept
(its last lines explain a crash). `ask` returns the child's answer, or a `Fault`:

- `crash`: the child exited (an exit call, a segfault, an uncaught exception) before answering;
- `timeout`: no answer in time; the child (and every process it started) is killed;
- `garbage`: the child printed something that is not a JSON object, or answered out of turn.

After a fault the child is stopped; the next `ask` starts a new one, so the run goes on.

A child cannot stall the suite or fill its memory: an answer nested past the JSON bound is garbage,
an answer to an earlier command (a child that answers twice) is dropped rather than taken for the
next one, a child that exits while something it started still holds its output is a crash at once,
stopping kills whatever holds the child's pipes even in a session of its own (`setsid`), and only
the first few KiB of each stderr line are kept. With `reap`, the child runs under
conformance.connectors.reaper, a child subreaper: what it starts is killed with it even when it
left the group, the session and the pipes alike (a daemon that forks twice and closes its streams).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from conformance.recordings.bounds import MAX_DEPTH, json_text_depth

FaultKind = Literal["crash", "timeout", "garbage"]
_EOF = object()
MAX_LINE = 64 * 1024 * 1024  # one answer; a child printing more without a newline is broken
STDERR_LINE = 4096  # what is kept of one stderr line: a 300 MB line once took the suite to 3.8 GB
STDERR_LINES = 60
EXIT_GRACE = 1.0  # after the child exits, how long an answer still in its pipe may take to arrive
REAPER_GRACE = 7.0  # how long a reaper may take to kill what its child started (its own bound is 5 s)


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
        reap: bool = False,
    ) -> None:
        self.reap = reap
        self.argv = [sys.executable, "-m", "conformance.connectors.reaper", *argv] if reap else list(argv)
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
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self._readers: list[threading.Thread] = []
        self.stale = 0  # answers to earlier commands, dropped
        self._pending = 0  # messages posted whose answers are not collected yet
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def _start(self) -> None:
        self._lines = queue.Queue()
        self._pending = 0
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
        readers = [
            threading.Thread(target=self._read_lines, args=(self._process.stdout, self._lines), daemon=True),
            threading.Thread(target=self._read_stderr, args=(self._process.stderr, self._stderr), daemon=True),
        ]
        for reader in readers:
            reader.start()
        # Published once started: a stop from another thread (the plugin closing a worker that is still
        # starting on its own thread, after a usage error) joins only readers that run.
        self._readers = readers

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
        """Each line's first STDERR_LINE bytes; the rest of a longer line is read and dropped."""
        kept = b""
        cut = False
        with contextlib.suppress(OSError, ValueError):
            for chunk in iter(lambda: stream.readline(STDERR_LINE), b""):
                if len(kept) < STDERR_LINE:
                    kept += chunk[: STDERR_LINE - len(kept)]
                else:
                    cut = True
                if chunk.endswith(b"\n"):
                    text = kept.decode("utf-8", errors="replace").rstrip("\n")
                    into.append(text + (" [line cut]" if cut else ""))
                    kept, cut = b"", False
        if kept:
            into.append(kept.decode("utf-8", errors="replace") + (" [line cut]" if cut else ""))

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

    def post(self, message: Mapping[str, Any]) -> Fault | None:
        """Send one message now and wait for its answer later (`collect`), starting the child if need
        be: the child works on it while the caller does something else. Several may be posted before
        their answers are collected, in the order they were posted; nothing else may be asked of the
        child meanwhile. A child that ended with answers still to collect is not started again until
        they are: those answers, or the end that cut them off, are still to be read."""
        with self._lock:
            if not self.running:
                if self._pending:
                    return Fault("crash", f"{self.name} ended before it answered what was posted earlier")
                fault = self._launch()
                if fault is not None:
                    return fault
            fault = self._send(message, earlier=self._pending > 0)
            if fault is None:
                self._pending += 1
            return fault

    def collect(self, seq: int, timeout: float | None) -> dict[str, Any] | Fault:
        """The answer to the message `post` sent with `seq`."""
        with self._lock:
            self._pending = max(0, self._pending - 1)
            if self._process is None:
                return Fault("crash", f"{self.name} was stopped before it answered", self.stderr_tail())
            return self._receive(seq, timeout)

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
        fault = self._send(message, earlier=self._pending > 0)
        return fault if fault is not None else self._receive(message.get("seq"), timeout)

    def _send(self, message: Mapping[str, Any], *, earlier: bool = False) -> Fault | None:
        """Write one message. `earlier`: answers to messages posted before are still to come, so
        nothing the child printed is dropped, and a child found gone is left for their collection
        to report (it may have answered some of them first)."""
        process = self._process
        assert process is not None and process.stdin is not None
        if not earlier and self._drain():
            return self._crashed("before it read the command")
        try:
            process.stdin.write(json.dumps(message).encode() + b"\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            if earlier:
                return Fault("crash", f"{self.name} ended before it read the command", self.stderr_tail())
            return self._crashed("before it read the command")
        return None

    def _receive(self, seq: Any, timeout: float | None) -> dict[str, Any] | Fault:
        process = self._process
        assert process is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            line = self._next_line(process, deadline)
            if line is None:
                self.stop(kill=True)
                return Fault("timeout", f"{self.name} gave no answer within {timeout:g} s", self.stderr_tail())
            if line is _EOF:
                return self._crashed("before it answered")
            answer = self._parse(line)
            if isinstance(answer, Fault):
                return answer
            earlier = answer.get("seq")
            if isinstance(seq, int) and isinstance(earlier, int) and not isinstance(earlier, bool) and earlier < seq:
                self.stale += 1  # a second answer to an earlier command: not this command's answer
                continue
            return answer

    def _parse(self, line: bytes) -> dict[str, Any] | Fault:
        try:
            if json_text_depth(line) > MAX_DEPTH:
                raise ValueError(f"nests deeper than {MAX_DEPTH} levels")
            answer = json.loads(line)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            shown = line[:200].decode("utf-8", errors="replace").rstrip()
            self.stop(kill=True)
            why = str(exc) if "nests deeper" in str(exc) else "not a JSON message"
            return Fault("garbage", f"{self.name} printed {shown!r}, which is {why}", self.stderr_tail())
        if not isinstance(answer, dict):
            self.stop(kill=True)
            return Fault("garbage", f"{self.name} answered {line[:200]!r}, which is not a JSON object")
        return answer

    def _drain(self) -> bool:
        """Drop what the child printed since its last answer (answers to nothing asked); whether it ended."""
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return False
            if line is _EOF:
                return True
            self.stale += 1

    def _next_line(self, process: subprocess.Popen[bytes], deadline: float | None) -> Any:
        """The next line, _EOF, or None at the deadline. A child that exited answers within EXIT_GRACE,
        or never: something it started may hold its output open, so its end of file may never come."""
        exited_at: float | None = None
        while True:
            now = time.monotonic()
            wait = 0.25 if deadline is None else min(0.25, deadline - now)
            if wait <= 0:
                return None
            try:
                return self._lines.get(timeout=wait)
            except queue.Empty:
                pass
            if process.poll() is not None:
                exited_at = exited_at if exited_at is not None else time.monotonic()
                if time.monotonic() - exited_at > EXIT_GRACE:
                    return _EOF

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
        self._pending = 0
        if process is None:
            return
        if not kill:
            with contextlib.suppress(OSError):
                if process.stdin:
                    process.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=grace)
        if self.reap and process.poll() is None:
            # The reaper kills what the child started, wherever it went, before the group is killed
            # (the reaper killed first, its orphans would go to init).
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(process.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=REAPER_GRACE)
        # The whole group: whatever the child started goes with it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)
        # And whatever left the group (`setsid`) but still holds the child's output.
        readers, self._readers = [r for r in self._readers if r.ident is not None], []
        for reader in readers:
            reader.join(timeout=0.2)
        if any(r.is_alive() for r in readers):
            _kill_holders([s for s in (process.stdout, process.stderr) if s is not None])
            for reader in readers:
                reader.join(timeout=2)
        with contextlib.suppress(OSError):
            if process.stdin:
                process.stdin.close()
        if not any(r.is_alive() for r in readers):
            # Closing a stream under a reader blocked in it would wait for that reader: only when none is.
            for stream in (process.stdout, process.stderr):
                with contextlib.suppress(OSError):
                    if stream:
                        stream.close()


def _kill_holders(streams: Sequence[IO[bytes]]) -> None:
    """Kill every process of this user, other than this one, holding the other end of these pipes."""
    try:
        pipes = {f"pipe:[{os.fstat(s.fileno()).st_ino}]" for s in streams}
    except (OSError, ValueError):
        return
    me = os.getpid()
    for entry in Path("/proc").glob("[0-9]*"):
        pid = int(entry.name)
        if pid == me:
            continue
        try:
            held = any(os.readlink(fd) in pipes for fd in (entry / "fd").iterdir())
        except OSError:  # gone, or not ours to look at
            continue
        if held:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
