"""The pytest plugin: `pytest --conformance-adapter=reference` runs the corpus against an adapter.

Registered through the `pytest11` entry point. Until `--conformance-adapter` (or the ini key
`conformance_adapter`) is set it only adds its options: a session that does not use it imports
nothing of the library. Each scenario becomes one item, `conformance::<case id>`, so `-k`, `-x`,
`--lf`, xdist and JUnit XML work as usual; per-case results travel in `user_properties` (which
survive xdist) and the controller writes the results JSON and prints the summary.

A run that judges no case (every selected case skipped, or none selected) fails: a CI job must
not go green having tested nothing. So does a run with warnings under `--conformance-fail-on-warnings`.
"""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterable

    from conformance.connectors.adapters import Adapter, Resolved
    from conformance.corpus.loading import BugCase, Corpus, Scenario
    from conformance.engine.outcomes import CaseResult
    from conformance.running.baseline import Baseline
    from conformance.running.results_merge import Written
    from conformance.running.runner import RunOptions
    from conformance.running.soon import Soon

_PROPERTY = "conformance_result"
_PREFIX = "conformance::"
# Mirrors the case schema's `api` vocabulary (a test holds the two equal); kept literal so that
# registering markers does not load the schema.
_APIS = (
    "openai-chat",
    "openai-responses",
    "anthropic-messages",
    "gemini",
    "gemini-interactions",
    "azure-foundry",
    "mistral-chat",
    "kimi-chat",
    "bedrock-converse",
    "ollama-chat",
    "openresponses",
    "mistral-responses",
    "ollama-responses",
    "ollama-messages",
    "cohere-v2",
)
_SETTINGS = {
    # option/ini name: (help, ini type)
    "adapter": (
        "adapter under test: 'reference', a bug id (its reproduction, its own scenario expected to fail), "
        "module:object or path/to/file.py:object (the invocation directory is importable)",
        "string",
    ),
    "harness": ("a client in any language: the command that starts its harness (docs/harness.md)", "string"),
    "api": (
        "only run cases of these APIs (repeatable); an unknown name is a usage error listing the known ones",
        "args",
    ),
    "profile": ("rule profile: default, or strict (every violation an error)", "string"),
    "report": (
        "write the results JSON here, relative to the invocation directory (default: "
        ".pytest_cache/d/conformance/results.json; not written when the cache is disabled); a partial run "
        "never replaces a complete file",
        "string",
    ),
    "cases": ("extra case directories (repeatable)", "args"),
    "cassettes": ("extra cassette directories (repeatable)", "args"),
    "timeout": ("seconds a case may run before it is a timeout (default 60; 0: no limit)", "string"),
    "base-url": ("client adapters: the base URL the client is pointed at (default: the recorded one)", "string"),
    "replay": ("client adapters: in-process (vcrpy, the default) or server (the replay server over HTTP)", "string"),
    "isolate": (
        "run the adapter in a supervised worker process, judged here (the default): its exits, crashes and hangs "
        "become outcomes, and it cannot change its own verdict",
        "bool",
    ),
    "in-process": (
        "run the adapter in pytest's own process instead (for debugging it: there it can end the run or change "
        "its own verdict)",
        "bool",
    ),
    "fail-on-warnings": (
        "fail the run (exit 1) when a case has a warning-severity violation; cases keep their verdicts",
        "bool",
    ),
    "baseline": (
        "a file of expected failures (YAML or JSON, docs/plugin.md): listed failures are xfail, new ones fail, "
        "and an entry whose case passes fails the run as stale",
        "string",
    ),
    "update-baseline": (
        "rewrite the --conformance-baseline file from this run: stale entries dropped, new failures added",
        "bool",
    ),
    "show-requests": ("print every request the adapter sent in a failing case beside the recorded one", "bool"),
    "generated": (
        "also run N generated scenarios per API the adapter serves, drawn and shrunk by hypothesis (the "
        "`generated` extra; docs/generated.md); a failure is written as a case file with the command that reruns it",
        "string",
    ),
    "seed": (
        "the seed --conformance-generated draws with (default 0): the same seed draws the same scenarios",
        "string",
    ),
}
# Short forms the issue tracker and the docs use; the --conformance- form is always there too.
_ALIASES = {"show-requests": ("--show-requests",), "update-baseline": ("--update-baseline",)}


