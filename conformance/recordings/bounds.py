"""How large and how deep an input may be, and reading files within those bounds.

Case files and cassettes come from users' directories and from recordings. A few hundred bytes
of YAML aliases or of gzip can stand for gigabytes, a FIFO never ends, `/dev/zero` never stops
giving, and nesting deep enough overflows the C stack of the YAML parser. Every reader goes
through these bounds and refuses what exceeds them with a message naming the file; the limits
are far above anything a real case or recording holds (the deepest nesting in the corpus and
in the real recordings beside it is 13 levels). docs/robustness.md lists them.
"""

from __future__ import annotations

import json
import os
import re
import stat
from itertools import accumulate
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 64 * 1024 * 1024  # a case file or a cassette
MAX_BODY_BYTES = 64 * 1024 * 1024  # one HTTP body once decompressed
MAX_CASSETTE_BODY_BYTES = 256 * 1024 * 1024  # all of a cassette's bodies once decompressed
# A compressed body inflates to at most this many times its size (and never less than the floor):
# recorded JSON and event streams compress 5-30 times; a 61 KB gzip that stood for 40 MB of JSON
# took lint to 2.2 GB once parsed.
INFLATION_FACTOR = 100
INFLATION_FLOOR = 4 * 1024 * 1024
MAX_INTEGER_DIGITS = 1000  # an integer's digits in a case or cassette: far past any JSON number a provider sends
MAX_DEPTH = 100  # nesting of a YAML document, of a JSON body, of what an adapter returns
# Nodes a YAML file may hold (scalars, collections, aliases; every document of it together): the
# largest recorded cassette beside the corpus holds under a thousand; each node costs the parser a
# few microseconds and the reader a Python object, so this bound keeps any file's read to about a
# second, however its bytes were packed (a gzipped cassette inflates a hundredfold within its ratio).
MAX_NODES = 100_000
# YAML aliases may repeat a node, but the document they stand for stays within this many
# nodes and scalar characters: ten times the text, and never less than a mebibyte.
EXPANSION_FACTOR = 10
EXPANSION_FLOOR = 1024 * 1024


class BoundsError(ValueError):
    """An input beyond a bound, or a file that is not a regular file."""


def _kind(mode: int) -> str:
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def read_file(path: Path | str, limit: int = MAX_FILE_BYTES) -> bytes:
    """A regular file's bytes; a FIFO, a device or a file over `limit` bytes is refused.

    The file is opened without blocking (a FIFO with no writer would otherwise wait forever)
    and checked on its open descriptor, so it cannot be swapped between the check and the read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise BoundsError(f"cannot read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as handle:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise BoundsError(f"cannot read: {_kind(status.st_mode)}, not a regular file")
        if status.st_size > limit:
            raise BoundsError(f"cannot read: {status.st_size} bytes; files may be at most {limit} bytes")
        data = handle.read(status.st_size + 1)  # one more: a file that grew since is read on below
        if len(data) > status.st_size:
            data += handle.read(limit + 1 - len(data))
    if len(data) > limit:
        raise BoundsError(f"cannot read: more than {limit} bytes; files may be at most {limit} bytes")
    return data


_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_EMPTY_PAIR = re.compile(r"\[\]|\{\}")


def json_text_depth(text: str | bytes) -> int:
    """How deep a JSON text nests, read from its brackets outside strings; past MAX_DEPTH counting
    stops (every caller asks whether it is past the bound)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return 0  # cannot nest deeper than the bound: the common case costs two counts
    skeleton = _NOT_BRACKETS.sub("", _JSON_STRING.sub("", text))
    # Each pass takes away every empty pair, the innermost level: as many passes as levels, each at
    # the regex engine's speed (a worker's answer or a long body has thousands of brackets).
    rest, depth = skeleton, 0
    while rest and depth <= MAX_DEPTH:
        rest, taken = _EMPTY_PAIR.subn("", rest)
        if not taken:
            break
        depth += 1
    if not rest or depth > MAX_DEPTH:
        return depth
    # Brackets that do not pair up (text that is not JSON): the deepest run of openings, counted.
    return max(accumulate((1 if c in "[{" else -1 for c in skeleton), initial=0))


def parse_json(text: bytes | str, what: str) -> Any:
    """JSON within MAX_DEPTH; every failure is a ValueError saying what was being read."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise BoundsError(f"{what} nests deeper than {MAX_DEPTH} levels") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BoundsError(f"{what} is not JSON: {exc}") from None
    if json_text_depth(text) > MAX_DEPTH:
        raise BoundsError(f"{what} nests deeper than {MAX_DEPTH} levels")
    return value


def depth_of(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deep JSON-like data nests, stopping as soon as it passes `limit` (no recursion)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list | tuple):
            children = node
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def json_or_none(body: bytes | str | None) -> Any:
    """A recorded or sent body read as JSON, or None where it is empty or no JSON (a stream, a form)."""
    if not body:
        return None
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
