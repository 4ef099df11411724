"""What the fuzz tests share: junk values, hostile objects, mutations of YAML files, and contracts.

Sizes come from the hypothesis profile (tests/conftest.py): `ci` by default, `nightly` with
`--hypothesis-profile=nightly`. Each test weighs its share.
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import re
import resource
from collections.abc import Callable
from typing import Any

import yaml
from hypothesis import settings
from hypothesis import strategies as st

MARKER = "__fuzz_marker__"
SECONDS = 30.0  # per input: generous, the machine is shared; a blowup takes minutes or never ends
MAX_RSS_BYTES = 3 * 1024**3  # the process's peak: a bomb that got through would pass it


def examples(weight: float) -> int:
    """This test's number of inputs: its weight times the profile's size."""
    return max(1, math.ceil(settings.default.max_examples * weight))


def peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# --- hostile objects an adapter may return -------------------------------------------------


class RaisingEquality:
    def __eq__(self, other: object) -> bool:
        raise ValueError("__eq__ raised")

    __hash__ = object.__hash__


class RaisingHash:
    def __hash__(self) -> int:
        raise TypeError("__hash__ raised")


class RaisingString:
    def __str__(self) -> str:
        raise RuntimeError("__str__ raised")

    __repr__ = __str__


class RaisingItems(dict):  # type: ignore[type-arg]
    def items(self) -> Any:
        raise RuntimeError("items() raised")

    def keys(self) -> Any:
        raise RuntimeError("keys() raised")


class StrangeString(str):
    def __eq__(self, other: object) -> bool:
        raise ValueError("a str subclass whose __eq__ raises")

    __hash__ = str.__hash__


class UnprintableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("__str__ of the exception raised")


class OwnBaseException(BaseException):
    pass


def _deep(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = [value]
    return value


def _hostile_objects() -> st.SearchStrategy[Any]:
    return st.sampled_from(
        [
            RaisingEquality(),
            RaisingHash(),
            RaisingString(),
            RaisingItems(a=1),
            StrangeString("call_strange"),
            {1, 2},
            b"bytes",
            (1, 2),
            10**5000,
            float("nan"),
            float("inf"),
            object(),
        ]
    )


def json_junk(max_leaves: int = 8, depths: tuple[int, ...] = (50, 150)) -> st.SearchStrategy[Any]:
    """JSON values, with the extremes a body can hold (nesting as deep as `depths`)."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=20),
        st.sampled_from(["", " ", "call_x", "toolu_x", "[DONE]", "\x00", "\ud800", "0" * 5000]),
    )
    return st.one_of(
        st.recursive(
            scalars,
            lambda children: st.one_of(
                st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)
            ),
            max_leaves=max_leaves,
        ),
        st.sampled_from(depths).map(_deep),
    )


def adapter_junk() -> st.SearchStrategy[Any]:
    """What a buggy adapter may put anywhere: JSON junk and objects JSON cannot hold."""
    return st.one_of(json_junk(depths=(50, 150, 2_000)), _hostile_objects())


def exceptions() -> st.SearchStrategy[BaseException]:
    return st.sampled_from(
        [
            ValueError("a plain failure"),
            KeyError("name"),
            RecursionError("maximum recursion depth exceeded"),
            MemoryError(),
            UnprintableError(),
            OwnBaseException("an adapter's own BaseException"),
            SystemExit(0),
            SystemExit(3),
            GeneratorExit(),
            RuntimeError("x" * 1_000_000),
        ]
    )


# --- paths into nested data ------------------------------------------------------------------

Path_ = tuple[Any, ...]


