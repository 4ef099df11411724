"""The Rust harnesses (harnesses/rust): the kit's protocol, and rig's and async-openai's tool loops on
the scenarios whose verdicts docs/findings.md traces to their sources.

The harnesses are built by `harnesses/rust/build` into a target directory outside the repository;
the module is skipped, with that command as the reason, where cargo or the build is missing (and
fails there when CI requires harnesses: tests/toolchains.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from toolchains import require

from conformance.connectors.harness import HarnessAdapter, problem
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import RunOptions, run_scenario

ROOT = Path(__file__).resolve().parents[1]
BUILD = "harnesses/rust/build"
RELEASE = (
    Path(os.environ.get("CARGO_TARGET_DIR") or Path.home() / ".cache" / "toolcall-conformance" / "cargo-target")
    / "release"
)
PROBE, RIG, ASYNC_OPENAI = RELEASE / "kit-probe", RELEASE / "rig-harness", RELEASE / "async-openai-harness"

for binary in (PROBE, RIG, ASYNC_OPENAI):
    require("cargo", built=binary, install=BUILD)


# --- the kit: the protocol every Rust harness speaks ------------------------------------------------


class _Probe:
    """kit-probe over its stdin/stdout, one JSON line each way."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [str(PROBE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    def ask(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        return answer

    def stop(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"cmd": "stop"}) + "\n")
        self.process.stdin.flush()
        return self.process.wait(timeout=10)


def _case(prompt: str, tools_url: str = "http://127.0.0.1:9/none") -> dict[str, Any]:
    return {
        "id": "openai-chat/one-call",
        "api": "openai-chat",
        "base_url": "http://127.0.0.1:9/v1",
        "api_key": "k",
        "model": "m",
        "prompt": prompt,
        "stream": False,
        "tools": [{"name": "get_weather", "parameters": {"type": "object"}}],
        "tools_url": tools_url,
    }


@pytest.fixture
def probe() -> Iterator[_Probe]:
    started = _Probe()
    yield started
    if started.process.poll() is None:
        started.process.kill()
        started.process.wait()


def test_the_kit_answers_start_with_a_valid_started(probe: _Probe) -> None:
    started = probe.ask({"cmd": "start", "version": 1})
    assert problem(started, "started") is None
    assert started["implementation"]["language"] == "rust"
    assert "unsupported" not in started["implementation"]  # an empty map is left out


def test_a_panic_is_the_case_errored_and_the_harness_goes_on(probe: _Probe) -> None:
    probe.ask({"cmd": "start", "version": 1})
    panicked = probe.ask({"cmd": "run", "seq": 1, "case": _case("panic")})
    assert problem(panicked, "ran") is None
    assert panicked["seq"] == 1
    assert panicked["errored"]["message"] == "panic: the probe panics as asked"
    assert "kit-probe.rs" in panicked["errored"]["detail"]
    assert probe.ask({"cmd": "run", "seq": 2, "case": _case("still here")}) == {
        "seq": 2,
        "ok": True,
        "output": "still here",
    }
    assert probe.stop() == 0


def test_errors_skips_and_bad_cases_have_their_forms(probe: _Probe) -> None:
    probe.ask({"cmd": "start", "version": 1})
    failed = probe.ask({"cmd": "run", "seq": 1, "case": _case("fail")})
    assert failed == {
        "seq": 1,
        "errored": {"message": "the probe fails as asked", "detail": failed["errored"]["detail"]},
    }
    assert probe.ask({"cmd": "run", "seq": 2, "case": _case("skip")}) == {
        "seq": 2,
        "skipped": "the probe skips as asked",
    }
    malformed = probe.ask({"cmd": "run", "seq": 3, "case": {"id": "x"}})
    assert problem(malformed, "ran") is None
    assert malformed["seq"] == 3
    assert malformed["errored"]["message"].startswith("the run command's case does not parse: missing field")


def test_stdout_holds_only_answers_and_eof_ends_the_harness(probe: _Probe) -> None:
    assert probe.process.stdin is not None and probe.process.stdout is not None
    probe.process.stdin.write('{"cmd": "start", "version": 1}\nnot json\n{"cmd": "bogus"}\n')
    probe.process.stdin.close()
    assert probe.process.wait(timeout=10) == 0
    lines = probe.process.stdout.read().splitlines()
    assert len(lines) == 1 and "implementation" in json.loads(lines[0])
    assert probe.process.stderr is not None
    logged = probe.process.stderr.read()
    assert "not JSON" in logged and "unknown command" in logged


