"""Adapters isolated in a worker process: their faults are outcomes, never the end of the run, and
their verdicts are the parent's.

An `IsolatedAdapter` stands for an adapter spec (`module:object`, a bug id, `reference`) and runs
its code in a `conformance.running.worker` process under a Supervisor. `sys.exit`, `os._exit`, a
segfault, `KeyboardInterrupt` or any BaseException from the adapter, a hang inside C code, or one
that swallows the suite's time limit become that case's `error`, `crash` or `timeout`; the worker
is started again for the next case. Several adapters may share one worker (the matrix does).

The worker plays a case and the parent judges it, one round trip a case: a codec's tool loop comes
back as what each `encode` and `decode` returned, a client's run as the bodies it sent
(conformance.running.handover). A codec's next cases (up to AHEAD of them) may be posted to the
worker before the current one is judged (`then`), so that the worker plays them one after another
while this process judges: neither waits for the other. A posted case is answered in its turn as it
would have been asked then; a crash is the case's whose answer it cut off, and the cases posted
after it are asked again, of a new worker, in their turns. Nothing the worker hands over is a
verdict, so an adapter that patches the suite's objects in its own process cannot change one.

Nor is the worker's word taken where it blames the suite: code in the worker's process can write
anything the worker could (conformance.running.worker_process), so a worker that answers "the corpus
is at fault" is checked here, where the adapter cannot reach, by reading the case's recordings; if
they read, the case is an error of the adapter's.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from conformance.connectors.adapters import AdapterSpecError
from conformance.connectors.codec import AdapterFault
from conformance.connectors.supervisor import Fault
from conformance.corpus.loading import Corpus, Scenario
from conformance.engine.dialects import dialect_for
from conformance.engine.dialects.base import DialectError
from conformance.engine.faults import CaseTimeout, ProcessLost
from conformance.engine.outcomes import CaseResult
from conformance.recordings.cassette import CassetteError, load_cassette
from conformance.recordings.sse import StreamError
from conformance.replay.verdicts import client_verdict, codec_only, judged, scenario_context, timed_out
from conformance.running.handover import HandoverError, client_run, codec_exchange, codec_fault, described
from conformance.running.runner import CorpusError, fault_result
from conformance.running.worker_process import Worker

# A case may run this long past its own time limit before the worker is killed: the worker's own
# clock answers `timeout` first unless the adapter hangs where Python cannot interrupt it.
GRACE_SECONDS = 10.0
# Without a time limit of its own, a case still ends: the worker is killed after this long.
HARD_LIMIT_SECONDS = 3600.0
# How many of a codec's cases are posted to its worker ahead of their turn: enough that the worker
# never waits for the next while this process judges (measured: 1 left it idle a third of the time).
AHEAD = 4


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
        self.connector: str = str(answer.get("connector", "codec"))
        self.skips: dict[str, str] = dict(answer.get("skips") or {})
        self.continues: frozenset[str] = frozenset(answer.get("continues") or ())
        self._deadline: float | None = None
        self._timeout: float | None = None
        # The cases to post to the worker as soon as the current one's answer is in, so that the worker
        # plays them while this process judges the current one (`then`); and the cases posted so, in order.
        self._then: list[tuple[Scenario, Any]] = []
        self._posted: deque[_Posted] = deque()
        self._answered_at = 0.0  # when the last posted case's answer was taken: the next began by then
        # A scenario the worker's corpus does not hold (a generated one), handed over with the case.
        self._carried: dict[str, Any] = {}

    @property
    def name(self) -> str:
        return self._identity.get("name", self.spec)

    @property
    def version(self) -> str:
        return self._identity.get("version", "")

    def identity(self) -> dict[str, str]:
        return dict(self._identity)

    def then(self, upcoming: Iterable[tuple[Scenario, Any]]) -> None:
        """The cases that run after the next one, in their order, each with its run options (empty:
        none, or not known): a codec's worker starts on the first of them it serves as soon as it
        has answered the next one, while this process judges that."""
        if self.connector != "codec":
            self._then = []
            return
        self._then = list(islice(((s, o) for s, o in upcoming if s.api in self.apis), AHEAD))

    def skip_reason(self, api: str) -> str:
        return self.skips.get(api) or f"{self.name} serves no {api}"

    def run(self, scenario: Scenario, corpus: Corpus, options: Any) -> CaseResult:
        self._deadline = (time.monotonic() + options.timeout) if options.timeout else None
        self._timeout = options.timeout
        try:
            if self.connector == "codec":
                return self._codec_case(scenario, corpus, options)
            return self._client_case(scenario, corpus, options)
        except CaseTimeout as exc:
            return CaseResult(scenario.id, scenario.api, "timeout", summary=f"the adapter gave {exc}")
        except ProcessLost as lost:
            return CaseResult(scenario.id, scenario.api, lost.outcome, summary=lost.summary, detail=lost.detail)  # type: ignore[arg-type]
        except CorpusError as exc:
            return CaseResult(
                scenario.id, scenario.api, "error", summary=f"the corpus is at fault, not the adapter: {exc}"
            )
        except HandoverError as exc:
            summary = f"the adapter's worker process handed over what no worker hands over ({exc}); nothing was judged"
            return CaseResult(scenario.id, scenario.api, "error", summary=summary)

    def run_carried(self, scenario: Scenario, corpus: Corpus, options: Any, cassettes: Path) -> CaseResult:
        """A scenario of no case file (a generated one) run in the worker like any case: its document
        goes with the case, its cassette is read from `cassettes`."""
        self._drop_posted()
        self._carried = {"document": dict(scenario.data), "path": str(scenario.path), "cassettes": str(cassettes)}
        try:
            return self.run(scenario, corpus, options)
        finally:
            self._carried = {}

    def _codec_case(self, scenario: Scenario, corpus: Corpus, options: Any) -> CaseResult:
        if scenario.api not in self.apis:
            return CaseResult(scenario.id, scenario.api, "skip", summary=self.skip_reason(scenario.api))
        if self._posted and self._posted[0].case == scenario.id and not self._carried:
            answer = self._collect(self._posted.popleft())
        else:
            self._drop_posted()  # posted for cases that did not come next (the run stopped, or changed order)
            answer = self.ask({"cmd": "codec", "case": scenario.id, **self._carried})
        self._post_then()
        if "corpus" in answer:
            return _corpus_claim(answer["corpus"], scenario, corpus)
        if "fault" in answer:
            return fault_result(scenario, codec_fault(answer["fault"]))
        dialect = dialect_for(scenario.api)
        path = corpus.cassette_path(scenario)
        # The history is the adapter's own decoder's where the worker played it (runner.played_history).
        history = scenario.history
        try:
            recorded = load_cassette(path)
            before = None
            if history is not None and history.cassette and history.api in self.apis:
                before = (load_cassette(corpus.find_cassette(history.cassette)), dialect_for(history.api))
            exchange = codec_exchange(answer.get("run"), scenario, recorded, dialect, before)
        except AdapterFault as fault:
            return fault_result(scenario, fault)
        except (CassetteError, StreamError, DialectError, ValueError) as exc:
            raise CorpusError(f"{scenario.id}: cassette {path}: {exc}") from exc
        return judged(scenario, exchange, scenario_context(corpus, scenario, options.profile), dialect, "adapter")

    def _post_then(self) -> None:
        """Post the upcoming cases not posted yet, after those that are (which must be the first of
        them: else the run changed its order, and they are dropped)."""
        then, self._then = self._then, []
        have = [p.case for p in self._posted]
        common = min(len(have), len(then))
        if have[:common] != [s.id for s, _ in then[:common]]:
            self._drop_posted()
        for scenario, options in then[len(self._posted) :]:
            timeout = options.timeout or None
            seq = self.worker.post({"cmd": "codec", "case": scenario.id, "adapter": self.spec, "timeout": timeout})
            if isinstance(seq, Fault):  # a worker that cannot take it is met again when the case runs
                break
            self._posted.append(_Posted(scenario.id, seq, time.monotonic(), timeout))

    def _drop_posted(self) -> None:
        """Take and drop the answers of every posted case, and their faults (a worker one of them
        ended starts again for the case that runs now)."""
        while self._posted:
            with contextlib.suppress(ProcessLost, CaseTimeout):
                self._collect(self._posted.popleft())

    def _collect(self, posted: _Posted) -> dict[str, Any]:
        # The worker began the case once it had answered the one before: its time counts from then.
        began = max(posted.posted_at, self._answered_at)
        left = None if posted.timeout is None else began + posted.timeout - time.monotonic()
        limit = max(left, 0) + self.grace if left is not None else HARD_LIMIT_SECONDS
        try:
            return self._answered(self.worker.collect(posted.seq, limit), posted.timeout)
        except ProcessLost:
            if not self.worker.supervisor.running:
                # The worker that was sent the cases posted after this one is gone: each is asked
                # again, of a new worker, in its turn.
                self._posted.clear()
            raise
        finally:
            self._answered_at = time.monotonic()

    def _client_case(self, scenario: Scenario, corpus: Corpus, options: Any) -> CaseResult:
        if scenario.api not in self.apis:
            return CaseResult(scenario.id, scenario.api, "skip", summary=self.skip_reason(scenario.api))
        reason = codec_only(scenario, self.continues)
        if reason is not None:
            return CaseResult(scenario.id, scenario.api, "skip", summary=reason)
        settings = {
            "profile": options.profile,
            "timeout": options.timeout,
            "record_mode": options.record_mode,
            "base_url": options.base_url,
            "replay": options.replay,
        }
        path = corpus.cassette_path(scenario)
        dialect = dialect_for(scenario.api)
        ctx = scenario_context(corpus, scenario, options.profile)
        try:
            answer = self.ask({"cmd": "client", "case": scenario.id, "options": settings, **self._carried})
        except HandedTimeout as exc:
            try:
                partial = client_run(exc.run, scenario, load_cassette(path), dialect, ctx, replayed=True)
            except (CassetteError, StreamError) as problem:
                raise CorpusError(f"{scenario.id}: cassette {path}: {problem}") from problem
            return timed_out(scenario, partial, ctx, dialect, f"the adapter gave {exc}")
        if "corpus" in answer:
            return _corpus_claim(answer["corpus"], scenario, corpus)
        if "raised" in answer:
            fault = described(answer["raised"], "raised")
            summary = f"the adapter raised {fault.description}"
            return CaseResult(scenario.id, scenario.api, "error", summary=summary, detail=fault.detail)
        try:
            recorded = load_cassette(path)
            run = client_run(
                answer.get("run"), scenario, recorded, dialect, ctx, replayed=options.record_mode == "none"
            )
        except (CassetteError, StreamError) as exc:
            raise CorpusError(f"{scenario.id}: cassette {path}: {exc}") from exc
        return client_verdict(scenario, run, ctx, dialect)

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        """One command for the adapter's worker, within what is left of the case's time. A worker that
        crashes, hangs past the grace or answers garbage ends the case (ProcessLost); one whose own
        clock ran out ends it as a timeout."""
        left = None if self._deadline is None else self._deadline - time.monotonic()
        if left is not None and left <= 0:
            raise CaseTimeout(self._timeout or 0)
        limit = (left + self.grace) if left is not None else HARD_LIMIT_SECONDS
        return self._answered(self.worker.ask({**message, "adapter": self.spec, "timeout": left}, limit), self._timeout)

    def _answered(self, answer: dict[str, Any] | Fault, timeout: float | None) -> dict[str, Any]:
        if isinstance(answer, Fault):
            summary = answer.summary
            if answer.kind == "timeout" and timeout:
                summary = (
                    f"the adapter did not finish within {timeout:g} s, nor in {self.grace:g} s more "
                    "(a hang Python cannot interrupt, or a time limit swallowed); its worker process was killed"
                )
            outcome = {"crash": "crash", "timeout": "timeout", "garbage": "error"}[answer.kind]
            raise ProcessLost(outcome, summary, answer.stderr)
        if "error" in answer:
            raise ProcessLost("error", str(answer["error"]))
        if "timeout" in answer:
            if "run" in answer:  # a client's: what it sent until its time ran out
                raise HandedTimeout(timeout or 0, answer["run"])
            raise CaseTimeout(timeout or 0)
        if "crash" in answer:
            crash = described(answer["crash"], "crash")
            summary = f"{crash.description}, which would have ended the run as a success with no report"
            raise ProcessLost("crash", summary, crash.detail)
        return answer


def _recordings_problem(scenario: Scenario, corpus: Corpus) -> str | None:
    """What is wrong with the case's recordings, read as the worker reads them to play the case
    (the cassette, the history's, each response through its dialect); None when they read."""
    path = corpus.cassette_path(scenario)
    try:
        dialect = dialect_for(scenario.api)
        for interaction in load_cassette(path):
            dialect.served(interaction.response, f"response[{interaction.index}]")
        history = scenario.history
        if history is not None and history.cassette:
            path = corpus.find_cassette(history.cassette)
            history_dialect = dialect_for(history.api)
            for interaction in load_cassette(path):
                history_dialect.served(interaction.response, f"history.response[{interaction.index}]")
    except (CassetteError, StreamError, DialectError, ValueError) as exc:
        return f"{scenario.id}: cassette {path}: {exc}"
    return None


def _corpus_claim(claim: Any, scenario: Scenario, corpus: Corpus) -> CaseResult:
    """The worker says the corpus is at fault: so it is if the recordings fail to read here too (in
    this process's words); else the adapter's code made its process say so, and the case is its error."""
    problem = _recordings_problem(scenario, corpus)
    if problem is not None:
        raise CorpusError(problem)
    shown = str(claim)[:200]
    summary = (
        f"the adapter's worker process said the corpus is at fault ({shown!r}), but the case's recordings "
        "read here: the adapter's process blamed the suite"
    )
    return CaseResult(scenario.id, scenario.api, "error", summary=summary)


class HandedTimeout(CaseTimeout):
    """A client's case over its time limit in the worker, with its run so far as the worker handed it."""

    def __init__(self, seconds: float, run: Any) -> None:
        self.run = run
        super().__init__(seconds)


@dataclass(frozen=True)
class _Posted:
    """A case sent to the worker ahead of its turn."""

    case: str
    seq: int
    posted_at: float
    timeout: float | None
