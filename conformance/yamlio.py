"""YAML reading for the corpus: JSON data model, duplicate keys refused, line numbers kept.

Case files are data for a JSON Schema, so the loader resolves only JSON types: dates stay strings
(`2025-04-23` is a date in YAML 1.1 but a string to the schema). Every mapping and sequence
remembers the line of each entry so that a schema error can name the line it concerns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

try:  # the C loader is several times faster on the corpus; the pure one is the fallback
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # PyYAML built without libyaml; tests/test_yaml_fallback.py runs the corpus through this
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]


class YamlError(Exception):
    """A YAML document that cannot be read, with the file and line it concerns."""

    def __init__(self, path: Path | str, line: int | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
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


class _Loader(_BaseLoader):
    pass


# Drop the YAML 1.1 timestamp resolver: the schema speaks JSON, where a date is a string.
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    result = LineDict()
    result.lines = {}
    result.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str):
            key = str(key)
        if key in result:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        result[key] = loader.construct_object(value_node, deep=True)
        result.lines[key] = key_node.start_mark.line + 1
    return result


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode) -> LineList:
    result = LineList(loader.construct_object(child, deep=True) for child in node.value)
    result.lines = [child.start_mark.line + 1 for child in node.value]
    result.line = node.start_mark.line + 1
    return result


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def load_text(text: str, path: Path | str = "<string>") -> Any:
    """Parse one YAML document; errors carry the file and line."""
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = exc.problem or str(exc)
        raise YamlError(path, line, f"invalid YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise YamlError(path, None, f"invalid YAML: {exc}") from None


def load_file(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise YamlError(path, None, f"cannot read: {exc}") from None
    return load_text(text, path)


@dataclass(frozen=True)
class Located:
    """A JSON path inside a document and the line it starts on."""

    path: tuple[str | int, ...]
    line: int | None


def line_of(document: Any, path: Iterable[str | int]) -> int | None:
    """The line of the deepest node of `path` that the document still has."""
    node = document
    line = getattr(document, "line", None)
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
