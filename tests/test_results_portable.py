"""A results file names no path of the machine that ran it: it is committed under reports/results/."""

from __future__ import annotations

from typing import Any

from conformance.engine.outcomes import CaseResult
from conformance.running.results import results_document

VENV = "/home/runner/venvs/x/lib/python3.11/site-packages"
CHECKOUT = "/home/runner/checkout"


def _case(result: CaseResult) -> dict[str, Any]:
    document = results_document([result], adapter={"name": "mylib"}, corpus_revision="sha256:0", profile="default")
    (case,) = document["cases"]
    return dict(case)


def test_tracebacks_and_summaries_lose_the_machine_paths() -> None:
    detail = (
        "Traceback (most recent call last):\n"
        f'  File "{CHECKOUT}/conformance/clients/mylib.py", line 12, in run\n'
        "    agent.run(prompt)\n"
        "    ^^^^^^^^^^^^^^^^^\n"
        f'  File "{VENV}/mylib/agent.py", line 40, in run\n'
        "    raise TypeError('no')\n"
        "TypeError: no"
    )
    summary = f"the client raised TypeError: no (in {VENV}/mylib/agent.py)"
    case = _case(CaseResult("openai-chat/one-call", "openai-chat", "error", summary=summary, detail=detail))
    assert "/home/runner" not in str(case)
    assert case["summary"] == "the client raised TypeError: no (in mylib/agent.py)"
    assert case["detail"] == (
        "Traceback (most recent call last):\n"
        "  conformance/clients/mylib.py:12 in run\n"
        "    agent.run(prompt)\n"
        "  mylib/agent.py:40 in run\n"
        "    raise TypeError('no')\n"
        "TypeError: no"
    )


def test_a_case_without_paths_is_written_as_it_is() -> None:
    result = CaseResult("openai-chat/one-call", "openai-chat", "pass", summary="see https://example.com/a/b.yaml")
    assert _case(result) == result.to_json()