def _import_plainly() -> None:
    """pytest rewrites the asserts of every module of a distribution that registers a plugin, the
    first time each is imported after installation. The suite's modules have no asserts for pytest to
    explain, and rewriting the hundred of them a run imports cost a fresh CI runner more time than
    judging the whole corpus: they are imported as plain Python. Only pytest's own bookkeeping of what
    it rewrites is touched, and only where it is what it has been since pytest 3."""
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        if type(finder).__name__ == "AssertionRewritingHook" and isinstance(marked, set):
            marked.discard(__name__.partition(".")[0])


_import_plainly()


# The tally pytest's last line shows, so that a run failed by the conformance gate is not shown green.
_GATE = "conformance gate failed"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "tool-call id conformance")
    for name, (text, kind) in _SETTINGS.items():
        flag = f"--conformance-{name}"
        dest = f"conformance_{name.replace('-', '_')}"
        if kind == "args":
            group.addoption(flag, action="append", dest=dest, default=None, metavar=name.upper(), help=text)
        elif kind == "bool":
            group.addoption(flag, *_ALIASES.get(name, ()), action="store_true", dest=dest, default=None, help=text)
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
    given = config.getoption("conformance_adapter")
    if given is not None and not given.strip():
        # An unset CI variable (`--conformance-adapter=$ADAPTER`) must not quietly run only the user's tests.
        raise pytest.UsageError(
            "--conformance-adapter is empty: name 'reference', a bug id, or module:object (an unset variable?)"
        )
    if _setting(config, "isolate") and _setting(config, "in-process"):
        raise pytest.UsageError("--conformance-isolate and --conformance-in-process: choose one")
    adapter = _setting(config, "adapter")
    harness = _setting(config, "harness")
    generated = _count(_setting(config, "generated"), "--conformance-generated", minimum=0)
    _count(_setting(config, "seed"), "--conformance-seed", minimum=0)
    if generated:
        try:
            import hypothesis  # noqa: F401
        except ImportError:
            raise pytest.UsageError(
                "--conformance-generated needs hypothesis: pip install 'toolcall-conformance[generated]'"
            ) from None
    if adapter or harness:
        from conformance.node_ids import take_case_args

        session = ConformanceSession(config, adapter or "", harness=harness)
        # `conformance::<case id>` as pytest printed it names no file: taken out of the paths pytest
        # collects, and kept as the cases to collect.
        session.requested = take_case_args(config.args, _PREFIX, Path(config.invocation_params.dir))
        config.pluginmanager.register(session, "conformance-session")
        if adapter and adapter.strip() and not harness and session.isolated and not config.getoption("help", False):
            session._starting = session.start_worker()


def _count(raw: Any, option: str, *, minimum: int) -> int | None:
    """A whole-number option, or None when not given; anything else is a usage error."""
    if raw is None or raw == "":
        return None
    try:
        value = int(str(raw))
    except ValueError:
        raise pytest.UsageError(f"{option}: {raw!r} is not a whole number") from None
    if value < minimum:
        raise pytest.UsageError(f"{option}: {value} is less than {minimum}")
    return value


