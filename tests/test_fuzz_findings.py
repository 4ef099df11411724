"""Regressions for what fuzzing from outside found: crashes on bad input, blowups, wrong outcomes.

Each test is one finding: the input that broke the suite, and the located message or outcome it
gets now. The property-based tests beside this file (test_fuzz_cassettes.py, test_fuzz_cases.py,
test_fuzz_adapters.py) search for more of the same.
"""

from __future__ import annotations

import copy
import dataclasses
import gzip
import json
import os
import re
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from conftest import ROOT

from conformance.cli import main
from conformance.commands import lint as lint_command
from conformance.corpus.loading import Corpus, Limit, load_corpus
from conformance.recordings import bounds
from conformance.reference import ADAPTER as REFERENCE
from conformance.running.runner import run_scenario

ONE_CALL = ROOT / "cassettes" / "openai-chat" / "one-call.yaml"
STREAMED = ROOT / "cassettes" / "openai-chat" / "streamed-parallel-calls.yaml"


def _cassette(source: Path = ONE_CALL) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(source.read_text())
    return data


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _within(seconds: float, fn: Callable[[], Any]) -> Any:
    """Run fn, failing the test (not hanging it) when it takes longer than `seconds`."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:
            box["error"] = exc

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still running after {seconds} s"
    if "error" in box:
        raise box["error"]
    return box.get("value")


_CORPUS: list[Corpus] = []


def _lint(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, str]:
    if not _CORPUS:
        _CORPUS.append(load_corpus())
    with mock.patch.object(
        lint_command, "corpus_of", lambda args, **kwargs: _CORPUS[0]
    ):  # loaded once for every lint here
        code = main(["lint", *map(str, paths)])
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "Traceback" not in out
    return code, out


def _bomb(levels: int = 9, width: int = 9) -> str:
    """A billion-laughs document in YAML flow style: `levels` lists of `width` aliases each."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels):
        lines.append(f"l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * width)}]")
    return "\n".join(lines)


# --- 18.5: tiny inputs that exhaust memory or time ------------------------------------------


