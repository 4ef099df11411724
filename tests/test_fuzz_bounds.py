"""Bounded inputs, the second round: shapes the first bounds missed, each now a located error,
quick and small. Each test runs lint or check in a child process under a memory limit and a time
limit, so that a regression is a failed test, not a machine out of memory."""

from __future__ import annotations

import contextlib
import gzip
import json
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.recordings import bounds, yamlio

ONE_CALL = ROOT / "cassettes" / "openai-chat" / "one-call.yaml"
CASE = ROOT / "cases" / "scenarios" / "openai-chat" / "one-call.yaml"
MEMORY = 768 * 1024 * 1024  # the child's address space: lint and check stay far below it


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _conformance(*args: str, cwd: Path, seconds: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "conformance.cli", *args],
        capture_output=True,
        text=True,
        timeout=seconds,
        cwd=cwd,
        preexec_fn=_limited,
    )


def _colon_bomb(levels: int = 9, width: int = 9) -> str:
    """A billion laughs whose aliases follow a colon with no space: `{"k0":*l0,"k1":*l0,...}`."""
    lines = ['"l0": &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        pairs = ",".join(f'"k{i}":*l{level - 1}' for i in range(width))
        lines.append(f'"l{level}": &l{level} {{{pairs}}}')
    return "\n".join(lines)


def _case_dir(tmp_path: Path, text: str, name: str = "broken") -> Path:
    scenarios = tmp_path / "cases" / "scenarios" / "openai-chat"
    scenarios.mkdir(parents=True, exist_ok=True)
    (scenarios / f"{name}.yaml").write_text(text)
    return tmp_path / "cases"


def _case(extra: str = "", **replace: str) -> str:
    text = CASE.read_text().replace("id: openai-chat/one-call", "id: openai-chat/broken")
    for old, new in replace.items():
        assert old in text
        text = text.replace(old, new, 1)
    return text + extra


def test_an_alias_bomb_written_without_spaces_is_refused_by_lint(tmp_path: Path) -> None:
    bomb = _colon_bomb()
    assert len(bomb) < 1100 and not re.search(r"[\s\[{,]\*", bomb)  # the shape the old test missed
    text = ONE_CALL.read_text().replace("  response:\n", '    parsed_body: {"x":*l8}\n  response:\n', 1)
    path = tmp_path / "bomb.yaml"
    path.write_text(bomb + "\n" + text)
    lint = _conformance("lint", str(path), cwd=tmp_path)
    assert lint.returncode == 2, lint.stderr[-2000:]
    assert "aliases expand the document" in lint.stdout and "Traceback" not in lint.stderr


def test_an_alias_bomb_written_without_spaces_is_one_problem_of_check(tmp_path: Path) -> None:
    cases = _case_dir(tmp_path, _colon_bomb() + "\n" + _case(**{"{city: Paris}": '{"city":*l8}'}))
    check = _conformance("check", "--no-examples", "--cases", str(cases), cwd=tmp_path)
    assert check.returncode == 1, check.stderr[-2000:]
    assert re.search(r"broken\.yaml:\d+: \[yaml\] invalid YAML: aliases expand the document", check.stdout)


@pytest.mark.parametrize("newline", ["\r", "\u2028", "\u2029", "\x85", "\r\n"])
@pytest.mark.parametrize("load", ["load_text", "load_data"])
def test_nesting_written_after_any_line_break_is_bounded(newline: str, load: str) -> None:
    text = "a:" + newline + "".join(f"{'  ' * level}- {newline}" for level in range(2_000))
    with pytest.raises(yamlio.YamlError, match="nests deeper than"):
        getattr(yamlio, load)(text, "deep.yaml")


def test_nesting_after_cr_line_breaks_is_a_located_problem_of_check(tmp_path: Path) -> None:
    deep = "deep:\r" + "".join(f"{'  ' * level}- \r" for level in range(2_000))
    cases = _case_dir(tmp_path, _case().replace("\n", "\r") + "\r" + deep)
    check = _conformance("check", "--no-examples", "--cases", str(cases), cwd=tmp_path)
    assert check.returncode == 1, check.stderr[-2000:]
    assert "nests deeper than 100 levels" in check.stdout
    assert "Traceback" not in check.stdout + check.stderr and "RecursionError" not in check.stderr


def test_a_small_gzip_that_stands_for_much_json_is_refused_by_lint(tmp_path: Path) -> None:
    tiny = "[" + ",".join(["[]"] * 20_000_000) + "]"  # 40 MB of JSON, mostly empty lists
    packed = gzip.compress(tiny.encode(), compresslevel=9)
    assert len(packed) < 100_000
    data = yaml.safe_load(ONE_CALL.read_text())
    response = data["interactions"][0]["response"]
    response["body"] = {"string": packed}
    response["headers"]["Content-Encoding"] = ["gzip"]
    path = tmp_path / "packed.yaml"
    path.write_text(yaml.safe_dump(data))
    lint = _conformance("lint", str(path), cwd=tmp_path)
    assert lint.returncode == 2, lint.stderr[-2000:]
    assert "decompresses to more than" in lint.stdout


def test_a_body_within_the_inflation_bound_still_reads() -> None:
    from conformance.recordings.cassette import BodyBudget

    assert BodyBudget().limit(1000) == bounds.INFLATION_FLOOR
    assert BodyBudget().limit(100_000) == 100_000 * bounds.INFLATION_FACTOR
    assert BodyBudget().limit(10_000_000) == bounds.MAX_BODY_BYTES


@pytest.mark.parametrize("retired", ["5", "oops", "{id: x}", "null"])
def test_retired_that_is_not_a_list_is_a_located_problem(tmp_path: Path, retired: str) -> None:
    cases = _case_dir(tmp_path, _case(), name="fine")
    (cases / "retired.yaml").write_text(f"# ids never reused\nretired: {retired}\n")
    check = _conformance("check", "--no-examples", "--cases", str(cases), cwd=tmp_path)
    assert "Traceback" not in check.stderr, check.stderr[-2000:]
    if retired == "null":
        return  # no entries
    assert check.returncode == 1
    assert f"{cases / 'retired.yaml'}:2: [id-retired]" in check.stdout


@pytest.mark.parametrize("digits", ["0x" + "f" * 5000, "1" * 5000, "-0o" + "7" * 6000])
def test_an_integer_of_thousands_of_digits_is_a_located_problem(tmp_path: Path, digits: str) -> None:
    cases = _case_dir(tmp_path, _case("retries: !!int " + digits + "\n"))
    check = _conformance("check", "--no-examples", "--cases", str(cases), cwd=tmp_path)
    assert check.returncode == 1, check.stderr[-2000:]
    assert "an integer of more than 1000 digits" in check.stdout
    assert "Traceback" not in check.stderr


@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan", ".NaN", "!!float .inf"])
def test_a_number_json_cannot_carry_is_a_located_problem_of_check(tmp_path: Path, value: str) -> None:
    cases = _case_dir(tmp_path, _case(**{"city: Paris": f"city: {value}"}))
    check = _conformance("check", "--no-examples", "--cases", str(cases), cwd=tmp_path)
    assert check.returncode == 1, check.stdout + check.stderr[-2000:]
    assert "is not a JSON number" in check.stdout


@settings(max_examples=40, deadline=None)
@given(
    breaks=st.lists(st.sampled_from(["\n", "\r", "\r\n", "\u2028", "\u2029", "\x85"]), min_size=1, max_size=4),
    levels=st.integers(150, 1500),
    flow=st.booleans(),
)
def test_every_deep_document_is_a_yaml_error_not_a_crash(breaks: list[str], levels: int, flow: bool) -> None:
    lines = []
    for level in range(levels):
        lines.append(("  " * level) + ("- [" if flow and level % 7 == 0 else "- "))
    text = "a:" + "".join(line + breaks[i % len(breaks)] for i, line in enumerate(lines))
    for load in (yamlio.load_text, yamlio.load_data):
        with contextlib.suppress(yamlio.YamlError):
            load(text, "deep.yaml")


@settings(max_examples=30, deadline=None)
@given(separator=st.sampled_from([":", ": ", ":\t", ", ", ","]), width=st.integers(6, 12))
def test_every_alias_bomb_spelling_is_refused(separator: str, width: int) -> None:
    lines = ['"l0": &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, 9):
        if separator.startswith(":"):
            pairs = ",".join(f'"k{i}"{separator}*l{level - 1}' for i in range(width))
            lines.append(f'"l{level}": &l{level} {{{pairs}}}')
        else:
            lines.append(f'"l{level}": &l{level} [{separator.join([f"*l{level - 1}"] * width)}]')
    text = "\n".join(lines)
    for load in (yamlio.load_text, yamlio.load_data):
        with pytest.raises(yamlio.YamlError, match="aliases expand the document"):
            load(text, "bomb.yaml")


def test_json_nesting_in_a_case_value_stays_json() -> None:
    # The bound on numbers is the loader's: integers JSON can carry pass.
    assert yamlio.load_text(f"a: {2**64}\nb: 1.5e+300\n") == {"a": 2**64, "b": 1.5e300}
    assert json.dumps(yamlio.load_text("a: 12345678901234567890")) == '{"a": 12345678901234567890}'
