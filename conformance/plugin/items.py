"""The corpus's scenarios as pytest items, `conformance::<case id>`: each runs one case through the
adapter, and its result travels in `user_properties` (which survive pytest-xdist)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from conformance.plugin.options import PROPERTY

if TYPE_CHECKING:
    from conformance.corpus.loading import Scenario
    from conformance.engine.outcomes import CaseResult
    from conformance.plugin.state import SessionState


class ConformanceFailure(Exception):
    def __init__(self, result: CaseResult) -> None:
        self.result = result
        super().__init__(result.summary)


class ConformanceCollector(pytest.Collector):
    def __init__(self, *, session_plugin: SessionState, scenarios: list[Scenario], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session_plugin = session_plugin
        self.scenarios = scenarios

    def collect(self) -> list[pytest.Item]:
        plugin = self.session_plugin
        return [
            ConformanceItem.from_parent(self, name=scenario.id, scenario=scenario, session_plugin=plugin)
            for scenario in self.scenarios
        ]


class ConformanceItem(pytest.Item):
    def __init__(self, *, scenario: Scenario, session_plugin: SessionState, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.session_plugin = session_plugin
        self.add_marker("conformance")
        self.add_marker(scenario.api.replace("-", "_"))

    def runtest(self) -> None:
        from conformance.connectors.codec import short_traceback
        from conformance.engine.outcomes import FAILING, CaseResult
        from conformance.running.known_bugs import run_case

        plugin = self.session_plugin
        plugin.announce_next(self)
        try:
            result = run_case(plugin.adapter, self.scenario, plugin.corpus, plugin.run_options(self), plugin.bug)
        except pytest.UsageError:
            raise
        except Exception as exc:  # the suite's own fault (or the corpus's): still this case's outcome
            result = CaseResult(
                self.scenario.id,
                self.scenario.api,
                "error",
                summary=f"the suite raised on this case: {type(exc).__name__}: {exc}",
                detail=short_traceback(exc),
            )
        if plugin.baseline is not None:
            plugin.baseline.apply(result)
        self.user_properties.append((PROPERTY, json.dumps(result.to_json())))
        if result.requests is not None and result.outcome not in FAILING:
            # --conformance-show-requests on a case that did not fail: pytest shows it with -rP.
            from conformance.engine.requests_view import requests_text

            self.add_report_section("call", "requests", requests_text(result.requests))
        if result.outcome == "skip":
            pytest.skip(result.summary)
        if result.outcome == "xfail":
            pytest.xfail(result.summary)
        if result.outcome != "pass":
            raise ConformanceFailure(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ConformanceFailure):
            from conformance.reports.textreport import case_text

            result = excinfo.value.result
            text = case_text(result, self.session_plugin.adapter.name)
            if result.requests is not None:  # --conformance-show-requests
                from conformance.engine.requests_view import requests_text

                text += "\n\n" + requests_text(result.requests)
            return text
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.scenario.path, 0, f"conformance: {self.scenario.id}"


def result_of(report: pytest.TestReport) -> dict[str, Any] | None:
    for name, value in report.user_properties:
        if name == PROPERTY:
            data: dict[str, Any] = json.loads(str(value))
            return data
    return None