@pytest.mark.parametrize("where", ["parsed_body", "header"])
def test_a_yaml_alias_bomb_in_a_cassette_is_refused_at_once(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = "    parsed_body: *l8" if where == "parsed_body" else "    headers: {x-bomb: *l8}"
    text = f"""{_bomb()}
interactions:
- request:
    method: POST
    uri: https://api.openai.com/v1/chat/completions
{target}
  response:
    status: {{code: 200}}
    body: {{string: '{{}}'}}
"""
    assert len(_bomb()) < 700
    path = tmp_path / "bomb.yaml"
    path.write_text(text)
    code, out = _within(60, lambda: _lint(capsys, path))  # expanded, it would take hours, or all memory
    assert code == 2
    assert f"{path}: unreadable: invalid YAML (line" in out and "aliases expand the document" in out
    assert len(out) < 2_000


def test_a_yaml_alias_bomb_in_a_case_file_is_one_located_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenarios = tmp_path / "cases" / "scenarios" / "openai-chat"
    scenarios.mkdir(parents=True)
    case = (ROOT / "cases" / "scenarios" / "openai-chat" / "one-call.yaml").read_text()
    case = case.replace("id: openai-chat/one-call", "id: openai-chat/bomb").replace(
        "- name: get_weather", "- name: *l8"
    )
    (scenarios / "bomb.yaml").write_text(f"{_bomb()}\n{case}")
    assert main(["check", "--no-examples", "--cases", str(tmp_path / "cases")]) == 1
    out = capsys.readouterr().out
    assert re.search(
        rf"{re.escape(str(scenarios / 'bomb.yaml'))}:\d+: \[yaml\] invalid YAML: aliases expand the document", out
    )
    assert len(out) < 10_000


def test_a_gzip_bomb_is_refused_without_inflating_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bomb_path = tmp_path / "zeros.gz"
    with gzip.GzipFile(bomb_path, "wb", compresslevel=1) as out:
        block = bytes(1 << 20)
        for _ in range(bounds.MAX_BODY_BYTES // len(block) + 16):  # past the bound, a few hundred KB compressed
            out.write(block)
    data = _cassette()
    response = data["interactions"][0]["response"]
    response["headers"]["content-encoding"] = ["gzip"]
    response["body"] = {"string": bomb_path.read_bytes()}
    path = _write(tmp_path / "gzip-bomb.yaml", data)
    tracemalloc.start()
    try:
        code, out = _lint(capsys, path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2
    assert re.search(r"decompresses to more than \d+ bytes \(interaction 0\)", out)
    assert peak < 3 * bounds.MAX_BODY_BYTES


def test_a_truncated_gzip_body_is_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _cassette()
    data["interactions"][1]["response"]["body"] = {"string": gzip.compress(b'{"choices": []}')[:-6]}
    code, out = _lint(capsys, _write(tmp_path / "cut.yaml", data))
    assert code == 2 and "cut off before the end of its compressed stream (interaction 1)" in out


def test_fifos_and_devices_are_refused_without_blocking(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    code, out = _within(10, lambda: _lint(capsys, fifo, Path("/dev/zero"), ONE_CALL))
    assert code == 2
    assert f"{fifo}: unreadable: cannot read: a FIFO, not a regular file" in out
    assert "/dev/zero: unreadable: cannot read: a character device, not a regular file" in out
    assert f"{ONE_CALL}: 2 interaction(s); checked openai-chat (2): clean" in out  # and the run went on


def test_a_fifo_among_the_case_files_is_a_problem_of_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenarios = tmp_path / "cases" / "scenarios" / "openai-chat"
    scenarios.mkdir(parents=True)
    os.mkfifo(scenarios / "pipe.yaml")
    assert _within(30, lambda: main(["check", "--no-examples", "--cases", str(tmp_path / "cases")])) == 1
    assert "pipe.yaml: [yaml] cannot read: a FIFO, not a regular file" in capsys.readouterr().out


def test_a_file_over_the_size_bound_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "MAX_FILE_BYTES", 1000)
    monkeypatch.setattr(bounds.read_file, "__defaults__", (1000,))
    path = tmp_path / "big.yaml"
    path.write_text("x" * 2000)
    with pytest.raises(bounds.BoundsError, match="2000 bytes; files may be at most 1000 bytes"):
        bounds.read_file(path)


# --- 18.4: deep nesting --------------------------------------------------------------------


def _conformance(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "conformance.cli", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


@pytest.mark.parametrize("levels", [1_000, 100_000])
def test_deep_nesting_is_refused_by_lint_check_and_run(levels: int, tmp_path: Path) -> None:
    """100,000 levels overflowed libyaml's C stack (a segfault); 1,000 raised RecursionError."""
    deep = "[" * levels + "]" * levels
    cassette = tmp_path / "deep.yaml"
    cassette.write_text(ONE_CALL.read_text().replace("  response:\n", f"    parsed_body: {deep}\n  response:\n", 1))
    lint = _conformance("lint", str(cassette), cwd=tmp_path)
    assert lint.returncode == 2, lint.stderr
    assert "nests deeper than" in lint.stdout and "Traceback" not in lint.stdout + lint.stderr

    scenarios = tmp_path / "cases" / "scenarios" / "openai-chat"
    scenarios.mkdir(parents=True)
    case = (ROOT / "cases" / "scenarios" / "openai-chat" / "one-call.yaml").read_text()
    case = case.replace("id: openai-chat/one-call", "id: openai-chat/deep")
    (scenarios / "deep.yaml").write_text(case + "deep: " + deep + "\n")
    line = case.count("\n") + 1
    check = _conformance("check", "--no-examples", "--cases", str(tmp_path / "cases"), cwd=tmp_path)
    assert check.returncode == 1, check.stderr
    assert f"deep.yaml:{line}: [yaml] invalid YAML: nests deeper than 100 levels" in check.stdout
    run = _conformance("run", "--api", "openai-chat", "--cases", str(tmp_path / "cases"), cwd=tmp_path)
    assert run.returncode == 2 and "nests deeper than 100 levels" in run.stderr
    assert "Traceback" not in check.stdout + check.stderr + run.stdout + run.stderr
    if levels < 100_000:
        return
    options = ["--conformance-adapter=reference", f"--conformance-cases={tmp_path / 'cases'}"]
    plugin = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *options, "--conformance-api=openai-chat"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert plugin.returncode == 4  # pytest's usage error, not a crash
    assert "nests deeper than 100 levels" in plugin.stdout + plugin.stderr


@pytest.mark.parametrize("load", ["load_text", "load_data"])
@pytest.mark.parametrize("opening", ["[", "- "])
def test_the_suites_nesting_bound_is_met_before_any_parsers_own(load: str, opening: str) -> None:
    """PyYAML 6.0.4's libyaml refuses 1,000 flow levels in its own words, before the suite's
    bound is met; whatever the installed parser does, the refusal is the suite's, located, and
    quick at a million levels (PyYAML's pure scanner is quadratic in an unbounded run)."""
    from conformance.recordings import yamlio

    if opening == "[":
        text = "a: " + "[" * 1_000_000 + "]" * 1_000_000
    else:  # block sequences, each indented under the last
        text = "a:\n" + "".join(f"{'  ' * level}- \n" for level in range(2_000))
    bound = yamlio._PlainLoader.max_depth if load == "load_data" else bounds.MAX_DEPTH
    started = time.perf_counter()
    with pytest.raises(yamlio.YamlError, match=f"invalid YAML: nests deeper than {bound} levels") as raised:
        getattr(yamlio, load)(text, "deep.yaml")
    assert raised.value.line is not None and time.perf_counter() - started < 10


def test_a_deep_json_body_is_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _cassette()
    data["interactions"][1]["response"]["body"] = {"string": "[" * 50_000 + "]" * 50_000}
    code, out = _lint(capsys, _write(tmp_path / "deep-json.yaml", data))
    assert code == 2 and "interaction[1]: response[1]: response body nests deeper than 100 levels" in out


# --- 18.4: wrong-typed content ---------------------------------------------------------------


def _chat_response(message: Any) -> dict[str, Any]:
    return {
        "status": {"code": 200},
        "headers": {"content-type": ["application/json"]},
        "body": {"string": json.dumps(message)},
    }


BROKEN: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "status-not-an-integer": (
        lambda d: d["interactions"][0]["response"].update(status={"code": "OK"}),
        "unreadable: the response status 'OK' is not an HTTP status code (100 to 599) (interaction 0)",
    ),
    "status-a-list": (
        lambda d: d["interactions"][0]["response"].update(status={"code": [200]}),
        "is not an HTTP status code (100 to 599) (interaction 0)",
    ),
    "choices-not-a-list": (
        lambda d: d["interactions"][0].update(response=_chat_response({"choices": "none"})),
        "unreadable: interaction[0]: response[0].choices: a Chat Completions response needs choices[0]",
    ),
    "tool-calls-of-integers": (
        lambda d: d["interactions"][0].update(
            response=_chat_response({"choices": [{"message": {"role": "assistant", "tool_calls": [1, 2]}}]})
        ),
        "unreadable: interaction[0]: response[0].choices[0].message.tool_calls[0]: a tool_calls entry is not an object",
    ),
    "integer-call-id-served": (
        lambda d: d["interactions"][0].update(
            response=_chat_response(
                {"choices": [{"message": {"tool_calls": [{"id": 7, "function": {"name": "f", "arguments": "{}"}}]}}]}
            )
        ),
        "response[0].choices[0].message.tool_calls[0].id: the call id is an integer (7), not a string",
    ),
    "name-a-list-served": (
        lambda d: d["interactions"][0].update(
            response=_chat_response(
                {
                    "choices": [
                        {"message": {"tool_calls": [{"id": "c", "function": {"name": ["f"], "arguments": "{}"}}]}}
                    ]
                }
            )
        ),
        "response[0].choices[0].message.tool_calls[0].name: the tool name is a list, not a string",
    ),
    "function-a-string-sent": (
        lambda d: d["interactions"][1]["request"].update(
            body=d["interactions"][1]["request"]["body"].replace(
                '"function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}', '"function":"get_weather"'
            )
        ),
        "request[1].messages[1].tool_calls[0].function: is a str, not an object",
    ),
    "integer-result-id-sent": (
        lambda d: d["interactions"][1]["request"].update(
            body=d["interactions"][1]["request"]["body"].replace(
                '"tool_call_id":"call_Vq3XbR0LkS8mJ2tN6yPw4cDe"', '"tool_call_id":12'
            )
        ),
        "request[1].messages[2].tool_call_id: the result's call id is an integer (12), not a string",
    ),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_lint_locates_wrong_types_and_goes_on(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    breaks, message = BROKEN[name]
    data = _cassette()
    breaks(data)
    broken = _write(tmp_path / f"{name}.yaml", data)
    code, out = _lint(capsys, broken, ONE_CALL)
    assert code == 2, out
    assert message in out
    assert f"{ONE_CALL}: 2 interaction(s); checked openai-chat (2): clean" in out


@pytest.mark.parametrize("tag", ["!!set {a, b}", "!!timestamp 2001-12-14t21:59:43.10-05:00", "!!binary aGVsbG8="])
def test_yaml_types_json_cannot_carry_are_located_in_bodies(
    tag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = ONE_CALL.read_text().replace(
        "  response:\n", f"    parsed_body: {{messages: [], odd: {tag}}}\n  response:\n", 1
    )
    code, out = _lint(capsys, _write_text(tmp_path / "tagged.yaml", text))
    assert code == 2
    assert "the request's parsed_body holds" in out and "which JSON cannot carry (interaction 0)" in out


@pytest.mark.parametrize(
    ("tag", "message"),
    [
        ("!!int twelve", "'twelve' is not 'int' data"),
        ("!!float abc", "'abc' is not 'float' data"),
        ("!!bool maybe", "'maybe' is not 'bool' data"),
        ("!!timestamp soon", "'soon' is not 'timestamp' data"),
    ],
)
def test_a_tag_its_text_cannot_carry_is_located(
    tag: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PyYAML's constructors raise bare ValueError or KeyError on these; lint once ended in a traceback."""
    text = ONE_CALL.read_text().replace("  response:\n", f"    odd: {tag}\n  response:\n", 1)
    line = text.splitlines().index(f"    odd: {tag}") + 1
    code, out = _lint(capsys, _write_text(tmp_path / "tagged.yaml", text), ONE_CALL)
    assert code == 2, out
    assert f"invalid YAML (line {line}): {message}" in out
    assert f"{ONE_CALL}: 2 interaction(s); checked openai-chat (2): clean" in out


def _write_text(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_python_tags_are_read_as_data_and_never_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # vcrpy cassettes recorded through aiohttp carry such tags: read as the data under them, never called.
    marker = tmp_path / "ran"
    text = ONE_CALL.read_text() + f"x: !!python/object/apply:pathlib.Path.touch [{json.dumps(str(marker))}]\n"
    code, out = _lint(capsys, _write_text(tmp_path / "python.yaml", text))
    assert code == 0 and "clean" in out, out
    assert not marker.exists()


def test_a_broken_stream_is_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _cassette(STREAMED)
    body = data["interactions"][0]["response"]["body"]["string"]
    data["interactions"][0]["response"]["body"]["string"] = body.replace('"tool_calls":[', '"tool_calls":"x', 1)
    code, out = _lint(capsys, _write(tmp_path / "stream.yaml", data))
    assert code == 2 and "unreadable: interaction[0]: response[0]: event[" in out


# --- 18.6: patterns compile at check time ----------------------------------------------------


def test_check_reports_a_pattern_that_does_not_compile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wire_types = tmp_path / "cases" / "wire-types" / "openai-chat"
    wire_types.mkdir(parents=True)
    source = ROOT / "cases" / "wire-types" / "openai-chat" / "ChatCompletionMessageToolCall.yaml"
    document = yaml.safe_load(source.read_text())
    document["id"] = "openai-chat/BrokenPatternCall"
    document["name"] = "BrokenPatternCall"
    document["description"] = "A wire type whose id pattern does not compile"
    document["id_fields"][0]["limits"] = [
        {"max_length": 40, "observed": "2026-01-01", "source": "https://example.com/limits"},
        {"pattern": "[a-z", "observed": "2026-01-01", "source": "https://example.com/limits"},
    ]
    path = wire_types / "BrokenPatternCall.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "pattern: '[a-z'" in text)
    assert main(["check", "--no-examples", "--cases", str(tmp_path / "cases")]) == 1
    out = capsys.readouterr().out
    assert f"{path}:{line}: [pattern] id_fields.0.limits.1.pattern '[a-z' is not a regular expression" in out


def test_a_pattern_that_fails_in_the_rules_is_an_error_outcome_not_a_crash(corpus: Corpus) -> None:
    broken = copy.copy(corpus)
    broken.wire_types = dict(corpus.wire_types)
    case = corpus.wire_types["openai-chat/ChatCompletionMessageToolCall"]
    bad = Limit(max_length=None, min_length=None, pattern="[", observed="2026", enforced=True, source="test")
    fields = tuple(dataclasses.replace(f, limits=(bad,)) for f in case.id_fields)
    broken.wire_types[case.id] = dataclasses.replace(case, id_fields=fields)
    result = run_scenario(REFERENCE, broken.scenarios["openai-chat/one-call"], broken)
    assert result.outcome == "error"
    assert result.summary.startswith("the suite failed while running this case (in engine/rules/idformat.py): error:")
    assert "Traceback" in result.detail


def test_the_bounds_hold_with_the_pure_python_loader() -> None:
    """The pure-Python PyYAML loader (the fallback where the C one is missing) keeps every bound."""
    from conformance.recordings import yamlio

    class Pure(yamlio._Bounded, yaml.SafeLoader):  # type: ignore[misc]
        yaml_implicit_resolvers = yamlio._Loader.yaml_implicit_resolvers
        yaml_constructors = yamlio._Loader.yaml_constructors

    inputs = {
        "deep": ("a: " + "[" * 1_000 + "]" * 1_000, "nests deeper than 100 levels"),
        "deeper": ("- " * 100_000 + "x", "nests deeper than 100 levels"),
        "bomb": (_bomb() + "\nx: *l8\n", "aliases expand the document"),
    }
    for text, message in inputs.values():
        with pytest.raises(yamlio.YamlError, match=message) as raised:
            yamlio._load(text, "pure.yaml", Pure)
        assert raised.value.line is not None
    assert yamlio._load("a: [1, {b: 2}]\nc: 2026-01-01\n", "pure.yaml", Pure) == {"a": [1, {"b": 2}], "c": "2026-01-01"}
