"""Bounded inputs, the second round: shapes the first bounds missed, each now a located error,
quick and small. Each test runs lint or check in a child process under a memory limit and a time
limit, so that a regression is a failed test, not a machine out of memory."""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
import random
import re
import resource
import subprocess
import sys
import time
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


@pytest.mark.parametrize("retired", ["5", "oops", "{id: x}", "null", ""])
def test_retired_that_is_not_a_list_is_a_located_problem(tmp_path: Path, retired: str) -> None:
    cases = _case_dir(tmp_path, _case(), name="fine")
    (cases / "retired.yaml").write_text(f"# ids never reused\nretired: {retired}\n")
    check = _conformance("check", "--no-examples", "--cases", str(cases), cwd=tmp_path)
    assert "Traceback" not in check.stderr, check.stderr[-2000:]
    assert check.returncode == 1
    assert f"{cases / 'retired.yaml'}:2: [id-retired]" in check.stdout


@pytest.mark.parametrize("text", ["retired: []\n", "# none retired yet\n", "{}\n"])
def test_retired_with_no_entries_is_no_problem(tmp_path: Path, text: str) -> None:
    cases = _case_dir(tmp_path, _case(), name="fine")
    (cases / "retired.yaml").write_text(text)
    check = _conformance("check", "--no-examples", "--cases", str(cases), cwd=tmp_path)
    assert "checked" in check.stdout and "Traceback" not in check.stderr, check.stderr[-2000:]
    assert "retired.yaml" not in check.stdout


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


# --- every recording format within the same bounds ------------------------------------------------

# The child reports what it cost: its peak memory and its processor time, the measures of a bomb
# (wall time on a shared machine says more about the machine). The peak is the process's own high-water
# mark (VmHWM, which starts anew with exec), not getrusage's ru_maxrss, which Linux carries over from
# the forking parent: a pytest-xdist worker's 450 MB.
_MEASURED = """
import resource, sys
from conformance.cli import main
try:
    code = main(sys.argv[1:])
finally:
    use = resource.getrusage(resource.RUSAGE_SELF)
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) * 1024
    sys.stderr.write(f"\\ncost {peak} {use.ru_utime + use.ru_stime}\\n")
sys.exit(code)
"""
READ_BYTES = 200 * 1024 * 1024
READ_SECONDS = 5.0


def _refused_in_one_line(command: str, path: Path, tmp_path: Path) -> str:
    args = [command, str(path)] + (["--output", str(tmp_path / "out")] if command == "import" else [])
    run = subprocess.run(
        [sys.executable, "-c", _MEASURED, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        preexec_fn=_limited,
    )
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    assert run.returncode == 2, run.stdout + run.stderr[-2000:]
    lines = run.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}: "), run.stdout
    peak, seconds = run.stderr.rsplit("cost ", 1)[1].split()
    assert int(peak) < READ_BYTES and float(seconds) < READ_SECONDS, (peak, seconds)
    return lines[0]


def _rig(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "cassettes" / "anthropic"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "rig.yaml").write_text(text)
    return folder / "rig.yaml"