class GeneratedCollector(pytest.Collector):
    def __init__(self, *, session_plugin: ConformanceSession, apis: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session_plugin = session_plugin
        self.apis = apis

    def collect(self) -> list[pytest.Item]:
        return [
            GeneratedItem.from_parent(self, name=api, api=api, session_plugin=self.session_plugin) for api in self.apis
        ]


class GeneratedFailed(Exception):
    pass


class GeneratedItem(pytest.Item):
    """One API's generated scenarios: `--conformance-generated` of them, drawn from its grammar."""

    def __init__(self, *, api: str, session_plugin: ConformanceSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.api = api
        self.session_plugin = session_plugin
        self.add_marker("conformance")
        self.add_marker(api.replace("-", "_"))

    def runtest(self) -> None:
        from conformance.generated.report import failure_text
        from conformance.generated.search import search

        plugin = self.session_plugin
        base = Path(plugin.config.invocation_params.dir)
        out = plugin.generated_dir() / self.api
        found = search(
            plugin.adapter,
            plugin.corpus,
            self.api,
            plugin.generated,
            seed=plugin.seed,
            profile=plugin.profile,
            out=out,
        )
        rate = found.examples / found.seconds if found.seconds else 0.0
        self.user_properties.append(
            (
                "conformance_generated",
                json.dumps(
                    {
                        "api": self.api,
                        "examples": found.examples,
                        "seconds": round(found.seconds, 3),
                        "per_second": round(rate, 1),
                    }
                ),
            )
        )
        if found.failure is not None:
            raise GeneratedFailed(
                failure_text(found, plugin.adapter_spec.strip(), plugin.seed, base, harness=plugin.harness)
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, GeneratedFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return Path(self.session_plugin.config.invocation_params.dir), 0, f"conformance generated: {self.api}"


class ConformanceFailure(Exception):
    def __init__(self, result: CaseResult) -> None:
        self.result = result
        super().__init__(result.summary)


class ConformanceCollector(pytest.Collector):
    def __init__(self, *, session_plugin: ConformanceSession, scenarios: list[Scenario], **kwargs: Any) -> None:
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
    def __init__(self, *, scenario: Scenario, session_plugin: ConformanceSession, **kwargs: Any) -> None:
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
        self.user_properties.append((_PROPERTY, json.dumps(result.to_json())))
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


def _result_of(report: pytest.TestReport) -> dict[str, Any] | None:
    for name, value in report.user_properties:
        if name == _PROPERTY:
            data: dict[str, Any] = json.loads(str(value))
            return data
    return None


class ConformanceSession:
    """Per-session state: the adapter, the corpus, and the results as they come in."""

    def __init__(self, config: pytest.Config, adapter_spec: str, *, harness: str | None = None) -> None:
        self.config = config
        self.adapter_spec = adapter_spec
        self.harness = harness
        self._closers: list[Any] = []
        self.apis: list[str] = list(_setting(config, "api") or [])
        self.profile: str = _setting(config, "profile") or "default"
        self.fail_on_warnings = bool(_setting(config, "fail-on-warnings"))
        self._resolved: Resolved | None = None
        self._vcr: dict[str, Any] | None = None
        self._corpus: Corpus | None = None
        self._scenarios: list[Scenario] | None = None
        self.results: dict[str, dict[str, Any]] = {}
        self.selected: list[str] = []
        self.crashed: set[str] = set()
        self.gate: str | None = None  # why the run fails though no case did
        self.requested: list[str] | None = None  # the case ids named on the command line, if any
        self.written: Written | None = None  # where the results file went
        self._baseline: Baseline | bool | None = False  # False: not loaded yet
        self.baseline_note: str = ""
        self._failed_to_start = False
        self._starting: Soon | None = None  # the isolated adapter's worker, started early
        self._next: pytest.Item | None = None  # the test pytest runs after the current one, when it knows
        self._order: dict[int, int] | None = None  # each test's place in the session's order

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        self._next = nextitem  # pytest knows it (pytest-xdist too, once it has scheduled it)

    def announce_next(self, current: pytest.Item) -> None:
        """An adapter in a worker process starts on the cases after the current one while this one is
        judged (conformance.running.isolation): those the session runs next, in its order. Under
        pytest-xdist only the next test is known (the scheduler hands the rest out as it goes)."""
        from conformance.running.runner import announce

        if self._is_worker():
            following: Iterable[pytest.Item] = [self._next] if self._next is not None else []
        else:
            if self._order is None:
                self._order = {id(item): k for k, item in enumerate(current.session.items)}
            at = self._order.get(id(current))
            items = current.session.items
            # Read lazily, as far as the adapter looks ahead: not a copy of the rest of the session each test.
            following = (items[k] for k in range(at + 1, len(items))) if at is not None else []
        announce(
            self.adapter,
            (
                (item.scenario, self.run_options(item))
                for item in following
                if isinstance(item, ConformanceItem) and item.session_plugin is self
            ),
        )

    def run_options(self, item: pytest.Item) -> RunOptions:
        from conformance.running.runner import RunOptions
        from conformance.running.timeouts import DEFAULT_SECONDS

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
            show_requests=bool(_setting(self.config, "show-requests")),
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
    def resolved(self) -> Resolved:
        if self._resolved is None:
            from conformance.connectors.adapters import BUNDLED, AdapterSpecError, Resolved, resolve
            from conformance.connectors.contract import AdapterDefinitionError

            spec = self.adapter_spec.strip()
            option = "--conformance-harness" if self.harness else "--conformance-adapter"
            try:
                if self.harness:
                    from conformance.connectors.harness import HarnessAdapter

                    harness = HarnessAdapter(self.harness)
                    self._closers.append(harness.close)  # the harness process and its replay server
                    self._resolved = Resolved(harness)
                elif self.isolated:
                    if not spec:
                        raise AdapterSpecError("no adapter given: name 'reference', a bug id, or module:object")
                    starting, self._starting = self._starting or self.start_worker(), None
                    corpus = self.corpus
                    bug = corpus.bugs.get(spec) if ":" not in spec and spec not in BUNDLED else None
                    self._resolved = Resolved(starting.result(), bug)
                else:
                    self._resolved = resolve(
                        spec,
                        corpus=self.corpus if ":" not in spec else None,
                        base=self.config.invocation_params.dir,
                    )
            except (AdapterSpecError, AdapterDefinitionError) as exc:
                raise pytest.UsageError(f"{option}: {exc}") from None
        return self._resolved

    def start_worker(self) -> Soon:
        """The isolated adapter's worker, started: it boots and imports the adapter while this process
        imports the suite and reads the corpus. Started from pytest_configure, as early as the
        options are known, before anything but the worker's own small module is imported."""
        from conformance.running.soon import Soon
        from conformance.running.worker_process import Worker

        base = self.config.invocation_params.dir
        worker = Worker(
            [base / p for p in _setting(self.config, "cases") or []],
            [base / p for p in _setting(self.config, "cassettes") or []],
        )
        self._closers.append(worker.close)
        spec = self.adapter_spec.strip()

        def identified() -> Any:
            worker.supervisor.greet()  # the process starts now; a failure to start is met again below
            from conformance.running.isolation import IsolatedAdapter

            return IsolatedAdapter(spec, worker)

        return Soon(identified)

    @property
    def baseline(self) -> Baseline | None:
        if self._baseline is False:
            from conformance.running.baseline_options import load_for_run

            raw = _setting(self.config, "baseline")
            path = Path(self.config.invocation_params.dir) / str(raw) if raw else None
            try:
                self._baseline = load_for_run(path, update=bool(_setting(self.config, "update-baseline")))
            except ValueError as exc:
                raise pytest.UsageError(f"--conformance-baseline: {exc}") from None
        return self._baseline  # type: ignore[return-value]

    @property
    def adapter(self) -> Adapter:
        return self.resolved.adapter

    @property
    def bug(self) -> BugCase | None:
        return self.resolved.bug

    def served(self) -> list[str]:
        """The APIs whose cases this run judges: those the adapter serves, narrowed by --conformance-api."""
        from conformance.connectors.adapters import served_apis

        return [api for api in served_apis(self.adapter) if not self.apis or api in self.apis]

    @property
    def corpus(self) -> Corpus:
        if self._corpus is None:
            from conformance.corpus.loading import load_corpus
            from conformance.corpus.problems import InputError

            base = self.config.invocation_params.dir
            cases = [base / p for p in _setting(self.config, "cases") or []]
            cassettes = [base / p for p in _setting(self.config, "cassettes") or []]
            try:
                self._corpus = load_corpus(cases, cassettes)
            except InputError as exc:
                raise pytest.UsageError(f"the conformance corpus has problems:\n{exc}") from None
            # The corpus lives as long as the session: every full collection (pytest runs some at
            # the end) would walk its hundreds of thousands of objects for nothing.
            gc.freeze()
        return self._corpus

    def scenarios(self) -> list[Scenario]:
        """Every scenario of the selected APIs: what the run is asked to judge, before any deselection."""
        if self._scenarios is None:
            from conformance.connectors.contract import unknown_api_message
            from conformance.running.runner import select

            message = unknown_api_message(self.apis)
            if message:
                raise pytest.UsageError(f"--conformance-api: {message}")
            self._scenarios = select(self.corpus, self.apis or None)
        return self._scenarios

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
                scenarios = named(scenarios, self.requested, self.corpus.scenarios, _PREFIX)
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
        self.selected = [i[len(_PREFIX) :] for i in ids if i.startswith(_PREFIX)]

    # --- results --------------------------------------------------------------------------
    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: Any, sched: Any) -> None:
        """pytest-xdist: the worker running this case died (the adapter exited the process, or crashed it)."""
        if crashitem.startswith(_PREFIX):
            self.crashed.add(crashitem[len(_PREFIX) :])

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not report.nodeid.startswith(_PREFIX):
            return
        data = _result_of(report)
        if data is not None:
            self.results[data["id"]] = data
            return
        case_id = report.nodeid[len(_PREFIX) :]
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
        if report.when != "call" or not report.passed or not report.nodeid.startswith(_PREFIX):
            return status
        data = _result_of(report)
        warnings = [v for v in (data or {}).get("violations", ()) if v.get("severity") == "warning"]
        if not warnings:
            return status
        return (
            "passed",
            ".",
            (f"PASSED with {len(warnings)} warning{'s' if len(warnings) > 1 else ''}", {"yellow": True}),
        )

    def _is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    def _case_results(self) -> list[CaseResult]:
        """Every case of the selected APIs: judged, or `not-run` with why (stopped early, or deselected)."""
        from conformance.running.session_results import case_results

        return case_results(self.results, self.scenarios(), set(self.selected))

    def generated_dir(self) -> Path:
        """Where shrunk generated scenarios are written: beside the results, in pytest's cache (else a
        temporary directory)."""
        cache: pytest.Cache | None = getattr(self.config, "cache", None)
        if cache is not None:
            return cache.mkdir("conformance") / "generated"
        import tempfile

        return Path(tempfile.mkdtemp(prefix="conformance-generated-"))

    def report_path(self) -> Path | None:
        """--conformance-report, else pytest's cache directory; None when neither is available."""
        raw = _setting(self.config, "report")
        if raw:
            return Path(self.config.invocation_params.dir) / str(raw)
        cache: pytest.Cache | None = getattr(self.config, "cache", None)
        return cache.mkdir("conformance") / "results.json" if cache is not None else None

    def _reports(self) -> bool:
        """Whether this process reports on the run: the controller (or the only process), after a run that
        got as far as loading the adapter."""
        if self._is_worker() or self.config.option.collectonly or self._failed_to_start:
            return False
        try:
            self.resolved  # noqa: B018  # an xdist controller loads it here: only its workers collected
        except pytest.UsageError:
            return False
        return True

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
        )
        # pytest's own "no tests collected" (5, as after a -k that matches nothing) is a judged-nothing
        # run too: the documented exit is 1.
        if self.gate and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _baseline_gate(self, results: list[CaseResult]) -> str | None:
        """Why the baseline fails the run though no case did (entries for cases the corpus lacks); and,
        with --conformance-update-baseline, the file rewritten."""
        from conformance.running.baseline_options import after_run

        raw = _setting(self.config, "baseline")
        if not raw:
            return None
        path = Path(self.config.invocation_params.dir) / str(raw)
        update = bool(_setting(self.config, "update-baseline"))
        gate, self.baseline_note = after_run(
            self.baseline, path, results, self.corpus.scenarios, update=update, adapter=self.adapter.name
        )
        return gate

    def _mode(self) -> str:
        """Where the adapter ran, which says what its verdicts can be trusted for (docs/replay.md)."""
        if self.harness:
            return "as a harness, in its own process"
        if self.isolated:
            return "isolated, in a worker process (judged here)"
        return "in this process (--conformance-in-process: an adapter here can change its own verdict)"

    @property
    def generated(self) -> int:
        """--conformance-generated: scenarios drawn per API (0: none, the default)."""
        return _count(_setting(self.config, "generated"), "--conformance-generated", minimum=0) or 0

    @property
    def seed(self) -> int:
        from conformance.generated import DEFAULT_SEED

        found = _count(_setting(self.config, "seed"), "--conformance-seed", minimum=0)
        return DEFAULT_SEED if found is None else found

    @property
    def isolated(self) -> bool:
        return not _setting(self.config, "in-process")

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
            prefix=_PREFIX,
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
            tr.stats.setdefault(_GATE, []).append(entry)
