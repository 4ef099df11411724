"""YAML reading for the corpus: JSON data model, duplicate keys refused, line numbers kept.

Case files are data for a JSON Schema, so the loader resolves only JSON types: dates stay strings
(`2025-04-23` is a date in YAML 1.1 but a string to the schema). Every mapping and sequence
remembers the line of each entry so that a schema error can name the line it concerns.

Documents are bounded (conformance/recordings/bounds.py): nesting deeper than MAX_DEPTH and aliases that
expand a document far beyond its text are refused with the line where it happens, before anything
walks the data. libyaml composes nodes recursively in C, so a document that may nest deep enough
to overflow its stack is composed here instead, from the parser's events, without recursion.

Cassettes (`load_data`) are plain data, and usually megabytes of it: they are built straight from
the parser's events, without nodes, unless they hold something only PyYAML's own path reads.
"""

from __future__ import annotations

import codecs
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from conformance.recordings.bounds import (
    EXPANSION_FACTOR,
    EXPANSION_FLOOR,
    MAX_DEPTH,
    MAX_INTEGER_DIGITS,
    MAX_NODES,
    BoundsError,
    read_file,
)

try:  # the C loader is several times faster on the corpus; the pure one is the fallback
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # PyYAML built without libyaml; tests/test_yaml_fallback.py runs the corpus through this
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]


class YamlError(Exception):
    """A YAML document that cannot be read, with the file and line it concerns."""

    def __init__(self, path: Path | str, line: int | None, message: str, bound: bool = False) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        self.bound = bound  # the suite's own bound refused it (not the YAML parser)
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {message}")


class LineDict(dict[str, Any]):
    """A mapping that knows the line of each key (1-based)."""

    lines: dict[str, int]
    line: int


class LineList(list[Any]):
    """A sequence that knows the line of each item (1-based)."""

    lines: list[int]
    line: int


# libyaml's parser class, where PyYAML was built with it (yaml.cyaml does not exist otherwise); PyYAML
# does not export it at its top level.
_CParser: type | None = getattr(getattr(yaml, "cyaml", None), "CParser", None)


class _BoundsError(yaml.MarkedYAMLError):
    """A document beyond a bound, marked where it goes beyond it."""


# Past this many levels the C composer may overflow its stack (it does at 100,000); below it,
# it is faster than composing from events in Python. It is also the cassettes' bound, and it stays
# below every limit a YAML parser sets itself (libyaml in PyYAML 6.0.4 refuses 1,000 flow levels
# with its own words), so that the suite's bound, located and worded as the suite's, is met first
# whatever PyYAML is installed. PyYAML's pure-Python composer recurses two frames a level and
# reaches Python's recursion limit near 500.
_INT_TAG = "tag:yaml.org,2002:int"
_MAX_INTEGER_BITS = int(MAX_INTEGER_DIGITS * math.log2(10))
_C_COMPOSER_DEPTH = 512
_PURE_COMPOSER_DEPTH = 200
_PLAIN_TAGS_KEPT = 65_536  # distinct plain scalars whose resolved tag is remembered, across documents
_PLAIN_TAG_TEXT = 100  # and only short ones (keys and the like): the memory kept stays small
# A YAML node takes at least half a character of text (`[:,:]` is a sequence of two mappings, each
# of an empty key and value: seven nodes in five characters); a shorter text cannot pass MAX_NODES,
# and a longer one is composed from events here, where nodes are counted as they come.
_TEXT_WITHIN_NODES = MAX_NODES // 2
# A conservative bound on nesting, read from the text without parsing it: every level opens a
# flow collection, or starts to the right of its parent (a block sequence may share its parent
# key's column), or follows a compact indicator (`- - x`, `? - x`) on the same line. So a text
# nests at most (flow brackets) + 2 * (longest run of spaces and indicators opening a line) + 2.
_PREFIX = "[ \t?:-]"
# Every line break YAML 1.1 knows (PyYAML reads NEL, U+2028 and U+2029 as breaks, and a lone CR).
_BREAK = "[\n\r\x85\u2028\u2029]"


