"""Adapter faults found by fuzzing: each is an `error` outcome for its case, never the end of a run.

An integer id, a `"function"` that is a string, an object whose `__eq__` raises, an exception
whose `__str__` raises, a BaseException of the adapter's own, `sys.exit`: each used to end
`conformance run` with a traceback and no results file (or to blame the bundled cassette).
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from fuzzing import OwnBaseException, RaisingEquality, UnprintableError

from conformance.cli import main
from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus
from conformance.reference.openai_chat import OpenAIChatCodec
from conformance.running.runner import run_scenario, run_suite

SCENARIO = "openai-chat/one-call"


def _calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in message["parts"] if p.get("type") == "tool_call"]


class _Hostile(OpenAIChatCodec):
    """The reference codec with one fault: `decoded` changes a decoded message, `encoded` a body."""

    def __init__(self, decoded: Any = None, encoded: Any = None, raises: BaseException | None = None) -> None:
        self.decoded, self.encoded, self.raises = decoded, encoded, raises

    def decode(self, response: dict[str, Any]) -> Any:
        if self.raises is not None:
            raise self.raises
        message = super().decode(response)
        return self.decoded(message) if self.decoded else message

    def encode(self, conversation: Any) -> dict[str, Any]:
        body = super().encode(conversation)
        return self.encoded(body) if self.encoded else body


def _set_call(field: str, value: Any) -> Any:
    def change(message: dict[str, Any]) -> dict[str, Any]:
        for part in _calls(message):
            part[field] = value
        return message

    return change


def _drop_call_field(field: str) -> Any:
    def change(message: dict[str, Any]) -> dict[str, Any]:
        for part in _calls(message):
            del part[field]
        return message

    return change


def _function_as_string(body: dict[str, Any]) -> dict[str, Any]:
    for message in body["messages"]:
        for call in message.get("tool_calls") or []:
            call["function"] = call["function"]["name"]
    return body


def _integer_result_ids(body: dict[str, Any]) -> dict[str, Any]:
    for message in body["messages"]:
        if message.get("role") == "tool":
            message["tool_call_id"] = 12
    return body


FAULTS: dict[str, tuple[_Hostile, str]] = {
    "integer-call-id-decoded": (
        _Hostile(decoded=_set_call("call_id", 7)),
        "the adapter's decode of turn 0 returned a tool_call part whose call_id is an integer, not a string or null",
    ),
    "tool-call-without-a-name": (
        _Hostile(decoded=_drop_call_field("name")),
        "the adapter's decode of turn 0 returned a tool_call part without a name (parts[0])",
    ),
    "tool-call-with-a-null-name": (
        _Hostile(decoded=_set_call("name", None)),
        "the adapter's decode of turn 0 returned a tool_call part without a name (parts[0])",
    ),
    "tool-call-without-arguments": (
        _Hostile(decoded=_drop_call_field("arguments")),
        "the adapter's decode of turn 0 returned a tool_call part without arguments (parts[0])",
    ),
    "arguments-a-list": (
        _Hostile(decoded=_set_call("arguments", [1, 2])),
        "returned a tool_call part whose arguments is a list, not an object or a string (parts[0])",
    ),
    "unknown-part-type": (
        _Hostile(decoded=_set_call("type", "function_call")),
        "returned a part of unknown type 'function_call' (known: text, tool_call, tool_result) (parts[0])",
    ),
    "wrong-role": (
        _Hostile(decoded=lambda m: {**m, "role": "model"}),
        "returned a message whose role is 'model'; a response decodes to 'assistant'",
    ),
    "an-object-whose-eq-raises": (
        _Hostile(decoded=_set_call("call_id", RaisingEquality())),
        "returned a message that is not JSON data: TypeError: Object of type RaisingEquality is not JSON serializable",
    ),
    "deep-nesting-returned": (
        _Hostile(decoded=_set_call("arguments", {"a": json.loads("[" * 500 + "]" * 500)})),
        "returned a message nesting deeper than 100 levels",
    ),
    "function-sent-as-a-string": (
        _Hostile(encoded=_function_as_string),
        "the adapter sent a body that is not an openai-chat request: request[1].messages[1].tool_calls[0].function: "
        "is a str, not an object",
    ),
    "integer-result-id-sent": (
        _Hostile(encoded=_integer_result_ids),
        "request[1].messages[2].tool_call_id: the result's call id is an integer (12), not a string",
    ),
    "an-exception-whose-str-raises": (
        _Hostile(raises=UnprintableError()),
        "the adapter failed in decode of turn 0: UnprintableError: <UnprintableError: str() raised>",
    ),
    "a-base-exception-of-its-own": (
        _Hostile(raises=OwnBaseException("mine")),
        "the adapter failed in decode of turn 0: OwnBaseException: mine",
    ),
    "sys-exit": (_Hostile(raises=SystemExit(3)), "the adapter failed in decode of turn 0: SystemExit: 3"),
}


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_an_adapter_fault_is_an_error_outcome(name: str, corpus: Corpus) -> None:
    codec, summary = FAULTS[name]
    adapter = CodecAdapter(name=name, version="0", codecs={"openai-chat": codec})
    result = run_scenario(adapter, corpus.scenarios[SCENARIO], corpus)
    assert result.outcome == "error", result.summary
    assert summary in result.summary
    assert "the suite failed" not in result.summary and "corpus" not in result.summary
    json.dumps(result.to_json())


def test_the_run_goes_on_and_the_results_file_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the command, with the adapter in a module of the user's: one hostile fault per API case."""
    (tmp_path / "hostile_adapter.py").write_text(
        textwrap.dedent(
            """
            import sys
            from conformance.connectors.contract import CodecAdapter
            from conformance.reference.openai_chat import OpenAIChatCodec

            class Unprintable(Exception):
                def __str__(self):
                    raise RuntimeError("no")

            class Codec(OpenAIChatCodec):
                calls = 0

                def decode(self, response):
                    Codec.calls += 1
                    fault = Codec.calls % 4
                    if fault == 1:
                        sys.exit(0)
                    if fault == 2:
                        raise UnprintableError()
                    message = super().decode(response)
                    for part in message["parts"]:
                        if part["type"] == "tool_call":
                            part["call_id"] = 5 if fault == 3 else part["call_id"]
                    return message

            ADAPTER = CodecAdapter(name="hostile", version="0", codecs={"openai-chat": Codec()})
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    report = tmp_path / "results.json"
    code = main(["run", "--adapter", "hostile_adapter:ADAPTER", "--api", "openai-chat", "--report", str(report)])
    out = capsys.readouterr().out
    assert code == 1
    assert "Traceback (most recent call last)" not in out.split("\n\n")[-1]  # the summary is not a crash
    results = json.loads(report.read_text())
    outcomes = {case["id"]: case["outcome"] for case in results["cases"]}
    from conformance.corpus.loading import load_corpus

    openai_chat = sum(1 for s in load_corpus().scenarios.values() if s.api == "openai-chat")
    assert len(outcomes) == openai_chat and set(outcomes.values()) <= {"error", "pass", "fail"}
    assert "error" in outcomes.values()
    sys.modules.pop("hostile_adapter", None)


def test_an_interrupt_stops_the_run_and_keeps_the_results(corpus: Corpus) -> None:
    adapter = CodecAdapter(
        name="interrupted", version="0", codecs={"openai-chat": _Hostile(raises=KeyboardInterrupt())}
    )
    results = run_suite(adapter, corpus, ["openai-chat"])
    assert results[0].outcome == "error" and "interrupted" in results[0].summary
    assert {r.outcome for r in results[1:]} == {"not-run"}
    assert len(results) == len([s for s in corpus.scenarios.values() if s.api == "openai-chat"])


def test_a_broken_cassette_is_the_corpus_fault_and_the_run_goes_on(corpus: Corpus, tmp_path: Path) -> None:
    import copy

    broken = copy.copy(corpus)
    (tmp_path / "openai-chat").mkdir()
    (tmp_path / "openai-chat" / "one-call.yaml").write_text("interactions: [")
    broken.cassette_roots = (tmp_path, *corpus.cassette_roots)
    from conformance.reference import ADAPTER

    result = run_scenario(ADAPTER, broken.scenarios[SCENARIO], broken)
    assert result.outcome == "error"
    assert result.summary.startswith("the corpus is at fault, not the adapter: openai-chat/one-call: cassette")


def test_a_part_type_that_is_not_a_string_is_the_adapters_fault(corpus: Corpus) -> None:
    """Found by the fuzz tests: a list as a part's type made the harness's own check raise."""
    codec = _Hostile(decoded=_set_call("type", [[1]]))
    adapter = CodecAdapter(name="list-type", version="0", codecs={"openai-chat": codec})
    result = run_scenario(adapter, corpus.scenarios[SCENARIO], corpus)
    assert result.outcome == "error"
    assert "returned a part of unknown type a list (known: text, tool_call, tool_result) (parts[0])" in result.summary


# --- os._exit(0) inside an in-process adapter ------------------------------------------------


class _ExitsZero(OpenAIChatCodec):
    def decode(self, response: Any) -> Any:
        import contextlib
        import os

        with contextlib.suppress(Exception):  # an adapter's own handler: it must not swallow the trap
            os._exit(0)  # what ended a pytest run with status 0 and no report
        return super().decode(response)


def test_os_exit_zero_in_process_is_the_cases_crash_and_the_run_goes_on(corpus: Corpus) -> None:
    import os

    adapter = CodecAdapter(name="exits", version="0", codecs={"openai-chat": _ExitsZero()})
    result = run_scenario(adapter, corpus.scenarios[SCENARIO], corpus)
    assert result.outcome == "crash", result.summary
    assert "os._exit(0)" in result.summary
    from conformance.running import exits

    assert os._exit is exits._original  # the trap is lifted after the case


def test_os_exit_zero_under_pytest_fails_the_run_and_writes_the_report(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        exiting=textwrap.dedent(
            """
            import os
            from conformance import CodecAdapter
            from conformance.reference.openai_chat import OpenAIChatCodec

            class Exits(OpenAIChatCodec):
                def decode(self, response):
                    os._exit(0)

            ADAPTER = CodecAdapter(name="exits", version="1", codecs={"openai-chat": Exits()})
            """
        )
    )
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=exiting:ADAPTER", "--conformance-api=openai-chat", "--conformance-report=r.json"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    document = json.loads((pytester.path / "r.json").read_text())
    assert {c["outcome"] for c in document["cases"]} <= {"crash", "skip"}
    assert any("os._exit(0)" in c.get("summary", "") for c in document["cases"])
