"""Hostile harnesses and isolated adapters, as the supervisor meets them: every one of these once
ended the run, stalled it forever or filled the suite's memory. Each child is a few lines of
Python speaking the JSON-lines protocol, started under the suite's `Supervisor`."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.connectors.supervisor import STDERR_LINE, Fault, Supervisor
from conformance.corpus.loading import Corpus

# A child that answers each command with {"seq": N, "ok": true}, after doing what `before` says.
TEMPLATE = """
import json, os, subprocess, sys
for line in sys.stdin:
    command = json.loads(line)
    seq = command.get("seq")
{before}
    sys.stdout.write(json.dumps({{"seq": seq, "ok": True}}) + "\\n")
    sys.stdout.flush()
"""


def _child(tmp_path: Path, before: str) -> list[str]:
    script = tmp_path / "child.py"
    script.write_text(TEMPLATE.format(before=textwrap.indent(textwrap.dedent(before), "    ")))
    return [sys.executable, str(script)]


@pytest.fixture
def stopped() -> Iterator[list[Supervisor]]:
    started: list[Supervisor] = []
    yield started
    for supervisor in started:
        supervisor.stop(kill=True)


def _supervisor(argv: list[str], started: list[Supervisor]) -> Supervisor:
    supervisor = Supervisor(argv, name="the child")
    started.append(supervisor)
    return supervisor


@pytest.mark.parametrize("opening", ["[", '{"a":', '{"seq": 1, "x": ['])
def test_a_deeply_nested_answer_is_garbage_not_the_end_of_the_run(
    tmp_path: Path, stopped: list[Supervisor], opening: str
) -> None:
    argv = _child(tmp_path, f"sys.stdout.write({opening!r} * 200000 + '\\n'); sys.stdout.flush(); continue")
    supervisor = _supervisor(argv, stopped)
    answer = supervisor.ask({"cmd": "run", "seq": 1}, timeout=30)
    assert isinstance(answer, Fault) and answer.kind == "garbage"
    assert "nests deeper than 100 levels" in answer.summary


def test_a_second_answer_is_not_taken_for_the_next_command(tmp_path: Path, stopped: list[Supervisor]) -> None:
    # Answers every command twice: the second copy must not become the next command's answer.
    argv = _child(tmp_path, 'sys.stdout.write(json.dumps({"seq": seq, "ok": True}) + "\\n")')
    supervisor = _supervisor(argv, stopped)
    for seq in range(1, 6):
        answer = supervisor.ask({"cmd": "run", "seq": seq}, timeout=30)
        assert answer == {"seq": seq, "ok": True}
    assert supervisor.stale >= 4
    assert supervisor.starts == 1


def test_a_late_second_answer_is_dropped_too(tmp_path: Path, stopped: list[Supervisor]) -> None:
    # The copy comes after the next command was sent: the sequence number tells it apart.
    before = """
    if seq and seq > 1:
        sys.stdout.write(json.dumps({"seq": seq - 1, "ok": "late"}) + "\\n")
    """
    supervisor = _supervisor(_child(tmp_path, before), stopped)
    for seq in range(1, 4):
        assert supervisor.ask({"cmd": "run", "seq": seq}, timeout=30) == {"seq": seq, "ok": True}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="finds the pipe's holders in /proc")
@pytest.mark.parametrize("answers", [False, True])
def test_a_setsid_grandchild_holding_the_pipe_does_not_stall_the_run(
    tmp_path: Path, stopped: list[Supervisor], answers: bool
) -> None:
    pid_file = tmp_path / "grandchild.pid"
    before = f"""
    grandchild = subprocess.Popen(["setsid", sys.executable, "-c", "import time; time.sleep(300)"])
    open({str(pid_file)!r}, "w").write(str(grandchild.pid))
    """
    if not answers:
        before = textwrap.dedent(before) + "os._exit(3)\n"
    supervisor = _supervisor(_child(tmp_path, before), stopped)
    started = time.monotonic()
    answer = supervisor.ask({"cmd": "run", "seq": 1}, timeout=60)
    if answers:
        assert answer == {"seq": 1, "ok": True}
        supervisor.stop()
    else:
        assert isinstance(answer, Fault) and answer.kind == "crash", answer
        assert "exited with status 3" in answer.summary
    assert time.monotonic() - started < 15
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(grandchild):
        os.kill(grandchild, signal.SIGKILL)
        pytest.fail("the grandchild holding the pipe was left running")


def test_a_huge_stderr_line_keeps_only_its_start(tmp_path: Path, stopped: list[Supervisor]) -> None:
    size = 48 * 1024 * 1024
    before = f"""
    if seq == 1:
        chunk = b"e" * (1024 * 1024)
        for _ in range({size} // len(chunk)):
            sys.stderr.buffer.write(chunk)
        sys.stderr.buffer.write(b"\\nlast line\\n")
        sys.stderr.flush()
    """
    supervisor = _supervisor(_child(tmp_path, before), stopped)
    tracemalloc.start()
    try:
        assert supervisor.ask({"cmd": "run", "seq": 1}, timeout=60) == {"seq": 1, "ok": True}
        deadline = time.monotonic() + 30
        while "last line" not in supervisor.stderr_tail() and time.monotonic() < deadline:
            time.sleep(0.05)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    tail = supervisor.stderr_tail()
    assert tail.endswith("last line")
    assert "[line cut]" in tail and len(tail) < 2 * STDERR_LINE
    assert peak < 16 * 1024 * 1024, peak


@settings(max_examples=25, deadline=None)
@given(
    extra=st.lists(
        st.sampled_from(
            [
                '{"seq": 0, "ok": "stale"}',
                "[[[[[[[[",
                "not json",
                '{"seq": -1}',
                '{"seq": true, "ok": "bool seq"}',
            ]
        ),
        max_size=3,
    ),
)
def test_every_answer_stream_gets_an_answer_or_a_fault(
    tmp_path_factory: pytest.TempPathFactory, extra: list[str]
) -> None:
    tmp_path = tmp_path_factory.mktemp("child")
    lines = "".join(f"    sys.stdout.write({line!r} + '\\n')\n" for line in extra)
    supervisor = Supervisor(_child(tmp_path, "pass\n" + textwrap.dedent(lines) if lines else "pass"), name="child")
    try:
        answer = supervisor.ask({"cmd": "run", "seq": 1}, timeout=30)
        assert isinstance(answer, Fault) or answer.get("seq") in (1, True)
    finally:
        supervisor.stop(kill=True)


def test_the_child_is_gone_after_stop(tmp_path: Path) -> None:
    supervisor = Supervisor(_child(tmp_path, "pass"), name="child")
    assert supervisor.ask({"cmd": "run", "seq": 1}, timeout=30) == {"seq": 1, "ok": True}
    process = supervisor._process
    assert process is not None
    supervisor.stop()
    assert process.poll() is not None


def test_a_stop_while_the_child_starts_on_another_thread_joins_no_reader_that_never_ran(tmp_path: Path) -> None:
    """The pytest plugin starts an isolated adapter's worker on a thread of its own and closes it on a usage
    error: a stop that lands while the readers are being made must not join one not started yet (it raised
    "cannot join thread before it is started", and the run exited 1 instead of pytest's usage error, 4)."""
    import threading

    supervisor = Supervisor(_child(tmp_path, "pass"), name="child")
    assert supervisor.ask({"cmd": "run", "seq": 1}, timeout=30) == {"seq": 1, "ok": True}
    not_yet = threading.Thread(target=lambda: None, daemon=True)  # made, as a starting supervisor makes it
    supervisor._readers.append(not_yet)
    supervisor.stop(kill=True)
    assert supervisor._process is None or supervisor._process.poll() is not None


# --- what a harness says reaches the terminal as text; what the suite holds does not reach it ------


def _unruly(behaviour: str) -> str:
    return f"{sys.executable} {Path(__file__).resolve().parent / 'harnesses' / 'unruly.py'} {behaviour}"


def test_a_harness_cannot_drive_the_terminal(corpus: Corpus) -> None:
    from conformance.connectors.harness import HarnessAdapter
    from conformance.reports.textreport import case_text
    from conformance.running.runner import RunOptions, run_scenario

    harness = HarnessAdapter(_unruly("control"))
    try:
        result = run_scenario(harness, corpus.scenarios["openai-chat/one-call"], corpus, options=RunOptions(timeout=30))
    finally:
        harness.close()
    printed = case_text(result, harness.name) + harness.name + result.summary
    assert result.outcome == "error"
    for character in ("\x1b", "\x07", "\r", "\u202e"):
        assert character not in printed and character not in harness.name
    assert "\\x1b]0;owned\\x07" in harness.name and "\\u202e" in result.summary
    assert "at line 1" in result.detail and "\nat line 2" in result.detail  # a stack trace keeps its lines


def test_a_harness_is_not_given_the_suites_credentials(corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.connectors.harness import HarnessAdapter
    from conformance.running.runner import RunOptions, run_scenario

    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "SOME_VENDOR_TOKEN"):
        monkeypatch.setenv(name, "sk-the-suites-own")
    harness = HarnessAdapter(_unruly("environment"))
    try:
        result = run_scenario(harness, corpus.scenarios["openai-chat/one-call"], corpus, options=RunOptions(timeout=30))
    finally:
        harness.close()
    assert result.summary.endswith("credentials: "), result.summary


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="child subreapers are Linux's")
def test_a_daemon_a_harness_leaves_does_not_outlive_it(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It forks twice, calls setsid and closes its streams: in no group, session or pipe of the harness."""
    from conformance.connectors.harness import HarnessAdapter
    from conformance.running.runner import RunOptions, run_scenario

    pid_file = tmp_path / "daemon.pid"
    monkeypatch.setenv("UNRULY_PID_FILE", str(pid_file))
    harness = HarnessAdapter(_unruly("daemon"))
    try:
        result = run_scenario(harness, corpus.scenarios["openai-chat/one-call"], corpus, options=RunOptions(timeout=30))
        assert result.outcome == "pass", result.summary
        deadline = time.monotonic() + 10
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the daemon never started"
            time.sleep(0.05)
        daemon = int(pid_file.read_text())
        assert _alive(daemon)
    finally:
        harness.close()
    deadline = time.monotonic() + 10
    while _alive(daemon) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(daemon):
        os.kill(daemon, signal.SIGKILL)
        pytest.fail("the daemon outlived the harness")