def _may_nest_beyond(text: str, limit: int) -> bool:
    flow = text.count("[") + text.count("{")
    if flow + 2 > limit:
        return True
    run = (limit - flow - 2) // 2 + 1  # a line opening with this many would pass the limit
    first = re.match(f"{_PREFIX}*", text)
    return (first is not None and first.end() >= run) or re.search(f"{_BREAK}{_PREFIX}{{{run}}}", text) is not None


def _may_alias(text: str) -> bool:
    """Whether an alias may appear. An alias needs an anchor to name, and may follow a `:` with no
    space in flow style (`{"k":*a}`), so any `&` with any `*` counts. Without one the document is a
    tree and cannot be bigger than its text."""
    return "*" in text and "&" in text


def _children(node: Node) -> Iterator[Node]:
    if isinstance(node, SequenceNode):
        yield from node.value
    elif isinstance(node, MappingNode):
        for key, value in node.value:
            yield key
            yield value


def _expansion_limit(text_length: int) -> int:
    return max(EXPANSION_FACTOR * text_length, EXPANSION_FLOOR)


def _check_graph(root: Node, text_length: int, max_depth: int, spent: int = 0) -> int:
    """Refuse a node graph deeper than `max_depth`, recursive, or whose aliases expand it (with the
    `spent` of the file's earlier documents) beyond EXPANSION_FACTOR times its text: measured once
    per node, without expanding anything. Returns what the graph stands for, in nodes and characters."""
    limit = _expansion_limit(text_length)
    depth: dict[int, int] = {}
    size: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            children = list(_children(node))
            own = len(node.value) if isinstance(node, ScalarNode) else 0
            depth[key] = (0 if isinstance(node, ScalarNode) else 1) + max((depth[id(c)] for c in children), default=0)
            size[key] = 1 + own + sum(size[id(c)] for c in children)
            open_nodes.discard(key)
            if depth[key] > max_depth:
                raise _BoundsError(None, None, f"nests deeper than {max_depth} levels", node.start_mark)
            if spent + size[key] > limit:
                raise _BoundsError(
                    None, None, f"aliases expand the document beyond {limit} nodes and characters", node.start_mark
                )
            continue
        if key in depth:
            continue
        open_nodes.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in open_nodes:
                raise _BoundsError(None, None, "an alias refers to a node that contains it", child.start_mark)
            if id(child) not in depth:
                stack.append((child, False))
    return size[id(root)]


def _too_many_nodes(mark: Any) -> _BoundsError:
    return _BoundsError(None, None, f"holds more than {MAX_NODES} nodes", mark)


# Per set of implicit resolvers: the tag resolved for each plain scalar's text (bounded).
_KNOWN_TAGS: dict[int, dict[str, str]] = {}


def _implicit_tags(loader: Any) -> Callable[[str, tuple[bool, bool]], str]:
    """The tag of a scalar without one of its own. It depends on the text alone (no path resolvers
    are registered): quoted and block scalars are strings, plain ones (keys, mostly) repeat, across
    documents too (a corpus's case files share their keys), and are resolved once per distinct text."""
    resolve = loader.resolve
    if loader.yaml_path_resolvers:
        return lambda value, implicit: resolve(ScalarNode, value, implicit)
    string_tag: str = loader.DEFAULT_SCALAR_TAG
    resolvers = loader.yaml_implicit_resolvers  # a class attribute: the loader classes keep theirs
    known = _KNOWN_TAGS.setdefault(id(resolvers), {})

    def tag_of(value: str, implicit: tuple[bool, bool]) -> str:
        if not implicit[0]:
            return string_tag
        tag = known.get(value)
        if tag is None:
            tag = resolve(ScalarNode, value, implicit)
            if len(known) < _PLAIN_TAGS_KEPT and len(value) <= _PLAIN_TAG_TEXT:
                known[value] = tag
        return tag

    return tag_of