class _Tools(BaseHTTPRequestHandler):
    received: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        _Tools.received.append(body)
        answer = json.dumps({"output": "18 C"}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: Any) -> None:
        pass


def test_call_tool_posts_a_tool_call_and_returns_its_output(probe: _Probe) -> None:
    server = HTTPServer(("127.0.0.1", 0), _Tools)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Tools.received.clear()
    try:
        probe.ask({"cmd": "start", "version": 1})
        url = f"http://127.0.0.1:{server.server_address[1]}/_conformance/tools/x"
        ran = probe.ask({"cmd": "run", "seq": 1, "case": _case("tool", url)})
    finally:
        server.shutdown()
        server.server_close()
    assert ran == {"seq": 1, "ok": True, "output": "18 C"}
    assert _Tools.received == [{"name": "get_weather", "arguments": {}, "call_id": "probe_1"}]
    assert problem(_Tools.received[0], "toolCall") is None


# --- the libraries: verdicts traced in docs/findings.md --------------------------------------------


def _run(adapter: HarnessAdapter, corpus: Corpus, scenario_id: str) -> CaseResult:
    return run_scenario(adapter, corpus.scenarios[scenario_id], corpus, options=RunOptions(timeout=60))


@pytest.fixture(scope="module")
def rig() -> Iterator[HarnessAdapter]:
    adapter = HarnessAdapter([str(RIG)])
    yield adapter
    adapter.close()


@pytest.fixture(scope="module")
def async_openai() -> Iterator[HarnessAdapter]:
    adapter = HarnessAdapter([str(ASYNC_OPENAI)])
    yield adapter
    adapter.close()


def test_the_rust_harnesses_name_their_columns(rig: HarnessAdapter, async_openai: HarnessAdapter) -> None:
    assert (rig.name, rig.version) == ("rig", "0.44.0")
    assert rig.identity()["libraries"] == "rig-agent 0.44.0, rig-core 0.44.0"
    assert "bedrock-converse" not in rig.apis and "cohere-v2" in rig.apis
    assert (async_openai.name, async_openai.version) == ("async-openai", "0.43.0")
    assert set(async_openai.apis) == {"openai-chat", "openai-responses", "openresponses", "azure-foundry"}


def _verdict(adapter: HarnessAdapter, corpus: Corpus, scenario_id: str) -> tuple[str, str, set[str], set[str]]:
    """A scenario's outcome, summary, and the codes of its errors and of its warnings."""
    result = _run(adapter, corpus, scenario_id)
    return result.outcome, result.summary, {v.code for v in result.errors}, {v.code for v in result.warnings}


def test_rig_keeps_streamed_openai_call_ids(rig: HarnessAdapter, corpus: Corpus) -> None:
    """0xPlaygrounds/rig#600 (streamed OpenAI call ids never set) is fixed: the chat decoder keeps
    each call's stated id by index (rig-core providers/openai/wire/chat.rs, ChatDecoder::call)."""
    assert _verdict(rig, corpus, "openai-chat/streamed-parallel-calls")[0] == "pass"


