"""Cassettes are read straight from the YAML parser's events (`yamlio._build_plain`), not through
PyYAML's composer and constructor. The two must agree on every document: the same data, or the same
located error. Documents outside what the direct reader handles are read again PyYAML's way, so
they are compared too, and the reader must say which it did (a document it took for its own must
not have needed the other path)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from conftest import REAL_TRAFFIC, ROOT
from fuzzing import examples, mutate_yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.recordings import yamlio

SEEDS = sorted((ROOT / "cassettes").rglob("*.yaml")) + sorted(REAL_TRAFFIC.glob("*/*.yaml"))


def _outcome(
    text: str | bytes, plain: bool, loader: type[Any] = yamlio._PlainLoader, shown: Any = repr
) -> tuple[str, Any]:
    """What a document reads as (`shown`), or the located error, the direct way or PyYAML's."""
    try:
        return "data", shown(yamlio._load(text, "doc.yaml", loader, plain=plain))
    except yamlio.YamlError as exc:
        return "error", str(exc)


def _direct(text: str | bytes) -> bool:
    """Whether the direct reader read the document to its end without handing it over."""
    with mock.patch.object(yamlio._PlainLoader, "get_single_data", side_effect=AssertionError("handed over")):
        try:
            yamlio._load(text, "doc.yaml", yamlio._PlainLoader, plain=True)
        except AssertionError:
            return False
        except yamlio.YamlError:
            pass
    return True


def assert_same(text: str | bytes) -> None:
    assert _outcome(text, plain=True) == _outcome(text, plain=False)


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_every_cassette_reads_the_same_and_directly(path: Path) -> None:
    text = path.read_bytes()
    assert_same(text)
    assert _direct(text)


DIRECT = {
    "scalars of every JSON type": "a: 1\nb: -2.5e3\nc: true\nd: null\ne: ~\nf: 'quoted 1'\ng: \"2\"\nh: .nan\n",
    "YAML 1.1 forms": "a: yes\nb: off\nc: 0x1F\nd: 0o17\ne: 1_000\nf: 1:30\ng: 2025-04-23\n",
    "plain text repeated as key and value": "- {id: x, v: x}\n- {id: x, v: 'x'}\n- {1: x}\n",
    "duplicate keys, the last wins": "a: 1\nb: 2\na: 3\n",
    "binary and explicit tags": "b: !!binary aGVsbG8=\ns: !!str 12\ni: !!int '7'\nm: !!map {a: 1}\nx: ! 12\n",
    "a sequence's own tag and infinity": "q: !!seq [1, .inf, -.Inf]\n",
    "a key of another type": "200: ok\ntrue: yes\nnull: nothing\n1.5: half\n",
    "empty values": "a:\nb: []\nc: {}\nd: ''\n-e: x\n",
    "block scalars": "a: |\n  line one\n  [not a list\nb: >-\n  folded\n  text\n",
    "a document that is a scalar": "just text\n",
    "an empty document": "",
    "comments only": "# nothing here\n",
    "an explicit document": "%YAML 1.1\n---\na: [1, 2]\n...\n",
    "flow in block in flow": "a: [{b: [c, {d: e}]}, f]\n",
    "a binary that decodes to nothing": "x: !!binary '!!!'\n",
    # A python tag on a scalar is read as its text (never run): both ways, so the direct reader keeps it.
    "a python tag": "x: !!python/name:os.system\n",
    "a python tag before a syntax error": "x: !!python/name:os.system\ny: [\n",
}

HANDED_OVER = {
    "an anchor and its alias": "a: &x [1, 2]\nb: *x\n",
    "an anchor alone": "a: &x 1\n",
    "a duplicate anchor": "a: &x 1\nb: &x 2\n",
    "an undefined alias": "a: *nowhere\n",
    "a merge key": "base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n",
    "a plain merge key without an alias": "a: {<<: {x: 1}}\n",
    "a value key": "a: {=: 1}\n",
    "a set": "s: !!set {a, b}\n",
    "an ordered map": "o: !!omap [{a: 1}, {b: 2}]\n",
    "pairs": "p: !!pairs [{a: 1}]\n",
    "a python object": "x: !!python/object/apply:os.system ['true']\n",
    "a local tag": "x: !custom {a: 1}\n",
    "a local tag on a scalar": "x: !custom 1\n",
    "a sequence tag on a mapping": "x: !!seq {a: 1}\n",
    "an int tag on text": "x: !!int twelve\n",
    "a bool tag on text": "x: !!bool maybe\n",
    "a timestamp tag on text": "x: !!timestamp soon\n",
    "a sequence as a key": "? [a, b]\n: c\n",
    "a mapping as a key": "? {a: 1}\n: c\n",
    "two documents": "a: 1\n---\nb: 2\n",
    "two documents, the second broken": "a: 1\n---\nb: [\n",
}

BROKEN = {
    "an unclosed flow sequence": "a: [1, 2\n",
    "a tab as indentation": "a:\n\tb: 1\n",
    "a bad indentation": "a:\n  b: 1\n c: 2\n",
    "a control character": "a: \x07\n",
    "an unterminated quote": "a: 'open\n",
}