class _Bounded:
    """Composes a document within the bounds; mixed into a PyYAML loader (C or pure Python)."""

    max_depth = MAX_DEPTH
    bounded_text = ""
    # Case files hold JSON data; a cassette's YAML is read as its recorder wrote it.
    json_numbers_only = False
    lined = False  # read into LineDict and LineList (case files, whose problems are located)
    # Per read, over every document of the text: the nodes it may still hold, and what its
    # documents' aliases have expanded to so far.
    nodes_left = MAX_NODES
    expanded = 0

    def get_single_node(self) -> Node | None:
        text = self.bounded_text
        native = _CParser is not None and isinstance(self, _CParser)
        composer_limit = _C_COMPOSER_DEPTH if native else min(self.max_depth, _PURE_COMPOSER_DEPTH)
        if len(text) > _TEXT_WITHIN_NODES or _may_nest_beyond(text, composer_limit):
            # Counts the nodes and checks the depth as it goes, and sees every alias: a document
            # without one is a tree, no bigger than its text, with nothing left to check.
            node, aliased = self._single_node_from_events()
            check = aliased
        else:
            node = super().get_single_node()  # type: ignore[misc]
            deep = self.max_depth < composer_limit and _may_nest_beyond(text, self.max_depth)
            check = deep or _may_alias(text)
        if node is not None and check:
            _check_graph(node, len(text), self.max_depth)
        return node

    def get_all_data(self) -> list[Any]:
        """Every document of the stream, composed from events (libyaml's composer and the parser's
        events do not share their place in the stream), within bounds that hold for all of the
        stream's documents together."""
        loader: Any = self
        loader.get_event()  # the stream start
        documents = []
        while not loader.check_event(yaml.StreamEndEvent):
            node, aliased = self._document_from_events()
            if aliased:
                self.expanded += _check_graph(node, len(self.bounded_text), self.max_depth, self.expanded)
            documents.append(loader.construct_document(node))
        loader.get_event()
        return documents

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        # PyYAML's scalar constructors trust the text an explicit tag stands on: `!!int twelve`,
        # `!!bool maybe` or `!!timestamp soon` raise ValueError, KeyError or AttributeError from
        # inside the constructor, unlocated.
        if isinstance(node, ScalarNode) and node.tag == _INT_TAG and len(node.value) > MAX_INTEGER_DIGITS + 3:
            raise yaml.constructor.ConstructorError(
                None, None, f"an integer of more than {MAX_INTEGER_DIGITS} digits", node.start_mark
            )
        try:
            value = super().construct_object(node, deep)  # type: ignore[misc]
        except (ValueError, KeyError, AttributeError, TypeError, OverflowError):
            shown = node.value[:80] if isinstance(node, ScalarNode) else type(node).__name__
            raise yaml.constructor.ConstructorError(
                None, None, f"{shown!r} is not {node.tag.rsplit(':', 1)[-1]!r} data", node.start_mark
            ) from None
        # JSON data only: `.inf` and `.nan` have no JSON form, and an integer of thousands of digits
        # cannot even be printed in decimal (Python refuses past 4,300 digits) by whoever reports it.
        if self.json_numbers_only and type(value) is float and not math.isfinite(value):
            raise yaml.constructor.ConstructorError(
                None, None, f"{node.value[:20]!r} is not a JSON number (no infinity or NaN)", node.start_mark
            )
        if type(value) is int and value.bit_length() > _MAX_INTEGER_BITS:
            raise yaml.constructor.ConstructorError(
                None, None, f"an integer of more than {MAX_INTEGER_DIGITS} digits", node.start_mark
            )
        return value

    def _single_node_from_events(self) -> tuple[Node | None, bool]:
        """The document's node, and whether it holds an alias."""
        loader: Any = self
        loader.get_event()  # the stream start
        node = None
        aliased = False
        if not loader.check_event(yaml.StreamEndEvent):
            node, aliased = self._document_from_events()
        if not loader.check_event(yaml.StreamEndEvent):
            event = loader.get_event()
            raise yaml.composer.ComposerError(
                "expected a single document in the stream", None, "but found another document", event.start_mark
            )
        loader.get_event()
        return node, aliased

    def _document_from_events(self) -> tuple[Node, bool]:
        loader: Any = self
        loader.get_event()  # the document start
        composed = self._compose_from_events()
        loader.get_event()  # the document end
        return composed

    def _compose_from_events(self) -> tuple[Node, bool]:
        """PyYAML's Composer.compose_node, with the recursion turned into a stack; and whether an
        alias was met."""
        loader: Any = self
        get_event = loader.get_event
        anchors: dict[str, Node] = {}
        open_nodes: list[Node] = []
        keys: list[Node | None] = []  # per open mapping: the key waiting for its value
        aliased = False
        closing = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
        tag_of = _implicit_tags(loader)
        while True:
            event = get_event()
            kind_of_event = type(event)
            start: Any = event.start_mark  # a C parser's marks are of its own class
            end: Any = event.end_mark
            node: Node
            if kind_of_event not in closing:
                self.nodes_left -= 1
                if self.nodes_left < 0:
                    raise _too_many_nodes(start)
            if kind_of_event is yaml.ScalarEvent and event.anchor is None:
                # Most events: a scalar without an anchor (handled in full below otherwise).
                tag = event.tag
                if tag is None or tag == "!":
                    tag = tag_of(event.value, event.implicit)
                node = ScalarNode(tag, event.value, start, end, style=event.style)
            elif kind_of_event is yaml.AliasEvent:
                aliased = True
                if event.anchor not in anchors:
                    raise yaml.composer.ComposerError(None, None, f"found undefined alias {event.anchor!r}", start)
                node = anchors[event.anchor]
            elif kind_of_event in closing:
                node = open_nodes.pop()
                keys.pop()
                node.end_mark = end
            else:
                if event.anchor is not None and event.anchor in anchors:
                    raise yaml.composer.ComposerError(
                        f"found duplicate anchor {event.anchor!r}; first occurrence",
                        anchors[event.anchor].start_mark,
                        "second occurrence",
                        start,
                    )
                tag = event.tag
                if isinstance(event, yaml.ScalarEvent):
                    if tag is None or tag == "!":
                        tag = loader.resolve(ScalarNode, event.value, event.implicit)
                    node = ScalarNode(tag, event.value, start, end, style=event.style)
                else:
                    kind = SequenceNode if isinstance(event, yaml.SequenceStartEvent) else MappingNode
                    if tag is None or tag == "!":
                        tag = loader.resolve(kind, None, event.implicit)
                    node = kind(tag, [], start, None, flow_style=event.flow_style)
                if event.anchor is not None:
                    anchors[event.anchor] = node
                if not isinstance(node, ScalarNode):
                    if len(open_nodes) >= self.max_depth:
                        raise _BoundsError(None, None, f"nests deeper than {self.max_depth} levels", start)
                    open_nodes.append(node)
                    keys.append(None)
                    continue
            if not open_nodes:
                return node, aliased
            parent = open_nodes[-1]
            if isinstance(parent, SequenceNode):
                parent.value.append(node)
            elif keys[-1] is None:
                keys[-1] = node
            else:
                parent.value.append((keys[-1], node))
                keys[-1] = None