def paths(value: Any, limit: int = 2_000) -> list[Path_]:
    """Every path to a value inside nested dicts and lists (the first `limit`)."""
    found: list[Path_] = []
    stack: list[tuple[Path_, Any]] = [((), value)]
    while stack and len(found) < limit:
        path, node = stack.pop()
        found.append(path)
        if isinstance(node, dict):
            stack.extend(((*path, k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(((*path, i), v) for i, v in enumerate(node))
    return found


def replaced(value: Any, path: Path_, new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, new)}
    copy = list(value)
    copy[head] = replaced(copy[head], rest, new)
    return copy


# --- mutations of a YAML file -----------------------------------------------------------------

Mutation = Callable[[st.DataObject, str], str | bytes]

_TAGS = [
    "!!set {a, b}",
    "!!timestamp 2001-12-14t21:59:43.10-05:00",
    "!!binary aGVsbG8=",
    "!!omap [{a: 1}]",
    "!!python/object/apply:pathlib.Path.touch ['{marker}']",
    "!!python/name:os.system",
    "!custom {a: 1}",
    "!!int twelve",
    "!!bool maybe",
    "!!timestamp soon",
]


def _bomb(levels: int) -> str:
    lines = ['z0: &z0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"z{i}: &z{i} [{', '.join([f'*z{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def _dump(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=10_000)


def _special_value(data: st.DataObject, marker_file: str) -> str:
    """YAML text for a value a cassette or case should not hold."""
    kind = data.draw(st.sampled_from(["tag", "deep", "bomb-alias", "big", "flow"]), label="special")
    if kind == "tag":
        return data.draw(st.sampled_from(_TAGS), label="tag").replace("{marker}", marker_file)
    if kind == "deep":
        depth = data.draw(st.sampled_from([101, 1_000, 100_000]), label="depth")
        return "[" * depth + "]" * depth
    if kind == "bomb-alias":
        return "*z8"
    if kind == "big":
        return "x" * data.draw(st.sampled_from([1 << 16, 1 << 20]), label="size")
    return "{a: [1, {b: [2, {c: 3}]}]}"


def mutate_yaml(data: st.DataObject, text: str, marker_file: str) -> str | bytes:
    """One mutation of a YAML document, drawn by hypothesis."""
    how = data.draw(
        st.sampled_from(["truncate", "flip", "value", "special", "duplicate", "documents", "ids"]), label="mutation"
    )
    if how == "truncate":
        return text.encode()[: data.draw(st.integers(0, len(text.encode())), label="cut")]
    if how == "flip":
        raw = bytearray(text.encode())
        for _ in range(data.draw(st.integers(1, 8), label="flips")):
            at = data.draw(st.integers(0, len(raw) - 1), label="at")
            raw[at] ^= 1 << data.draw(st.integers(0, 7), label="bit")
        return bytes(raw)
    document = yaml.safe_load(text)
    where = data.draw(st.sampled_from(paths(document)), label="path")
    if how == "value":
        return _dump(replaced(document, where, data.draw(json_junk(), label="junk")))
    if how == "special":
        text = _dump(replaced(document, where, MARKER))
        special = _special_value(data, marker_file)
        prefix = _bomb(9) if special == "*z8" and isinstance(document, dict) else ""
        return prefix + text.replace(MARKER, special, 1)
    if how == "duplicate":
        lines = text.splitlines(keepends=True)
        at = data.draw(st.integers(0, len(lines) - 1), label="line")
        return "".join(lines[: at + 1] + lines[at:])
    if how == "documents":
        return text + "\n---\n" + text
    big = data.draw(st.sampled_from([1 << 16, 1 << 18]), label="id size")
    return re.sub(r"(call|toolu|fc|srvtoolu)_[A-Za-z0-9]+", lambda m: m.group(1) + "_" + "i" * big, text, count=2)


# --- mutations of HTTP bodies -------------------------------------------------------------------


def mutate_body(data: st.DataObject, body: Any, content_type: str) -> tuple[Any, dict[str, list[str]]]:
    """A recorded body made wrong: its JSON's types, its stream, its compression or its encoding.
    Returns the body and headers to add to the response."""
    raw = body.encode() if isinstance(body, str) else bytes(body or b"")
    how = data.draw(st.sampled_from(["json", "stream", "gzip", "broken-gzip", "deflate", "binary", "brotli"]))
    if how == "json":
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = {"not": "json before"}
        where = data.draw(st.sampled_from(paths(parsed)), label="json path")
        new = replaced(parsed, where, data.draw(json_junk(), label="json junk"))
        return json.dumps(new), {}
    if how == "stream":
        lines = raw.split(b"\n")
        op = data.draw(st.sampled_from(["drop", "cut", "junk-data", "merge", "cr", "done-early"]), label="stream op")
        if op == "drop" and lines:
            del lines[data.draw(st.integers(0, len(lines) - 1))]
        elif op == "cut":
            return raw[: data.draw(st.integers(0, len(raw)))], {"content-type": ["text/event-stream"]}
        elif op == "junk-data":
            junk = json.dumps(data.draw(json_junk(), label="event junk"))
            lines.insert(data.draw(st.integers(0, len(lines))), f"data: {junk}".encode())
            lines.insert(data.draw(st.integers(0, len(lines))), b"")
        elif op == "merge":
            lines = [line for line in lines if line]
        elif op == "cr":
            return raw.replace(b"\n", b"\r"), {}
        else:
            lines.insert(data.draw(st.integers(0, len(lines))), b"data: [DONE]\n")
        return b"\n".join(lines), {"content-type": ["text/event-stream"]}
    if how in ("gzip", "broken-gzip"):
        packed = bytearray(gzip.compress(raw))
        if how == "broken-gzip":
            cut = data.draw(st.integers(0, len(packed)))
            packed = packed[:cut] if data.draw(st.booleans()) else packed
            if packed:
                packed[data.draw(st.integers(0, len(packed) - 1))] ^= 0xFF
        with_header = data.draw(st.booleans(), label="content-encoding")
        return bytes(packed), {"content-encoding": ["gzip"]} if with_header else {}
    if how == "deflate":
        import zlib

        return zlib.compress(raw)[: data.draw(st.integers(0, len(raw) + 20))], {"content-encoding": ["deflate"]}
    if how == "brotli":
        return raw, {"content-encoding": ["br"]}
    return base64.b64encode(raw), {"content-encoding": [data.draw(st.sampled_from(["gzip", "identity", "x"]))]}
