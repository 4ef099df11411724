"""What a conformance session knows, derived from its options: the adapter (resolved once, or its
isolated worker), the corpus and the selected scenarios, the baseline, each case's run options, and where
results and generated scenarios go. The pytest hooks that use it are conformance.plugin.session's."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from conformance.plugin.options import count, setting

if TYPE_CHECKING:
    from collections.abc import Iterable

    from conformance.connectors.adapters import Adapter, Resolved
    from conformance.corpus.loading import BugCase, Corpus, Scenario
    from conformance.engine.outcomes import CaseResult
    from conformance.running.baseline import Baseline
    from conformance.running.results_merge import Written
    from conformance.running.runner import RunOptions
    from conformance.running.soon import Soon


class SessionState:
    """Per-session state: the adapter, the corpus, and the results as they come in."""

    def __init__(self, config: pytest.Config, adapter_spec: str, *, harness: str | None = None) -> None:
        self.config = config
        self.adapter_spec = adapter_spec
        self.harness = harness
        self._closers: list[Any] = []
        self.apis: list[str] = list(setting(config, "api") or [])
        self.profile: str = setting(config, "profile") or "default"
        self.fail_on_warnings = bool(setting(config, "fail-on-warnings"))
        self._resolved: Resolved | None = None
        self._vcr: dict[str, Any] | None = None
        self._corpus: Corpus | None = None
        self._scenarios: list[Scenario] | None = None
        self.results: dict[str, dict[str, Any]] = {}
        self.selected: list[str] = []
        self.crashed: set[str] = set()
        # Generated-scenario items (`conformance-generated::<api>`) that ran: each judged its scenarios.
        self.generated_ran = 0
        self.gate: str | None = None  # why the run fails though no case did
        self.requested: list[str] | None = None  # the case ids named on the command line, if any
        self.written: Written | None = None  # where the results file went
        self._baseline: Baseline | bool | None = False  # False: not loaded yet
        self.baseline_note: str = ""
        self._failed_to_start = False
        self._starting: Soon | None = None  # the isolated adapter's worker, started early
        self._next: pytest.Item | None = None  # the test pytest runs after the current one, when it knows
        self._order: dict[int, int] | None = None  # each test's place in the session's order

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
                # a corpus case of this session (conformance.plugin.items.ConformanceItem)
                if getattr(item, "session_plugin", None) is self and hasattr(item, "scenario")
            ),
        )

    def run_options(self, item: pytest.Item) -> RunOptions:
        from conformance.running.runner import RunOptions
        from conformance.running.timeouts import DEFAULT_SECONDS

        raw = setting(self.config, "timeout")
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
            base_url=setting(self.config, "base-url"),
            replay=self._replay(),
            show_requests=bool(setting(self.config, "show-requests")),
        )

    def _replay(self) -> Any:
        value = setting(self.config, "replay") or "in-process"
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
            [base / p for p in setting(self.config, "cases") or []],
            [base / p for p in setting(self.config, "cassettes") or []],
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

            raw = setting(self.config, "baseline")
            path = Path(self.config.invocation_params.dir) / str(raw) if raw else None
            try:
                self._baseline = load_for_run(path, update=bool(setting(self.config, "update-baseline")))
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
            cases = [base / p for p in setting(self.config, "cases") or []]
            cassettes = [base / p for p in setting(self.config, "cassettes") or []]
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
        raw = setting(self.config, "report")
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

    def _baseline_gate(self, results: list[CaseResult]) -> str | None:
        """Why the baseline fails the run though no case did (entries for cases the corpus lacks); and,
        with --conformance-update-baseline, the file rewritten."""
        from conformance.running.baseline_options import after_run

        raw = setting(self.config, "baseline")
        if not raw:
            return None
        path = Path(self.config.invocation_params.dir) / str(raw)
        update = bool(setting(self.config, "update-baseline"))
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
        return count(setting(self.config, "generated"), "--conformance-generated", minimum=0) or 0

    @property
    def seed(self) -> int:
        from conformance.generated import DEFAULT_SEED

        found = count(setting(self.config, "seed"), "--conformance-seed", minimum=0)
        return DEFAULT_SEED if found is None else found

    @property
    def isolated(self) -> bool:
        return not setting(self.config, "in-process")
