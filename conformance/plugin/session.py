"""The conformance session's pytest hooks: collection of the corpus's items (and the generated ones),
each case's result gathered as it is reported, and at the end the results file, the gate that fails a run
which judged nothing, and the summary."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from conformance.plugin.generated_items import GeneratedCollector
from conformance.plugin.items import ConformanceCollector, ConformanceItem, result_of
from conformance.plugin.options import GATE, GENERATED_PREFIX, PREFIX
from conformance.plugin.state import SessionState


class ConformanceSession(SessionState):
    """The hooks pytest calls on the session's plugin object; what they read is SessionState's."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        self._next = nextitem  # pytest knows it (pytest-xdist too, once it has scheduled it)

    # --- collection -----------------------------------------------------------------------
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if not self._is_worker():
            # Before any collection, and before pytest-xdist starts workers whose errors it would not show:
            # an adapter that cannot be loaded, or an unknown API, stops the session here with one message.
            self.resolved  # noqa: B018
            self.scenarios()
            self.baseline  # noqa: B018  # a baseline file with problems stops the session before any case

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, items: list[pytest.Item]) -> None:
        # Added before the keyword, mark and last-failed filters run, so they apply to these too.
        self.adapter  # noqa: B018  # an adapter that cannot be loaded stops the session here, once
        scenarios = self.scenarios()
        if self.requested is not None:
            from conformance.node_ids import NodeIdError, named

            try:
                scenarios = named(scenarios, self.requested, self.corpus.scenarios, PREFIX)
            except NodeIdError as exc:
                raise pytest.UsageError(str(exc)) from None
        collector = ConformanceCollector.from_parent(
            session, name="conformance", nodeid="conformance", session_plugin=self, scenarios=scenarios
        )
        # Through genitems, so that pytest counts and reports the items as collected.
        items.extend(session.genitems(collector))
        if self.generated and self.requested is None:
            from conformance.generated.grammar import GRAMMARS

            apis = [api for api in self.served() if api in GRAMMARS]
            generated = GeneratedCollector.from_parent(
                session, name="conformance-generated", nodeid="conformance-generated", session_plugin=self, apis=apis
            )
            items.extend(session.genitems(generated))

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.selected = [i.name for i in session.items if isinstance(i, ConformanceItem)]

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.selected = [i[len(PREFIX) :] for i in ids if i.startswith(PREFIX)]

    # --- results --------------------------------------------------------------------------
    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: Any, sched: Any) -> None:
        """pytest-xdist: the worker running this case died (the adapter exited the process, or crashed it)."""
        if crashitem.startswith(PREFIX):
            self.crashed.add(crashitem[len(PREFIX) :])

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.nodeid.startswith(GENERATED_PREFIX) and report.when == "call":
            self.generated_ran += 1
        if not report.nodeid.startswith(PREFIX):
            return
        data = result_of(report)
        if data is not None:
            self.results[data["id"]] = data
            return
        case_id = report.nodeid[len(PREFIX) :]
        if not report.failed or case_id in self.results:
            return
        from conformance.running.session_results import failed_without_result

        scenario = self.corpus.scenarios.get(case_id)
        result = failed_without_result(
            case_id,
            scenario.api if scenario else "",
            crashed=case_id in self.crashed,
            when=report.when,
            detail=report.longreprtext,
        )
        self.results[case_id] = result.to_json()

    @pytest.hookimpl(wrapper=True)
    def pytest_report_teststatus(self, report: pytest.TestReport, config: pytest.Config) -> Any:
        status = yield
        if report.when != "call" or not report.passed or not report.nodeid.startswith(PREFIX):
            return status
        data = result_of(report)
        warnings = [v for v in (data or {}).get("violations", ()) if v.get("severity") == "warning"]
        if not warnings:
            return status
        return (
            "passed",
            ".",
            (f"PASSED with {len(warnings)} warning{'s' if len(warnings) > 1 else ''}", {"yellow": True}),
        )

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        for closer in self._closers:
            closer()  # a harness, or an isolated adapter's worker process

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self._failed_to_start = session.exitstatus in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERNAL_ERROR)
        if not self._reports():
            return
        from conformance.connectors.adapters import describe
        from conformance.reports.session import session_gate
        from conformance.running.results import results_document
        from conformance.running.results_merge import write_run_results

        results = self._case_results()
        path = self.report_path()
        if path is not None:
            document = results_document(
                results,
                adapter=describe(self.adapter, self.bug),
                corpus_revision=self.corpus.revision(),
                profile=self.profile,
                apis=self.apis or None,
            )
            self.written = write_run_results(path, document)
        self.gate = session_gate(
            results,
            self.served(),
            baseline_gate=lambda: self._baseline_gate(results),
            fail_on_warnings=self.fail_on_warnings,
            generated=self.generated_ran,
        )
        # pytest's own "no tests collected" (5, as after a -k that matches nothing) is a judged-nothing
        # run too: the documented exit is 1.
        if self.gate and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self._reports():
            return
        from conformance.reports.session import session_summary

        tr = terminalreporter
        adapter = self.adapter
        who = f"{self.bug.id} (a known bug's reproduction)" if self.bug else f"{adapter.name} {adapter.version}"
        tr.section("tool-call id conformance")
        lines = session_summary(
            self._case_results(),
            self.served(),
            headline=f"adapter: {who}   profile: {self.profile}   ran: {self._mode()}",
            narrowed=bool(self.apis),
            prefix=PREFIX,
            baseline=self.baseline,
            known=self.corpus.scenarios,
            baseline_note=self.baseline_note,
            written=self.written,
            gate=self.gate,
        )
        for text, markup in lines:
            tr.write_line(text, **markup)
        if self.gate:
            # A report-like entry: other plugins read the tally's entries as reports (hypothesis reads their __dict__).
            entry = SimpleNamespace(nodeid="conformance", when="session", outcome="failed", longrepr=self.gate)
            tr.stats.setdefault(GATE, []).append(entry)
