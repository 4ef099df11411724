"""`python -m conformance.connectors.reaper COMMAND...`: run a harness so that nothing it starts outlives it.

A process group and the holders of the harness's pipes are what the Supervisor kills; a grandchild
that forks twice, calls `setsid` and closes its descriptors is in neither. On Linux a process may
declare itself a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`, no privilege needed): every
process orphaned below it is then re-parented to it rather than to init, however it detached. This
process declares so, starts the command as its child with its own stdin, stdout and stderr, and lets
go of those streams itself. When the command exits, or when the Supervisor sends SIGTERM, it kills
every child it has (orphans keep arriving as their parents die, so it looks again until none is
left, within a bound), then exits as the command did: same status, same signal.

Elsewhere (no prctl) it still runs the command and mirrors its end; only the re-parenting is Linux's.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
SWEEP_SECONDS = 5.0  # a process forking as fast as it is killed is left after this long


def _declare_subreaper() -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _children() -> list[int]:
    me = os.getpid()
    found: list[int] = []
    for task in Path(f"/proc/{me}/task").glob("*"):
        with contextlib.suppress(OSError, ValueError):
            found += [int(pid) for pid in (task / "children").read_text().split()]
    return found


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def sweep() -> None:
    """Kill every child of this process, and the orphans that become its children as those die."""
    deadline = time.monotonic() + SWEEP_SECONDS
    while time.monotonic() < deadline:
        children = _children()
        for pid in children:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        _reap()
        if not children and not _children():
            return
        time.sleep(0.01)


def _end_as(status: int) -> None:
    if status < 0:
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
        os._exit(128 - status)  # a signal that does not end a process: its usual shell status
    os._exit(status)


def main(argv: list[str]) -> None:
    _declare_subreaper()
    try:
        child = subprocess.Popen(argv)
    except OSError as exc:  # said as the Supervisor says it of a command it cannot start itself
        print(f"cannot start ({' '.join(argv)}): {exc.strerror or exc}", file=sys.stderr)
        os._exit(127)
    # The harness's streams are its own: held here too, its stdout would not end when it does.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)

    def stopped(signum: int, frame: object) -> None:
        sweep()
        _end_as(-signum)

    signal.signal(signal.SIGTERM, stopped)
    status = child.wait()
    sweep()
    _end_as(status)


if __name__ == "__main__":
    main(sys.argv[1:])