@pytest.mark.parametrize("text", DIRECT.values(), ids=DIRECT.keys())
def test_what_the_direct_reader_takes_reads_the_same(text: str) -> None:
    assert_same(text)
    assert _direct(text)


@pytest.mark.parametrize("text", HANDED_OVER.values(), ids=HANDED_OVER.keys())
def test_anything_else_is_read_the_usual_way(text: str) -> None:
    assert_same(text)
    assert not _direct(text)


@pytest.mark.parametrize("text", BROKEN.values(), ids=BROKEN.keys())
def test_broken_documents_give_the_same_located_error(text: str) -> None:
    kind, message = _outcome(text, plain=True)
    assert kind == "error" and message.startswith("doc.yaml:"), message
    assert_same(text)


def test_aliases_still_share_one_object() -> None:
    data: Any = yamlio.load_data("a: &x [1, 2]\nb: *x\n")
    assert data == {"a": [1, 2], "b": [1, 2]} and data["a"] is data["b"]


def _depth(value: Any) -> int:
    depth = 0
    while isinstance(value, dict | list) and value:
        value = next(iter(value.values())) if isinstance(value, dict) else value[0]
        depth += 1
    return depth + 1  # the innermost, empty collection


@pytest.mark.parametrize("depth", [yamlio._PlainLoader.max_depth, yamlio._PlainLoader.max_depth + 1, 100_000])
def test_depth_is_bounded_where_the_events_composer_bounds_it(depth: int) -> None:
    text = "a: " + "[" * (depth - 1) + "]" * (depth - 1) + "\n"  # the mapping is the first level
    if depth > yamlio._PlainLoader.max_depth:
        assert_same(text)
        assert _outcome(text, plain=True) == (
            "error",
            f"doc.yaml:1: invalid YAML: nests deeper than {yamlio._PlainLoader.max_depth} levels",
        )
    else:
        for plain in (True, False):
            assert _depth(yamlio._load(text, "doc.yaml", yamlio._PlainLoader, plain=plain)) == depth
        assert _direct(text)


def test_many_distinct_plain_scalars_past_the_cache_still_resolve() -> None:
    count = yamlio._PLAIN_TAGS_KEPT + 10
    text = "".join(f"- k{i}\n" for i in range(count)) + "- 12\n- true\n"
    data = yamlio.load_data(text)
    assert data[-2:] == [12, True] and data[count - 1] == f"k{count - 1}"


@settings(max_examples=examples(0.5), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.sampled_from(SEEDS), data=st.data())
def test_mutated_cassettes_read_the_same(seed: Path, data: st.DataObject) -> None:
    assert_same(mutate_yaml(data, seed.read_text(), "marker-not-written"))


# Case files are read the same direct way, into LineDict and LineList that know each key's and
# item's line (what every corpus problem is located by). The direct reader and the composer must
# agree on the data, its types and every line; a key given twice is refused the composer's way.

CASE_FILES = sorted((ROOT / "cases").rglob("*.yaml"))


def _lined(value: Any) -> Any:
    if not isinstance(value, dict | list):
        return type(value).__name__, value
    items = [(k, _lined(v)) for k, v in value.items()] if isinstance(value, dict) else list(map(_lined, value))
    return type(value).__name__, getattr(value, "line", None), getattr(value, "lines", None), items


def _case_outcome(text: str | bytes, plain: bool) -> tuple[str, Any]:
    return _outcome(text, plain, yamlio._Loader, _lined)


def assert_same_case(text: str | bytes) -> None:
    assert _case_outcome(text, plain=True) == _case_outcome(text, plain=False)


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: str(p.relative_to(ROOT / "cases")))
def test_every_case_file_reads_the_same_with_its_lines(path: Path) -> None:
    text = path.read_bytes()
    assert_same_case(text)
    with mock.patch.object(yamlio._Loader, "get_single_data", side_effect=AssertionError("handed over")):
        yamlio.load_text(text, path)  # read directly: never handed to the composer


@pytest.mark.parametrize(
    "text", [*DIRECT.values(), *HANDED_OVER.values(), *BROKEN.values()], ids=[*DIRECT, *HANDED_OVER, *BROKEN]
)
def test_case_documents_read_the_same_with_their_lines(text: str) -> None:
    assert_same_case(text)


def test_a_key_given_twice_in_a_case_file_is_refused_where_it_is() -> None:
    kind, message = _case_outcome("id: a\nkind: scenario\nid: b\n", plain=True)
    assert kind == "error" and message.startswith("doc.yaml:3:") and "duplicate key 'id'" in message


@settings(max_examples=examples(0.5), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.sampled_from(CASE_FILES), data=st.data())
def test_mutated_case_files_read_the_same(seed: Path, data: st.DataObject) -> None:
    assert_same_case(mutate_yaml(data, seed.read_text(), "marker-not-written"))
