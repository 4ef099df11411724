"""The pytest plugin: `pytest --conformance-adapter=reference` runs the corpus against an adapter.

Registered through the `pytest11` entry point. Until `--conformance-adapter` (or the ini key
`conformance_adapter`) is set it only adds its options: a session that does not use it imports
nothing of the library. Each scenario becomes one item, `conformance::<case id>`, so `-k`, `-x`,
`--lf`, xdist and JUnit XML work as usual; per-case results travel in `user_properties` (which
survive xdist) and the controller writes the results JSON and prints the summary.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conformance.adapters import CodecAdapter
    from conformance.connectors.client import ClientAdapter
    from conformance.corpus import Corpus, Scenario
    from conformance.outcomes import CaseResult
    from conformance.runner import OutOfProcess, RunOptions

_PROPERTY = "conformance_result"
# Mirrors the case schema's `api` vocabulary (a test holds the two equal); kept literal so that
# registering markers does not load the schema.
_APIS = (
    "openai-chat",
    "openai-responses",
    "anthropic-messages",
    "gemini",
    "azure-foundry",
    "mistral-chat",
    "kimi-chat",
    "bedrock-converse",
    "ollama-chat",
    "openresponses",
    "cohere-v2",
)
_SETTINGS = {
    # option/ini name: (help, ini type)
    "adapter": ("adapter under test: 'reference', a bug id, or module:object", "string"),
    "harness": ("a client in any language: the command that starts its harness (docs/harness.md)", "string"),
    "api": ("only run cases of these APIs (repeatable)", "args"),
    "profile": ("rule profile: default or strict", "string"),
    "report": ("where to write the results JSON (default conformance-results.json)", "string"),
    "cases": ("extra case directories (repeatable)", "args"),
    "cassettes": ("extra cassette directories (repeatable)", "args"),
    "timeout": ("seconds a case may run before it is a timeout (default 60; 0: no limit)", "string"),
    "base-url": ("client adapters: the provider base URL to use instead of the provider's own", "string"),
    "replay": ("client adapters: in-process (vcrpy, the default) or server (the replay server over HTTP)", "string"),
    "isolate": ("run the adapter in a supervised worker process: its exits, crashes and hangs become outcomes", "bool"),
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "tool-call id conformance")
    for name, (text, kind) in _SETTINGS.items():
        flag = f"--conformance-{name}"
        dest = f"conformance_{name.replace('-', '_')}"
        if kind == "args":
            group.addoption(flag, action="append", dest=dest, default=None, metavar=name.upper(), help=text)
        elif name == "profile":
            group.addoption(flag, dest=dest, default=None, choices=("default", "strict"), help=text)
        elif name == "replay":
            group.addoption(flag, dest=dest, default=None, choices=("in-process", "server"), help=text)
        elif kind == "bool":
            group.addoption(flag, dest=dest, action="store_true", default=None, help=text)
        else:
            group.addoption(flag, dest=dest, default=None, metavar=name.upper(), help=text)
        parser.addini(dest, f"{text} (ini form of {flag})", type=kind, default=None)  # type: ignore[arg-type]


def _setting(config: pytest.Config, name: str) -> Any:
    """Command line first, then the ini file."""
    dest = f"conformance_{name.replace('-', '_')}"
    value = config.getoption(dest)
    if value is None:
        value = config.getini(dest) or None
    return value


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "conformance: a tool-call id conformance case (added by the plugin)")
    for api in _APIS:
        config.addinivalue_line("markers", f"{api.replace('-', '_')}: a conformance case of the {api} API")
    adapter = _setting(config, "adapter")
    harness = _setting(config, "harness")
    if adapter or harness:
        session = ConformanceSession(config, adapter or "", harness=harness)
        config.pluginmanager.register(session, "conformance-session")


class ConformanceFailure(Exception):
    def __init__(self, result: CaseResult) -> None:
        self.result = result
        super().__init__(result.summary)


class ConformanceCollector(pytest.Collector):
    def __init__(self, *, session_plugin: ConformanceSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session_plugin = session_plugin

    def collect(self) -> list[pytest.Item]:
        plugin = self.session_plugin
        return [
            ConformanceItem.from_parent(self, name=scenario.id, scenario=scenario, session_plugin=plugin)
            for scenario in plugin.scenarios()
        ]


class ConformanceItem(pytest.Item):
    def __init__(self, *, scenario: Scenario, session_plugin: ConformanceSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.session_plugin = session_plugin
        self.add_marker("conformance")
        self.add_marker(scenario.api.replace("-", "_"))

    def runtest(self) -> None:
        from conformance.runner import run_scenario

        plugin = self.session_plugin
        result = run_scenario(plugin.adapter, self.scenario, plugin.corpus, options=plugin.run_options(self))
        self.user_properties.append((_PROPERTY, json.dumps(result.to_json())))
        if result.outcome == "skip":
            pytest.skip(result.summary)
        if result.outcome != "pass":
            raise ConformanceFailure(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ConformanceFailure):
            from conformance.textreport import case_text

            return case_text(excinfo.value.result, self.session_plugin.adapter.name)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.scenario.path, 0, f"conformance: {self.scenario.id}"


class ConformanceSession:
    """Per-session state: the adapter, the corpus, and the results as they come in."""

    def __init__(self, config: pytest.Config, adapter_spec: str, *, harness: str | None = None) -> None:
        self.config = config
        self.adapter_spec = adapter_spec
        self.harness = harness
        self._closers: list[Any] = []
        self.apis: list[str] = list(_setting(config, "api") or [])
        self.profile: str = _setting(config, "profile") or "default"
        self._adapter: CodecAdapter | ClientAdapter | OutOfProcess | None = None
        self._vcr: dict[str, Any] | None = None
        self._corpus: Corpus | None = None
        self.results: dict[str, dict[str, Any]] = {}
        self.selected: list[str] = []

    def run_options(self, item: pytest.Item) -> RunOptions:
        from conformance.runner import RunOptions
        from conformance.timeouts import DEFAULT_SECONDS

        raw = _setting(self.config, "timeout")
        try:
            timeout = float(raw) if raw is not None else DEFAULT_SECONDS
        except ValueError:
            raise pytest.UsageError(f"--conformance-timeout: {raw!r} is not a number of seconds") from None
        # pytest-recording's --record-mode, and its vcr_config fixture and vcr marker, as for any test.
        record_mode = self.config.getoption("record_mode", default=None) or "none"
        vcr_config = {**self._vcr_config(item)}
        for marker in item.iter_markers("vcr"):
            vcr_config.update(marker.kwargs)
        return RunOptions(
            profile=self.profile,
            timeout=timeout,
            record_mode=str(record_mode),
            vcr_config=vcr_config,
            base_url=_setting(self.config, "base-url"),
            replay=self._replay(),
        )

    def _replay(self) -> Any:
        value = _setting(self.config, "replay") or "in-process"
        if value not in ("in-process", "server"):
            raise pytest.UsageError(f"conformance_replay: {value!r}; use in-process or server")
        return value

    def _vcr_config(self, item: pytest.Item) -> dict[str, Any]:
        """The nearest `vcr_config` fixture, called directly: conformance items are not functions."""
        if self._vcr is None:
            self._vcr = {}
            manager = item.session._fixturemanager
            definitions = manager.getfixturedefs("vcr_config", item) or ()
            if definitions:
                func = definitions[-1].func
                if func.__code__.co_argcount == 0:
                    self._vcr = dict(func() or {})
        return self._vcr

    @property
    def adapter(self) -> CodecAdapter | ClientAdapter | OutOfProcess:
        if self._adapter is None:
            from conformance.adapters import AdapterSpecError, resolve_adapter

            try:
                if self.harness:
                    from conformance.connectors.harness import HarnessAdapter

                    self._adapter = HarnessAdapter(self.harness)
                elif _setting(self.config, "isolate"):
                    from conformance.isolation import IsolatedAdapter, Worker

                    base = self.config.invocation_params.dir
                    worker = Worker(
                        [base / p for p in _setting(self.config, "cases") or []],
                        [base / p for p in _setting(self.config, "cassettes") or []],
                    )
                    self._adapter = IsolatedAdapter(self.adapter_spec, worker)
                    self._closers.append(worker.close)
                else:
                    self._adapter = resolve_adapter(self.adapter_spec)
            except AdapterSpecError as exc:
                option = "--conformance-harness" if self.harness else "--conformance-adapter"
                raise pytest.UsageError(f"{option}: {exc}") from None
        return self._adapter

    @property
    def corpus(self) -> Corpus:
        if self._corpus is None:
            from conformance.corpus import load_corpus
            from conformance.problems import InputError

            base = self.config.invocation_params.dir
            cases = [base / p for p in _setting(self.config, "cases") or []]
            cassettes = [base / p for p in _setting(self.config, "cassettes") or []]
            try:
                self._corpus = load_corpus(cases, cassettes)
            except InputError as exc:
                raise pytest.UsageError(f"the conformance corpus has problems:\n{exc}") from None
        return self._corpus

    def scenarios(self) -> list[Scenario]:
        from conformance.caseschema import vocabulary
        from conformance.runner import select

        unknown = [a for a in self.apis if a not in vocabulary("api")]
        if unknown:
            raise pytest.UsageError(
                f"--conformance-api: unknown API {', '.join(unknown)}; known: {', '.join(vocabulary('api'))}"
            )
        return select(self.corpus, self.apis or None)

    # --- collection -----------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, items: list[pytest.Item]) -> None:
        # Added before the keyword, mark and last-failed filters run, so they apply to these too.
        self.adapter  # noqa: B018  # an adapter that cannot be loaded stops the session here, once
        collector = ConformanceCollector.from_parent(
            session, name="conformance", nodeid="conformance", session_plugin=self
        )
        items.extend(collector.collect())

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.selected = [i.name for i in session.items if isinstance(i, ConformanceItem)]

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        prefix = "conformance::"
        self.selected = [i[len(prefix) :] for i in ids if i.startswith(prefix)]

    # --- results --------------------------------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == _PROPERTY:
                data = json.loads(str(value))
                self.results[data["id"]] = data

    def _is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    def _case_results(self) -> list[CaseResult]:
        from conformance.outcomes import CaseResult

        results = [CaseResult.from_json(d) for d in self.results.values()]
        scenarios = self.corpus.scenarios
        for case_id in self.selected:
            if case_id not in self.results and case_id in scenarios:
                results.append(
                    CaseResult(case_id, scenarios[case_id].api, "not-run", summary="the run stopped before this case")
                )
        return results

    def report_path(self) -> Path:
        raw = _setting(self.config, "report") or "conformance-results.json"
        return self.config.invocation_params.dir / raw

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        close = getattr(self._adapter, "close", None)
        if callable(close):
            close()  # a harness process and its replay server
        for closer in self._closers:
            closer()  # an isolated adapter's worker process

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self._is_worker() or (not self.results and not self.selected):
            return
        from conformance.results import results_document, write_results

        document = results_document(
            self._case_results(),
            adapter=self.adapter.identity(),
            corpus_revision=self.corpus.revision(),
            profile=self.profile,
            apis=self.apis or None,
        )
        write_results(self.report_path(), document)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self._is_worker() or (not self.results and not self.selected):
            return
        from conformance.textreport import summary_table

        tr = terminalreporter
        adapter = self.adapter
        tr.section("tool-call id conformance")
        tr.write_line(f"adapter: {adapter.name} {adapter.version}   profile: {self.profile}")
        for line in summary_table(self._case_results()).splitlines():
            tr.write_line(line)
        tr.write_line(f"results: {self.report_path()}")
