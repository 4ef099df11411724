"""The corpus snapshot a wheel ships: built by the wheel's build step, read on a fresh install while
the files beside it are the ones it was built from, placed where the install put the corpus, and
never able to run code."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT, Planted

from conformance.corpus import shipped, shipping
from conformance.corpus.loading import load_corpus
from conformance.recordings.cassette import load_cassette


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The bundled corpus as a wheel installs it: the files, and the snapshot built from the checkout's."""
    monkeypatch.setenv("CONFORMANCE_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "_corpus"
    for directory in ("cases", "cassettes"):
        shutil.copytree(ROOT / directory, root / directory)
    shipping.write(ROOT, root / shipped.NAME)
    return root


def test_the_shipped_snapshot_is_the_corpus_placed_where_it_was_installed(installed: Path) -> None:
    found = shipped.read(installed)
    assert found is not None
    corpus, cassettes = found
    built = load_corpus()  # from the checkout's files
    assert sorted(corpus.scenarios) == sorted(built.scenarios) and sorted(corpus.wire_types) == sorted(built.wire_types)
    assert corpus.case_roots == (installed / "cases",) and corpus.cassette_roots == (installed / "cassettes",)
    for scenario in corpus.scenarios.values():
        assert scenario.path.is_relative_to(installed) and scenario.path.is_file()
        assert scenario.data == built.scenarios[scenario.id].data
        path = corpus.cassette_path(scenario)
        assert path.is_relative_to(installed) and str(path) in cassettes
        _, cassette = cassettes[str(path)]
        assert cassette.path == str(path) and cassette.interactions == load_cassette(path).interactions


@pytest.mark.parametrize("change", ["edited", "added", "removed"])
def test_a_file_changed_after_the_build_makes_the_snapshot_unused(installed: Path, change: str) -> None:
    case = installed / "cases" / "scenarios" / "openai-chat" / "one-call.yaml"
    if change == "edited":
        case.write_text(case.read_text().replace("one", "One", 1))
    elif change == "added":
        (case.parent / "another.yaml").write_text(case.read_text())
    else:
        case.unlink()
    assert shipped.read(installed) is None


def test_a_planted_shipped_snapshot_is_never_run(installed: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    (installed / shipped.NAME).write_bytes(pickle.dumps((1, shipped.digest(installed), Planted(marker), {})))
    assert shipped.read(installed) is None
    assert not marker.exists()


def test_a_wheel_ships_its_corpus_loaded_and_a_fresh_install_parses_no_yaml(tmp_path: Path) -> None:
    pytest.importorskip("hatchling")
    from hatchling.builders.wheel import WheelBuilder

    (wheel,) = WheelBuilder(str(ROOT)).build(directory=str(tmp_path / "dist"), versions=["standard"])
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        assert f"conformance/_corpus/{shipped.NAME}" in archive.namelist()
        archive.extractall(site)
    probe = (
        "import conformance.corpus.loading as loading\n"
        "def refuse(*args): raise SystemExit('the case files were parsed')\n"
        "loading.read_case_files = refuse\n"
        "corpus = loading.load_corpus()\n"
        f"assert loading.__file__.startswith({str(site)!r}), loading.__file__\n"
        "print(len(corpus.scenarios))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site), "CONFORMANCE_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == len(load_corpus().scenarios)
