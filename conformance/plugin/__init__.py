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

import sys
from pathlib import Path

import pytest


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

# pytest's option and ini hooks, and the table docs/plugin.md is generated from.
from conformance.plugin.options import APIS, PREFIX, SETTINGS, count, pytest_addoption, setting  # noqa: E402

__all__ = ["APIS", "SETTINGS", "pytest_addoption", "pytest_configure"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "conformance: a tool-call id conformance case (added by the plugin)")
    for api in APIS:
        config.addinivalue_line("markers", f"{api.replace('-', '_')}: a conformance case of the {api} API")
    given = config.getoption("conformance_adapter")
    if given is not None and not given.strip():
        # An unset CI variable (`--conformance-adapter=$ADAPTER`) must not quietly run only the user's tests.
        raise pytest.UsageError(
            "--conformance-adapter is empty: name 'reference', a bug id, or module:object (an unset variable?)"
        )
    if setting(config, "isolate") and setting(config, "in-process"):
        raise pytest.UsageError("--conformance-isolate and --conformance-in-process: choose one")
    adapter = setting(config, "adapter")
    harness = setting(config, "harness")
    generated = count(setting(config, "generated"), "--conformance-generated", minimum=0)
    count(setting(config, "seed"), "--conformance-seed", minimum=0)
    if generated:
        try:
            import hypothesis  # noqa: F401
        except ImportError:
            raise pytest.UsageError(
                "--conformance-generated needs hypothesis: pip install 'toolcall-conformance[generated]'"
            ) from None
    if adapter or harness:
        from conformance.node_ids import take_case_args
        from conformance.plugin.session import ConformanceSession

        session = ConformanceSession(config, adapter or "", harness=harness)
        # `conformance::<case id>` as pytest printed it names no file: taken out of the paths pytest
        # collects, and kept as the cases to collect.
        session.requested = take_case_args(config.args, PREFIX, Path(config.invocation_params.dir))
        config.pluginmanager.register(session, "conformance-session")
        if adapter and adapter.strip() and not harness and session.isolated and not config.getoption("help", False):
            session._starting = session.start_worker()
