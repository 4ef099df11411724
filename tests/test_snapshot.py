"""Corpus snapshots: a corpus loaded before is read back while nothing it was built from changed,
and never after."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.corpus import loading as corpus_module
from conformance.corpus import snapshot
from conformance.corpus.loading import load_corpus
from conformance.recordings.cassette import load_cassette, stamp


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "cache"
    monkeypatch.setenv("CONFORMANCE_CACHE_DIR", str(where))
    return where


def _roots(tmp_path: Path) -> tuple[Path, Path]:
    cases, cassettes = tmp_path / "cases", tmp_path / "cassettes"
    (cases / "scenarios").mkdir(parents=True)
    cassettes.mkdir()
    (cases / "scenarios" / "a.yaml").write_text("id: a\n")
    return cases, cassettes


def test_the_second_load_reads_no_yaml(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = load_corpus()
    assert list(cache.glob("corpus-*.pickle"))

    def refuse(*args: object) -> None:
        raise AssertionError("the case files were read again")

    monkeypatch.setattr(corpus_module, "read_case_files", refuse)
    second = load_corpus()
    assert second.scenarios.keys() == first.scenarios.keys()
    assert second.revision() == first.revision()


@pytest.mark.parametrize("change", ["edit", "touch", "add", "remove"])
def test_any_change_to_a_file_under_the_roots_changes_the_fingerprint(tmp_path: Path, change: str) -> None:
    cases, cassettes = _roots(tmp_path)
    before = snapshot.fingerprint([cases], [cassettes])
    assert snapshot.fingerprint([cases], [cassettes]) == before
    target = cases / "scenarios" / "a.yaml"
    if change == "edit":
        target.write_text("id: b\n")
    elif change == "touch":
        os.utime(target, ns=(target.stat().st_atime_ns, target.stat().st_mtime_ns + 1))
    elif change == "add":
        (cassettes / "new.yaml").write_text("interactions: []\n")
    else:
        target.unlink()
    assert snapshot.fingerprint([cases], [cassettes]) != before


def test_a_broken_snapshot_is_ignored_and_replaced(cache: Path) -> None:
    first = load_corpus()
    (stored,) = cache.glob("corpus-*.pickle")
    stored.write_bytes(b"not a pickle")
    again = load_corpus()
    assert again.scenarios.keys() == first.scenarios.keys()
    assert stored.read_bytes()[:1] == b"\x80"  # written anew


def test_snapshots_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONFORMANCE_CACHE_DIR", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    load_corpus()
    assert snapshot.cache_dir() is None
    assert not list(tmp_path.rglob("*.pickle"))


def test_an_unwritable_cache_costs_nothing_but_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("CONFORMANCE_CACHE_DIR", str(blocked / "cache"))  # under a file: cannot exist
    assert load_corpus().scenarios


def test_a_preloaded_cassette_is_read_again_once_its_file_changes(cache: Path, tmp_path: Path) -> None:
    corpus = load_corpus()
    scenario = corpus.scenarios["openai-chat/one-call"]
    original = corpus.cassette_path(scenario)
    assert load_cassette(original) is load_cassette(original)  # handed out from the snapshot
    copy = tmp_path / "one-call.yaml"
    copy.write_bytes(original.read_bytes())
    from conformance.recordings.cassette import preload

    preload({str(copy): (stamp(copy) or (0, 0), load_cassette(original))})
    assert load_cassette(copy) is load_cassette(original)
    copy.write_text("interactions: []\n")
    assert load_cassette(copy).interactions == ()


def test_a_snapshot_others_may_write_is_never_read(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    load_corpus()
    (stored,) = cache.glob("corpus-*.pickle")
    key = stored.name.removeprefix("corpus-").removesuffix(".pickle")
    assert snapshot.read(key) is not None
    cache.chmod(0o777)  # a directory anyone may write to: what is in it may be anyone's
    assert snapshot.read(key) is None
    cache.chmod(0o700)
    stored.chmod(0o666)
    assert snapshot.read(key) is None
    stored.chmod(0o600)
    assert snapshot.read(key) is not None
