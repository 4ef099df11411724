"""What several commands share: the exit codes, the corpus options and their loading, waiting to be stopped."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import stat
import sys
import threading
from pathlib import Path

EXIT_OK, EXIT_FOUND, EXIT_INPUT = 0, 1, 2


def corpus_of(args: argparse.Namespace, *, wire_types_only: bool = False):  # type: ignore[no-untyped-def]
    from conformance.corpus.loading import load_corpus

    cases, cassettes = [Path(p) for p in args.cases or ()], [Path(p) for p in args.cassettes or ()]
    return load_corpus(cases, cassettes, wire_types_only=wire_types_only)


def add_corpus_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cases", action="append", metavar="DIR", help="extra case directory (repeatable)")
    p.add_argument("--cassettes", action="append", metavar="DIR", help="extra cassette directory (repeatable)")
    p.add_argument("--profile", choices=("default", "strict"), default="default", help="rule profile")


def stop_on_signals() -> threading.Event:
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    return stop


def wait_for_stop(stop: threading.Event) -> None:
    """Until SIGINT or SIGTERM, or until standard input closes when it is a pipe or a terminal (a
    supervisor that closes it ends the server; /dev/null, as a background job gets, does not)."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
        watch = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or sys.stdin.isatty()
    except (OSError, ValueError):
        watch = False
    if watch:

        def read_until_closed() -> None:
            # os.read, not sys.stdin: a daemon thread blocked inside a buffered reader aborts the
            # interpreter at exit.
            fd = sys.stdin.fileno()
            with contextlib.suppress(OSError):
                while os.read(fd, 65536):
                    pass
            stop.set()

        threading.Thread(target=read_until_closed, name="conformance-serve-stdin", daemon=True).start()
    while not stop.wait(0.5):
        pass