class _Loader(_Bounded, _BaseLoader):
    json_numbers_only = True
    lined = True


class _PlainLoader(_Bounded, _BaseLoader):
    """Plain dicts and lists, no line bookkeeping: for cassettes, whose readers look only a few
    levels deep (and bound what they hand on), so that their JSON bodies' brackets do not cost a
    walk over every node."""

    max_depth = _C_COMPOSER_DEPTH


class _Unusual(Exception):
    """A document outside what `_build_plain` reads: PyYAML composes and constructs it instead."""


_TAG = "tag:yaml.org,2002:"
_STR_TAG, _MAP_TAG, _SEQ_TAG = _TAG + "str", _TAG + "map", _TAG + "seq"
_NO_KEY: Any = object()  # an open mapping's slot when no key waits for its value


def _build_plain(loader: Any, lined: bool = False) -> Any:
    """The document as plain data, built straight from the parser's events; `lined`: as LineDict
    and LineList that know each key's and item's line, as case files are read (a key given twice
    is unusual there, for the usual way to refuse it).

    What a recorded cassette holds (mappings, sequences, scalars, `!!binary`) is read here without
    the nodes and marks PyYAML's composer and constructor make for every value, about five times
    faster. Anything else (an anchor or alias, another tag on a collection, a merge key, a
    collection as a key, a tag that does not construct, a second document) raises _Unusual, and
    the document is read again the usual way, which judges and reports it exactly as before. Depth
    is bounded as the events composer bounds it; without aliases a document is a tree no bigger
    than its text, so no other bound applies."""
    get_event = loader.get_event
    max_depth = loader.max_depth
    scalar_event, sequence_start, mapping_start = yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent
    closing = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    tag_of = _implicit_tags(loader)
    open_collections: list[Any] = []
    keys: list[Any] = []  # per open collection: the key waiting for its value (a sequence's stays _NO_KEY)
    key_lines: list[int] = []  # lined: per open mapping, the line of the key waiting for its value
    mapping, sequence = (LineDict, LineList) if lined else (dict, list)

    nodes_left = loader.nodes_left
    # A plain scalar's value by its tag and text: numbers, booleans and null repeat (`0`, `true`), and
    # are immutable; constructing one costs PyYAML microseconds and a node it keeps to the end.
    known: dict[tuple[str, str], Any] = {}

    def construct(tag: str, event: Any) -> Any:
        text = event.value
        if tag == _INT_TAG and text.isascii() and text.isdigit() and text[0] != "0" and len(text) < MAX_INTEGER_DIGITS:
            return int(text)  # a decimal, as PyYAML reads it, within the bound on digits
        plain = event.implicit[0] and len(text) <= _PLAIN_TAG_TEXT
        if plain and (tag, text) in known:
            return known[tag, text]
        node = ScalarNode(tag, text, event.start_mark, event.end_mark, style=event.style)
        try:
            value = loader.construct_object(node, deep=True)
        except yaml.YAMLError:
            raise _Unusual from None
        loader.constructed_objects.pop(node, None)  # no alias can name it: the document holds none
        if plain and len(known) < _PLAIN_TAGS_KEPT:
            known[tag, text] = value
        return value

    get_event()  # the stream start
    if loader.check_event(yaml.StreamEndEvent):
        return None
    get_event()  # the document start
    while True:
        event = get_event()
        kind = type(event)
        if kind is scalar_event:
            nodes_left -= 1
            if nodes_left < 0:
                raise _too_many_nodes(event.start_mark)
            if event.anchor is not None:
                raise _Unusual
            tag = event.tag
            value = event.value
            if tag is None or tag == "!":
                tag = tag_of(value, event.implicit)
            if tag != _STR_TAG:
                # A number, a boolean, null, `!!binary`; a merge key (`<<`) has no constructor.
                value = construct(tag, event)
        elif kind in closing:
            value = open_collections.pop()
            keys.pop()
            if lined:
                key_lines.pop()
        elif kind is mapping_start or kind is sequence_start:
            tag = event.tag
            default = _MAP_TAG if kind is mapping_start else _SEQ_TAG
            if event.anchor is not None or (tag is not None and tag != "!" and tag != default):
                raise _Unusual
            if keys and keys[-1] is _NO_KEY and type(open_collections[-1]) is mapping:
                raise _Unusual  # a collection as a mapping key
            if len(open_collections) >= max_depth:
                raise _BoundsError(None, None, f"nests deeper than {max_depth} levels", event.start_mark)
            nodes_left -= 1
            if nodes_left < 0:
                raise _too_many_nodes(event.start_mark)
            opened: Any = mapping() if kind is mapping_start else sequence()
            if lined:
                opened.lines = {} if kind is mapping_start else []
                opened.line = event.start_mark.line + 1
            open_collections.append(opened)
            keys.append(_NO_KEY)
            if lined:
                key_lines.append(0)
            continue
        else:  # an alias
            raise _Unusual
        if not open_collections:
            break
        parent = open_collections[-1]
        if type(parent) is sequence:
            parent.append(value)
            if lined:
                line = event.start_mark.line + 1 if kind is scalar_event else value.line
                parent.lines.append(line)  # type: ignore[attr-defined]  # a LineList
        elif keys[-1] is _NO_KEY:
            if lined:
                value = value if isinstance(value, str) else str(value)
                if value in parent:
                    raise _Unusual  # a key given twice: refused, located, the usual way
                key_lines[-1] = event.start_mark.line + 1
            keys[-1] = value
        else:
            parent[keys[-1]] = value
            if lined:
                parent.lines[keys[-1]] = key_lines[-1]
            keys[-1] = _NO_KEY
    get_event()  # the document end
    if not loader.check_event(yaml.StreamEndEvent):
        raise _Unusual
    return value