def test_rig_drops_a_call_served_without_a_name(rig: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, rig R1: a nameless call is dropped at decode (operation/completion.rs,
    `ToolName::new(name)` else return), so it goes back neither as a call nor with an output. The
    scenario marks that call droppable (send both, or neither), so leaving both out passes."""
    outcome, _, errors, _ = _verdict(rig, corpus, "openai-responses/gateway-nameless-call")
    assert (outcome, errors) == ("pass", set())


def test_rig_cannot_let_code_call_its_tools(rig: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, rig R2: rig's tool definitions have no allowed_callers, so its request could
    not have been served calls made from code execution: a skip naming the declaration."""
    outcome, summary, errors, _ = _verdict(rig, corpus, "anthropic-messages/programmatic-tool-calling")
    assert (outcome, errors) == ("skip", set()), summary
    assert "declared no allowed_callers 'code_execution_20250825' on its tool query_sales" in summary


def test_rig_names_id_less_ollama_calls_in_the_history(rig: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, rig R4: Ollama's id-less calls get local ids, spelled `tool-N` on the wire."""
    outcome, _, errors, warnings = _verdict(rig, corpus, "ollama-chat/id-less-parallel-same-tool")
    assert (outcome, errors, warnings) == ("pass", set(), {"roundtrip/invented-id"})


def test_rig_on_deepseek_sends_call_ids_not_tool_names(corpus: Corpus) -> None:
    """0xPlaygrounds/rig#370 (the tool name sent as the call id on DeepSeek) is gone: DeepSeek is a
    dialect of the shared Chat wire, which spells each call's own id."""
    adapter = HarnessAdapter([str(RIG), "--openai-chat=deepseek"])
    try:
        assert adapter.name == "rig-deepseek"
        assert _verdict(adapter, corpus, "openai-chat/parallel-same-tool")[0] == "pass"
    finally:
        adapter.close()


def test_async_openai_reads_chat_custom_calls_under_the_wrong_key(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, async-openai A1: ChatCompletionMessageCustomToolCall names its field
    `custom_tool`; the wire's key is `custom`."""
    outcome, summary, _, _ = _verdict(async_openai, corpus, "openai-chat/custom-tool-call")
    assert outcome == "error"
    assert "missing field `custom_tool`" in summary


def test_async_openai_cannot_read_foundry_items(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, async-openai A2: OutputItem has no variant for an item type it does not know."""
    outcome, summary, _, _ = _verdict(async_openai, corpus, "azure-foundry/bing-grounding-pairs")
    assert outcome == "error"
    assert "unknown variant `bing_grounding_call`" in summary


def test_the_stream_example_takes_an_empty_id_over_the_first(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, async-openai A5: the tool-call-stream example sets the call's id from every
    chunk that has one, `""` included."""
    outcome, _, errors, _ = _verdict(async_openai, corpus, "openai-chat/streamed-empty-ids-after-first")
    assert outcome == "fail"
    assert "roundtrip/empty-id" in errors


def test_the_stream_example_leaves_a_call_below_index_one(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, async-openai A5: the example grows its call list to the index, so calls
    streamed from index 1 leave an empty call at 0, sent back with a result of its own."""
    outcome, _, errors, _ = _verdict(async_openai, corpus, "openai-chat/streamed-indices-from-one")
    assert (outcome, errors) == ("fail", {"pairing/missing-result", "pairing/orphan-result"})


def test_async_openai_responses_calls_pass(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    assert _verdict(async_openai, corpus, "openai-responses/parallel-results-reversed")[0] == "pass"
    assert _verdict(async_openai, corpus, "openresponses/streamed-parallel-calls")[0] == "pass"


def test_rig_ends_the_run_at_an_item_the_application_must_answer(rig: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, rig R3: only ToolCall content continues a run (rig-agent run/mod.rs,
    has_tool_calls), so a local_shell_call ends it after the first request."""
    outcome, summary, errors, _ = _verdict(rig, corpus, "openai-responses/local-shell-call")
    assert (outcome, errors) == ("fail", {"pairing/calls-unanswered"})
    assert "never requested" in summary


def test_async_openai_requires_a_custom_tool_format(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, async-openai A3: CustomToolParam.format has no serde default."""
    outcome, summary, _, _ = _verdict(async_openai, corpus, "openai-responses/streamed-function-and-custom")
    assert outcome == "error"
    assert "missing field `format`" in summary


def test_async_openai_adds_nulls_to_a_web_search_action(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, async-openai A4: WebSearchActionSearch serializes `queries` and `sources` as
    null, and FileSearchToolCallResult requires `attributes`."""
    outcome, summary, errors, _ = _verdict(async_openai, corpus, "openai-responses/hosted-tools-in-history")
    assert (outcome, errors) == ("fail", {"roundtrip/arguments-altered"})
    assert "missing field `attributes`" in summary


def test_async_openai_skips_items_its_examples_do_not_answer(async_openai: HarnessAdapter, corpus: Corpus) -> None:
    result = _run(async_openai, corpus, "openai-responses/computer-use")
    assert result.outcome == "skip"
    assert "'computer_use_preview'" in result.summary
