"""Adapters isolated in a worker process: their faults are outcomes, never the end of the run.

An `IsolatedAdapter` stands for an adapter spec (`module:object`, a bug id, `reference`) and runs
each case in a `conformance.running.worker` process under a Supervisor. `sys.exit`, `os._exit`, a
segfault, `KeyboardInterrupt` or any BaseException from the adapter, a hang inside C code, or one
that swallows the suite's time limit become that case's `error`, `crash` or `timeout`; the worker
is started again for the next case. Several adapters may share one worker (the matrix does).
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conformance.connectors.adapters import AdapterSpecError
from conformance.connectors.supervisor import Fault, Supervisor
from conformance.corpus.loading import Corpus, Scenario
from conformance.engine.outcomes import CaseResult

# A case may run this long past its own time limit before the worker is killed: the worker's own
# clock answers `timeout` first unless the adapter hangs where Python cannot interrupt it.
GRACE_SECONDS = 10.0
# Without a time limit of its own, a case still ends: the worker is killed after this long.
HARD_LIMIT_SECONDS = 3600.0


class Worker:
    """One supervised worker process, shared by the adapters that run in it."""

    def __init__(self, cases: Sequence[Path] = (), cassettes: Sequence[Path] = ()) -> None:
        hello = {
            "cmd": "start",
            "cases": [str(Path(p).resolve()) for p in cases],
            "cassettes": [str(Path(p).resolve()) for p in cassettes],
            # What imports here imports there: the invocation directory (adapter specs import from it, as in
            # process) and this process's own path (a test's or a tool's additions).
            "path": list(dict.fromkeys([os.getcwd(), *(p for p in sys.path if p)])),
        }
        self.supervisor = Supervisor(
            [sys.executable, "-m", "conformance.running.worker"],
            name="the adapter's worker process",
            hello=hello,
            check_greeting=lambda answer: None if answer.get("ready") else str(answer.get("error", "not ready")),
        )
        self._seq = itertools.count(1)

    def ask(self, message: dict[str, Any], timeout: float | None) -> dict[str, Any] | Fault:
        seq = next(self._seq)
        answer = self.supervisor.ask({**message, "seq": seq}, timeout)
        if isinstance(answer, dict) and answer.get("seq") != seq:
            self.supervisor.stop(kill=True)
            return Fault("garbage", f"the worker answered message {answer.get('seq')!r} when asked {seq}")
        return answer

    def close(self) -> None:
        self.supervisor.stop()


class IsolatedAdapter:
    def __init__(self, spec: str, worker: Worker, *, grace: float = GRACE_SECONDS) -> None:
        self.spec = spec
        self.worker = worker
        self.grace = grace
        answer = worker.ask({"cmd": "identify", "adapter": spec}, timeout=120)
        if isinstance(answer, Fault):
            raise AdapterSpecError(f"{spec!r}: {answer.summary}\n{answer.stderr}".rstrip())
        if "error" in answer:
            raise AdapterSpecError(str(answer["error"]))
        self._identity: dict[str, str] = dict(answer.get("adapter") or {})
        self.apis: tuple[str, ...] = tuple(answer.get("apis") or ())

    @property
    def name(self) -> str:
        return self._identity.get("name", self.spec)

    @property
    def version(self) -> str:
        return self._identity.get("version", "")

    def identity(self) -> dict[str, str]:
        return dict(self._identity)

    def run(self, scenario: Scenario, corpus: Corpus, options: Any) -> CaseResult:
        settings = {
            "profile": options.profile,
            "timeout": options.timeout,
            "record_mode": options.record_mode,
            "base_url": options.base_url,
            "replay": options.replay,
            "show_requests": options.show_requests,
        }
        limit = (options.timeout + self.grace) if options.timeout else HARD_LIMIT_SECONDS
        answer = self.worker.ask({"cmd": "run", "adapter": self.spec, "case": scenario.id, "options": settings}, limit)
        if isinstance(answer, Fault):
            summary = answer.summary
            if answer.kind == "timeout" and options.timeout:
                summary = (
                    f"the adapter did not finish within {options.timeout:g} s, nor in {self.grace:g} s more "
                    "(a hang Python cannot interrupt, or a time limit swallowed); its worker process was killed"
                )
            outcome = {"crash": "crash", "timeout": "timeout", "garbage": "error"}[answer.kind]
            return CaseResult(scenario.id, scenario.api, outcome, summary=summary, detail=answer.stderr)  # type: ignore[arg-type]
        if "error" in answer:
            return CaseResult(scenario.id, scenario.api, "error", summary=str(answer["error"]))
        return CaseResult.from_json(answer["result"])