# Drop the YAML 1.1 timestamp resolver: the schema speaks JSON, where a date is a string.
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}
_PlainLoader.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> Iterator[LineDict]:
    # A generator, as PyYAML's own constructors are: the collection is handed out empty and
    # filled after, so that construction never recurses however deep the document nests.
    loader.flatten_mapping(node)
    result = LineDict()
    result.lines = {}
    result.line = node.start_mark.line + 1
    yield result
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node)
        if not isinstance(key, str):
            key = str(key)
        if key in result:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        result[key] = loader.construct_object(value_node)
        result.lines[key] = key_node.start_mark.line + 1


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode) -> Iterator[LineList]:
    result = LineList()
    result.lines = [child.start_mark.line + 1 for child in node.value]
    result.line = node.start_mark.line + 1
    yield result
    result.extend(loader.construct_object(child) for child in node.value)


def _not_json(loader: _Loader, node: Node) -> Any:
    raise yaml.constructor.ConstructorError(
        None,
        None,
        f"{node.tag.rsplit(':', 1)[-1]!r} data is not JSON data (strings, numbers, lists, mappings)",
        node.start_mark,
    )


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
for _tag in ("set", "timestamp", "binary", "omap", "pairs"):
    _Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _not_json)


def _python_tag_as_data(loader: _PlainLoader, suffix: str, node: Node) -> Any:
    """A `!!python/...` tag in a cassette, read as the data under it and never run: vcrpy's cassettes
    recorded through aiohttp name header keys `!!python/object/apply:multidict._multidict.istr [Name]`
    (a case-insensitive string: here, the string) and may hold a `yarl.URL`'s state. Loading those tags
    the way PyYAML's unsafe loaders do would import and call whatever the file names."""
    if isinstance(node, ScalarNode):
        return loader.construct_scalar(node)
    # Not deep: the collections under it are filled after, as every other collection is, without recursion.
    if isinstance(node, SequenceNode):
        items = loader.construct_sequence(node)
        if suffix.startswith("object/apply:") and suffix.endswith("istr") and len(items) == 1:
            return str(items[0])
        return items
    return loader.construct_mapping(node)  # type: ignore[arg-type]


