"""Results files name no directory of the machine that ran them: tracebacks are told from the checkout,
a library's `site-packages/` and the standard library, while recorded traffic keeps its own paths."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

from conftest import ROOT

from conformance.engine.faults import short_traceback
from conformance.engine.outcomes import CaseResult
from conformance.engine.violations import Violation
from conformance.running.results import portable, results_document

VENV_FRAME = '  File "/opt/venvs/fw-x/lib/python3.11/site-packages/somelib/models.py", line 12, in parse'


def _raised_through_the_standard_library() -> BaseException:
    try:
        json.loads("{not json")
    except ValueError as exc:
        return exc
    raise AssertionError("json.loads accepted what it must refuse")


def _document(result: CaseResult) -> str:
    adapter = {"name": "mylib", "version": "1.0", "connector": "client"}
    return json.dumps(results_document([result], adapter=adapter, corpus_revision="sha256:0", profile="default"))


def test_a_traceback_names_frames_from_the_checkout_the_library_and_the_standard_library() -> None:
    detail = short_traceback(_raised_through_the_standard_library()) + "\n" + VENV_FRAME
    assert str(ROOT) in detail  # the raw traceback names this machine's checkout
    result = CaseResult("openai-chat/one-call", "openai-chat", "error", summary=f"raised at {ROOT}/x.py", detail=detail)

    case = json.loads(_document(result))["cases"][0]

    assert str(ROOT) not in case["detail"]
    assert str(ROOT) not in case["summary"]
    assert case["summary"] == "raised at x.py"
    assert 'File "tests/test_results_paths.py"' in case["detail"]
    assert 'File "site-packages/somelib/models.py", line 12' in case["detail"]
    stdlib = str(Path(sysconfig.get_path("stdlib")).resolve())
    assert stdlib not in case["detail"]
    assert 'File "<python>/json/decoder.py"' in case["detail"]


def test_recorded_paths_in_violations_are_kept() -> None:
    violation = Violation(
        "roundtrip/arguments-altered",
        "error",
        "request[1].input[2]",
        "the call's arguments were altered",
        expected={"path": "/srv/data/squares.csv"},
        received={"path": "/srv/data/other.csv"},
    )
    result = CaseResult("openai-responses/x", "openai-responses", "fail", violations=[violation])

    (kept,) = json.loads(_document(result))["cases"][0]["violations"]

    assert kept["expected"] == {"path": "/srv/data/squares.csv"}
    assert kept["received"] == {"path": "/srv/data/other.csv"}


def test_text_without_machine_paths_is_unchanged() -> None:
    text = "RuntimeError: the stream ended without response.completed (see /v1/responses)"
    assert portable(text) == text
    assert portable("C:\\envs\\x\\Lib\\site-packages\\lib\\a.py") == "site-packages/lib\\a.py"