def _rig_alias_bomb() -> str:
    lines = ["when:", "  path: /v1/messages", '  l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"  l{n}: &l{n} [{','.join([f'*l{n - 1}'] * 9)}]" for n in range(1, 9)]
    return "\n".join([*lines, "then:", "  status: 200", "  body: *l8", ""])


def _vercel(tmp_path: Path, package: str, name: str, text: str) -> Path:
    folder = tmp_path / "packages" / package / "src" / "__fixtures__"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder / name


def _gz(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cassette.yaml.gz"
    path.write_bytes(gzip.compress(text.encode(), compresslevel=9))
    return path


def _httprr(tmp_path: Path, record: bytes) -> Path:
    path = tmp_path / "trace.httprr"
    path.write_bytes(b"httprr trace v1\n" + record)
    return path


def _record(request: bytes, response: bytes) -> bytes:
    return b"%d %d\n" % (len(request), len(response)) + request + response


def _block(levels: int, indent: int) -> str:
    return "".join("  " * (level + indent) + "- \n" for level in range(levels))


_DEEP = 2_000
HOSTILE_RECORDINGS = {
    "httpmock alias bomb": (lambda p: _rig(p, _rig_alias_bomb()), "aliases expand the document"),
    "httpmock flow nesting": (
        lambda p: _rig(p, "when: {path: /v1/messages}\nthen:\n  body: " + "[" * _DEEP + "]" * _DEEP + "\n"),
        "nests deeper than",
    ),
    "httpmock block nesting": (
        lambda p: _rig(p, "when:\n  path: /x\nthen:\n  body:\n" + _block(_DEEP, 2)),
        "nests deeper",
    ),
    "httpmock status of 5,000 digits": (
        lambda p: _rig(p, "when: {path: /v1/messages}\nthen:\n  status: " + "1" * 5000 + "\n"),
        "an integer of more than 1000 digits",
    ),
    "httpmock status of 5,000 quoted digits": (
        lambda p: _rig(p, "when: {path: /v1/messages}\nthen:\n  status: '" + "1" * 5000 + "'\n"),
        "is not an HTTP status code",
    ),
    "httprr size line of 5,000 digits": (lambda p: _httprr(p, b"1" * 5000 + b" 1\n"), "more than 12 digits"),
    "httprr status of 5,000 digits": (
        lambda p: _httprr(p, _record(b"POST https://x/ HTTP/1.1\r\n\r\n", b"HTTP/1.1 " + b"1" * 5000 + b" OK\r\n\r\n")),
        "is not an HTTP status code",
    ),
    ".yaml.gz flow nesting": (lambda p: _gz(p, "requests: " + "[" * 5000 + "]" * 5000 + "\n"), "nests deeper than"),
    ".yaml.gz block nesting": (lambda p: _gz(p, "requests:\n" + _block(1200, 1)), "nests deeper than"),
    ".yaml.gz past its inflation ratio": (lambda p: _gz(p, "requests: []\n" + "#" * 50_000_000), "inflates past"),
    "Vercel fixture nested 100,000 deep": (
        lambda p: _vercel(p, "anthropic", "deep.json", "[" * 100_000 + "]" * 100_000),
        "nests deeper than 100 levels",
    ),
    "Vercel chunks nested 100,000 deep": (
        lambda p: _vercel(p, "openai-compatible", "deep.chunks.txt", "{}\n" + "[" * 100_000 + "]" * 100_000),
        "line 2 nests deeper than 100 levels",
    ),
    **{
        f"Bedrock chunk {chunk}": (
            lambda p, chunk=chunk: _vercel(p, "amazon-bedrock", "x.chunks.txt", chunk + "\n"),
            "stream chunk 1 is not an event name and its payload",
        )
        for chunk in ("{}", "[1,2]", "5", '"x"', "null")
    },
}


@pytest.mark.parametrize("command", ["lint", "import"])
@pytest.mark.parametrize("name", HOSTILE_RECORDINGS)
def test_every_recording_format_refuses_hostile_input_in_one_line(name: str, command: str, tmp_path: Path) -> None:
    make, reason = HOSTILE_RECORDINGS[name]
    assert reason in _refused_in_one_line(command, make(tmp_path), tmp_path)


def _gz_within_its_ratio(tmp_path: Path) -> Path:
    """The shape of a gzip that inflates within the old bound (256 MB) and parses for minutes: a few
    hundred kilobytes of noise keep it within the ratio, and tens of megabytes of tiny nodes follow."""
    noise = base64.b64encode(random.Random(41).randbytes(300_000)).decode()
    path = _gz(tmp_path, f"# {noise}\nrequests:\n" + "- 0\n" * 8_000_000 + "responses: []\n")
    assert path.stat().st_size * bounds.INFLATION_FACTOR > 32_000_000
    return path


@pytest.mark.parametrize("command", ["lint", "import"])
def test_a_gzipped_cassette_within_its_ratio_is_refused_by_its_nodes(command: str, tmp_path: Path) -> None:
    assert "holds more than 100000 nodes" in _refused_in_one_line(command, _gz_within_its_ratio(tmp_path), tmp_path)


def test_the_node_bound_holds_over_every_document_of_a_stream() -> None:
    document = "when: {path: /x}\nthen: {body: [" + ",".join(["0"] * 1000) + "]}\n"
    with pytest.raises(yamlio.YamlError, match="holds more than"):
        yamlio.load_all_data("---\n".join([document] * 120), "many.yaml")
    assert len(yamlio.load_all_data("---\n".join([document] * 90), "many.yaml")) == 90


def test_aliases_are_bounded_over_every_document_of_a_stream() -> None:
    one = '{a: &a ["' + "x" * 1000 + '"], b: [' + ",".join(["*a"] * 500) + "]}\n"
    with pytest.raises(yamlio.YamlError, match="aliases expand"):
        yamlio.load_all_data("---\n".join([one] * 10), "aliases.yaml")


def test_httprr_chunks_are_joined_in_linear_time(tmp_path: Path) -> None:
    from conformance.importer.formats import load_recording

    body = b"".join(b"1\r\nx\r\n" for _ in range(400_000)) + b"0\r\n\r\n"
    request = b"POST https://api.openai.com/v1/chat/completions HTTP/1.1\r\n\r\n{}"
    response = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body
    path = _httprr(tmp_path, _record(request, response))
    started = time.process_time()
    cassette = load_recording(path)
    assert time.process_time() - started < 5  # 25 s when each chunk copied the rest of the body
    assert cassette.interactions[0].response.body == b"x" * 400_000