_PlainLoader.add_multi_constructor("tag:yaml.org,2002:python/", _python_tag_as_data)


def _decode(data: bytes, path: Path | str) -> str:
    # As PyYAML's reader does: UTF-16 when a byte order mark says so, else UTF-8.
    try:
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            return data.decode("utf-16")
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise YamlError(path, line, f"cannot read: not UTF-8 ({exc.reason} at byte {exc.start})") from None


class _BoundedScanner:
    """PyYAML's pure-Python scanner, stopped at the bound: it reads a whole run of opening brackets
    before the parser's first event (any of them may open a key), and its bookkeeping of those keys
    grows with the square of the run, so the bound is kept where the levels are counted."""

    max_depth: int
    flow_level: int
    indents: list[int]
    get_mark: Callable[[], Any]

    def fetch_flow_collection_start(self, token_class: Any) -> None:
        if self.flow_level >= self.max_depth:
            raise _BoundsError(None, None, f"nests deeper than {self.max_depth} levels", self.get_mark())
        super().fetch_flow_collection_start(token_class)  # type: ignore[misc]

    def add_indent(self, column: int) -> bool:
        if len(self.indents) >= self.max_depth:
            raise _BoundsError(None, None, f"nests deeper than {self.max_depth} levels", self.get_mark())
        return super().add_indent(column)  # type: ignore[misc, no-any-return]


def _pure_twin(loader_class: type[Any]) -> type[Any]:
    """The loader with PyYAML's pure-Python parser under it, bounded, constructing the same way."""
    shared = (
        "max_depth",
        "json_numbers_only",
        "lined",
        "yaml_constructors",
        "yaml_multi_constructors",
        "yaml_implicit_resolvers",
    )
    bases = (_BoundedScanner, _Bounded, yaml.SafeLoader)
    return type(f"{loader_class.__name__}Pure", bases, {k: getattr(loader_class, k) for k in shared})


_PURE_TWINS: dict[type[Any], type[Any]] = {}


