"""Describing what an adapter (or anything else under test) raised, whatever it raised.

An exception is the adapter's object: its `__str__` may raise, its message may be megabytes, and
it may be a BaseException (`SystemExit`, `KeyboardInterrupt`, a class of its own) that ordinary
`except Exception` handlers let through. Reports describe it with these helpers, which never raise.
"""

from __future__ import annotations

import sysconfig
import traceback
from pathlib import Path


class CaseTimeout(BaseException):
    """A case over its time limit. A BaseException, so that an adapter's `except Exception` cannot
    swallow it; raised by the per-case timer (conformance.running.timeouts)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(f"no answer within {seconds:g} s")


MAX_MESSAGE = 2_000  # characters of an exception's message kept in a summary


class Described(Exception):
    """An exception known only by its description and traceback text: raised in the adapter's
    worker process and handed over as data, so that the parent never runs the adapter's objects."""

    def __init__(self, description: str, detail: str = "") -> None:
        super().__init__(description)
        self.description = description[: 2 * MAX_MESSAGE]
        self.detail = detail[: 20 * MAX_MESSAGE]


def describe(exc: BaseException) -> str:
    """`TypeName: message`, the message cut to MAX_MESSAGE characters; never raises."""
    if type(exc) is Described:
        return exc.description
    name = type(exc).__name__
    try:
        message = str(exc)
    except BaseException:  # the adapter's __str__ is the adapter's code; it may raise anything
        message = f"<{name}: str() raised>"
    if not isinstance(message, str):
        message = "<str() returned no string>"
    if len(message) > MAX_MESSAGE:
        message = f"{message[:MAX_MESSAGE]}... ({len(message)} characters)"
    return f"{name}: {message}" if message else name


def short_traceback(exc: BaseException, limit: int = 6) -> str:
    """The last `limit` frames of an exception's traceback; never raises."""
    if type(exc) is Described:
        return exc.detail or exc.description
    try:
        lines = traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-limit)
        text = "".join(lines).rstrip()
    except BaseException:
        return f"(the traceback could not be formatted) {describe(exc)}"
    if len(text) > 20 * MAX_MESSAGE:
        text = f"{text[: 10 * MAX_MESSAGE]}\n... ({len(text)} characters) ...\n{text[-10 * MAX_MESSAGE :]}"
    return text


class ProcessExit(BaseException):
    """An in-process adapter called `os._exit(0)` (conformance/running/exits.py): the case's crash,
    not a silent end of the run; a BaseException, so that an adapter's `except Exception` cannot swallow it."""

    def __init__(self, status: int) -> None:
        super().__init__(f"the adapter called os._exit({status})")
        self.status = status


class ProcessLost(BaseException):
    """The process running the adapter crashed, stopped answering or answered garbage in the middle
    of a case: the case's `crash`, `timeout` or `error`, not something the adapter raised."""

    def __init__(self, outcome: str, summary: str, detail: str = "") -> None:
        super().__init__(summary)
        self.outcome = outcome
        self.summary = summary
        self.detail = detail


def passes_through(exc: BaseException) -> bool:
    """Whether an exception must end what is running rather than become the case's outcome: the
    harness's own time limit, and an interrupt from the keyboard (the person running the suite
    pressing Ctrl-C; the run stops, and the results so far are still written)."""
    return isinstance(exc, CaseTimeout | KeyboardInterrupt | ProcessExit | ProcessLost)


_PACKAGE = Path(__file__).resolve().parents[1]  # the conformance package
_STANDARD_LIBRARY = tuple(
    str(Path(p).resolve()) for p in {sysconfig.get_path("stdlib"), sysconfig.get_path("platstdlib")} if p
)


def raised_in_suite(exc: BaseException) -> str | None:
    """The suite's module an exception was raised in (`rules/pairing.py`), or None when it was
    raised in other code (the adapter's, its libraries'). The standard library's frames are passed
    over: what matters is whose code called it."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename.startswith("<"):
            continue  # frozen modules of the standard library
        path = Path(frame.filename).resolve()
        if str(path).startswith(_STANDARD_LIBRARY) and not {"site-packages", "dist-packages"} & set(path.parts):
            continue
        if path.is_relative_to(_PACKAGE):
            return path.relative_to(_PACKAGE).as_posix()
        return None
    return None
