"""Corpus snapshots: a corpus loaded before is read back while nothing it was built from changed,
and never after."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from conftest import Planted

from conformance.corpus import loading as corpus_module
from conformance.corpus import snapshot
from conformance.corpus.loading import Corpus, load_corpus
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


# --- a snapshot can never run code ---------------------------------------------------------


def _plant(cache: Path, marker: Path) -> Path:
    import pickle

    cache.mkdir(mode=0o700, parents=True, exist_ok=True)
    load_corpus()  # writes the real snapshot: its name is the key the next load reads
    (real,) = cache.glob("corpus-*.pickle")
    key = real.name[len("corpus-") : -len(".pickle")]
    real.write_bytes(pickle.dumps((key, Planted(marker), {})))
    return real


def test_a_planted_pickle_is_never_run(cache: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    _plant(cache, marker)
    corpus = load_corpus()  # the planted snapshot is refused and rebuilt
    assert not marker.exists()
    assert corpus.scenarios


def test_every_name_outside_the_data_classes_is_refused() -> None:
    import io
    import pickle

    unpickler = snapshot.DataUnpickler(io.BytesIO(b""))
    refused = [
        ("os", "system"),
        ("builtins", "eval"),
        ("subprocess", "Popen"),
        ("pathlib", "os"),  # a module a data module imports
        ("conformance.corpus.loading", "Path"),  # a class it imports from elsewhere
        ("conformance.corpus.loading", "load_corpus"),  # a function
        ("conformance.corpus.loading", "os.system"),
    ]
    for module, name in refused:
        with pytest.raises(pickle.UnpicklingError):
            unpickler.find_class(module, name)
    assert unpickler.find_class("pathlib", "PosixPath") is type(Path("/"))
    assert unpickler.find_class("conformance.corpus.loading", "Corpus") is corpus_module.Corpus


@pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="POSIX links")
def test_a_snapshot_that_is_a_link_is_not_followed(cache: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    real = _plant(cache, marker)
    elsewhere = tmp_path / "elsewhere.pickle"
    real.rename(elsewhere)
    real.symlink_to(elsewhere)  # the swap a stat-then-open reader would follow
    assert snapshot.read(real.name[len("corpus-") : -len(".pickle")]) is None
    assert not marker.exists()


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX ownership")
def test_a_directory_others_may_write_is_not_read(cache: Path, tmp_path: Path) -> None:
    load_corpus()
    (real,) = cache.glob("corpus-*.pickle")
    key = real.name[len("corpus-") : -len(".pickle")]
    assert snapshot.read(key) is not None
    cache.chmod(0o777)
    try:
        assert snapshot.read(key) is None
    finally:
        cache.chmod(0o700)


def test_the_cache_keeps_only_the_most_recently_used_snapshots(cache: Path) -> None:
    cache.mkdir(mode=0o700)
    now = time.time()
    for age in range(12):  # twelve older runs' snapshots, the first the most recently used
        old = cache / f"corpus-{age:032x}.pickle"
        old.write_bytes(b"")
        os.utime(old, (now - age, now - age))
    snapshot.write("f" * 32, Corpus({}, {}, {}, (), ()), {})
    kept = sorted(p.name for p in cache.glob("corpus-*.pickle"))
    assert len(kept) == snapshot.KEEP
    assert f"corpus-{'f' * 32}.pickle" in kept
    assert kept[: snapshot.KEEP - 1] == [f"corpus-{age:032x}.pickle" for age in range(snapshot.KEEP - 1)]


def test_reading_a_snapshot_counts_as_its_use(cache: Path) -> None:
    snapshot.write("e" * 32, Corpus({}, {}, {}, (), ()), {})
    path = cache / f"corpus-{'e' * 32}.pickle"
    os.utime(path, (1_700_000_000, 1_700_000_000))
    assert snapshot.read("e" * 32) is not None
    assert path.stat().st_mtime > 1_700_000_000


def test_lint_reads_the_wire_types_alone(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = load_corpus()  # writes the snapshot, in parts
    loads: list[object] = []
    monkeypatch.setattr(corpus_module, "read_case_files", lambda *args: pytest.fail("the case files were read"))
    real_load = snapshot.DataUnpickler.load

    def counted(self: snapshot.DataUnpickler) -> object:
        loads.append(None)
        return real_load(self)

    monkeypatch.setattr(snapshot.DataUnpickler, "load", counted)
    wire = load_corpus(wire_types_only=True)
    assert len(loads) == 1  # the first part only
    assert wire.wire_types.keys() == whole.wire_types.keys() and not wire.scenarios and not wire.bugs
    quoted = wire.error_text("anthropic-messages", "pairing/orphan-result")
    assert quoted is not None and quoted == whole.error_text("anthropic-messages", "pairing/orphan-result")
    loads.clear()
    again = load_corpus()
    assert len(loads) == 3 and again.scenarios.keys() == whole.scenarios.keys()
