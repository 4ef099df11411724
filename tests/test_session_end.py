"""The end of a pytest session, apart from pytest: its results made whole, its gate, its summary."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from conformance.engine.outcomes import CaseResult
from conformance.reports.session import session_gate, session_summary
from conformance.running.results_merge import Written
from conformance.running.session_results import case_results, failed_without_result


def _scenario(case_id: str) -> Any:
    return SimpleNamespace(id=case_id, api="openai-chat")


def test_every_selected_case_has_an_outcome_saying_why() -> None:
    judged = {"openai-chat/a": CaseResult("openai-chat/a", "openai-chat", "pass").to_json()}
    scenarios = [_scenario("openai-chat/a"), _scenario("openai-chat/b"), _scenario("openai-chat/c")]
    results = {r.case_id: r for r in case_results(judged, scenarios, {"openai-chat/a", "openai-chat/b"})}
    assert results["openai-chat/a"].outcome == "pass"
    assert (results["openai-chat/b"].outcome, results["openai-chat/b"].summary) == (
        "not-run",
        "the run stopped before this case",
    )
    assert results["openai-chat/c"].summary.startswith("deselected")


def test_a_case_failed_without_a_result_is_a_crash_or_an_error() -> None:
    crashed = failed_without_result("openai-chat/a", "openai-chat", crashed=True, when="call", detail="boom")
    assert crashed.outcome == "crash" and "worker running this case died" in crashed.summary
    raised = failed_without_result("openai-chat/a", "openai-chat", crashed=False, when="setup", detail="x\nValueError")
    assert (raised.outcome, raised.summary) == ("error", "the suite failed in setup: ValueError")


def test_the_baseline_is_not_asked_when_nothing_was_judged() -> None:
    asked: list[bool] = []

    def baseline_gate() -> str | None:
        asked.append(True)  # asking may rewrite the baseline file
        return "stale"

    skipped = [CaseResult("openai-chat/a", "openai-chat", "skip")]
    gate = session_gate(skipped, ["openai-chat"], baseline_gate=baseline_gate, fail_on_warnings=False)
    assert gate and not asked
    passed = [CaseResult("openai-chat/a", "openai-chat", "pass")]
    assert session_gate(passed, ["openai-chat"], baseline_gate=baseline_gate, fail_on_warnings=False) == "stale"


def test_the_summary_ends_with_where_the_results_went_and_the_gate_in_red() -> None:
    results = [CaseResult("openai-chat/a", "openai-chat", "pass")]
    lines = session_summary(
        results,
        ["openai-chat"],
        headline="adapter: reference",
        narrowed=False,
        prefix="conformance::",
        baseline=None,
        known={},
        baseline_note="",
        written=Written(Path("out.json"), "kept"),
        gate="why",
    )
    assert lines[0] == ("adapter: reference", {})
    assert lines[-3:] == [("results: out.json", {}), ("  (kept)", {}), ("FAILED: why", {"red": True, "bold": True})]