def _load(
    text: str | bytes, path: Path | str, loader_class: type[Any], plain: bool = False, documents: bool = False
) -> Any:
    # libyaml reads UTF-8 bytes where they lie, and copies a str into UTF-8 first: handed the bytes
    # (once they are known to decode), a file of tens of megabytes is not held a third time.
    source: str | bytes = text
    if isinstance(text, bytes):
        text = _decode(text, path)
        if text and source[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
            source = text
    if _CParser is None or not issubclass(loader_class, _CParser):
        source = text
    try:
        return _load_with(text, path, loader_class, plain, documents, source)
    except YamlError as exc:
        # A YAML parser may refuse deep nesting itself before the suite's bound is reached: libyaml's
        # scanner reads a whole run of opening brackets before the first event (a bracket may open a
        # key), and refuses 1,000 of them. The suite's bound is the one to report, so a text that may
        # nest beyond it is read again by the pure-Python parser, bounded where it counts levels; its
        # verdict (the suite's bound, or the same syntax error) is the one reported.
        bound: int = loader_class.max_depth
        native = _CParser is not None and issubclass(loader_class, _CParser)
        if exc.bound or not native or not _may_nest_beyond(text, bound):
            raise
        twin = _PURE_TWINS.get(loader_class) or _PURE_TWINS.setdefault(loader_class, _pure_twin(loader_class))
        return _load_with(text, path, twin, plain, documents, text)


def _load_with(
    text: str, path: Path | str, loader_class: type[Any], plain: bool, documents: bool, source: str | bytes
) -> Any:
    loader = loader_class(source)
    loader.bounded_text = text
    try:
        if documents:
            return loader.get_all_data()
        if plain:
            try:
                return _build_plain(loader, lined=loader_class.lined)
            except _Unusual:
                loader.dispose()
                loader = loader_class(source)
                loader.bounded_text = text
        return loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = exc.problem or str(exc)
        raise YamlError(path, line, f"invalid YAML: {problem}", isinstance(exc, _BoundsError)) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow, located by its index
        line = text.count("\n", 0, exc.position) + 1
        shown = f"#x{exc.character:04x}" if isinstance(exc.character, int) else repr(exc.character)
        raise YamlError(path, line, f"invalid YAML: {exc.reason} ({shown})") from None
    except yaml.YAMLError as exc:
        raise YamlError(path, None, f"invalid YAML: {exc}") from None
    except RecursionError:  # the pure-Python composer, on a document the bounds let through
        raise YamlError(path, None, f"invalid YAML: nests deeper than {loader.max_depth} levels") from None
    finally:
        loader.dispose()


def load_text(text: str | bytes, path: Path | str = "<string>") -> Any:
    """Parse one YAML document; errors carry the file and line."""
    return _load(text, path, _Loader, plain=True)


def load_data(text: str | bytes, path: Path | str = "<string>") -> Any:
    """Parse one YAML document into plain dicts and lists (`!!binary` is bytes), within the same bounds."""
    return _load(text, path, _PlainLoader, plain=True)


def load_all_data(text: str | bytes, path: Path | str = "<string>") -> list[Any]:
    """Every document of a YAML stream (`---` between them), as `load_data` reads one; the bounds
    hold for the whole stream, not each document."""
    documents: list[Any] = _load(text, path, _PlainLoader, documents=True)
    return documents


def read_text(path: Path) -> str:
    """A file's text: a regular file within the size bound, in UTF-8 (or UTF-16 with a byte order mark)."""
    try:
        return _decode(read_file(path), path)
    except BoundsError as exc:
        raise YamlError(path, None, str(exc)) from None


def load_file(path: Path) -> Any:
    return load_text(read_text(path), path)


@dataclass(frozen=True)
class Located:
    """A JSON path inside a document and the line it starts on."""

    path: tuple[str | int, ...]
    line: int | None


def line_of(document: Any, path: Iterable[str | int]) -> int | None:
    """The line of the deepest node of `path` that the document still has."""
    node = document
    # A document that is one scalar (or empty) is all on its first line.
    line = getattr(document, "line", None if isinstance(document, dict | list) else 1)
    for step in path:
        if isinstance(node, LineDict) and isinstance(step, str) and step in node:
            line = node.lines.get(step, line)
            node = node[step]
        elif isinstance(node, LineList) and isinstance(step, int) and 0 <= step < len(node):
            line = node.lines[step]
            node = node[step]
        else:
            break
    return line


def to_plain(value: Any) -> Any:
    """Strip the line bookkeeping: plain dicts and lists, e.g. before JSON serialisation."""
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    return value
