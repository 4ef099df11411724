"""Adapters isolated in a worker process: their faults are outcomes, never the end of the run, and
their verdicts are the parent's.

An `IsolatedAdapter` stands for an adapter spec (`module:object`, a bug id, `reference`) and runs
its code in a `conformance.running.worker` process under a Supervisor. `sys.exit`, `os._exit`, a
segfault, `KeyboardInterrupt` or any BaseException from the adapter, a hang inside C code, or one
that swallows the suite's time limit become that case's `error`, `crash` or `timeout`; the worker
is started again for the next case. Several adapters may share one worker (the matrix does).

The parent plays the tool loop and judges: a codec is called across the process boundary, one
`encode` or `decode` at a time, and a client's run comes back as the bodies it sent
(conformance.running.handover). Nothing the worker hands over is a verdict, so an adapter that
patches the suite's objects in its own process cannot change one.
"""

from __future__ import annotations

import itertools
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conformance.connectors.adapters import AdapterSpecError
from conformance.connectors.supervisor import Fault, Supervisor
from conformance.corpus.loading import Corpus, Scenario
from conformance.engine.dialects import dialect_for
from conformance.engine.faults import CaseTimeout, ProcessLost
from conformance.engine.neutral import Conversation, Message
from conformance.engine.outcomes import CaseResult
from conformance.recordings.cassette import CassetteError, load_cassette
from conformance.recordings.sse import StreamError
from conformance.replay.verdicts import client_verdict, codec_only, scenario_context
from conformance.running.handover import HandoverError, client_run, described
from conformance.running.runner import CorpusError, run_codec_case

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
        self.connector: str = str(answer.get("connector", "codec"))
        self.skips: dict[str, str] = dict(answer.get("skips") or {})
        self._deadline: float | None = None
        self._timeout: float | None = None

    @property
    def name(self) -> str:
        return self._identity.get("name", self.spec)

    @property
    def version(self) -> str:
        return self._identity.get("version", "")

    def identity(self) -> dict[str, str]:
        return dict(self._identity)

    def codec(self, api: str) -> RemoteCodec | None:
        return RemoteCodec(self, api) if self.connector == "codec" and api in self.apis else None

    def skip_reason(self, api: str) -> str:
        return self.skips.get(api) or f"{self.name} serves no {api}"

    def run(self, scenario: Scenario, corpus: Corpus, options: Any) -> CaseResult:
        self._deadline = (time.monotonic() + options.timeout) if options.timeout else None
        self._timeout = options.timeout
        try:
            if self.connector == "codec":
                return run_codec_case(self, scenario, corpus, options.profile)
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

    def _client_case(self, scenario: Scenario, corpus: Corpus, options: Any) -> CaseResult:
        if scenario.api not in self.apis:
            return CaseResult(scenario.id, scenario.api, "skip", summary=self.skip_reason(scenario.api))
        reason = codec_only(scenario)
        if reason is not None:
            return CaseResult(scenario.id, scenario.api, "skip", summary=reason)
        settings = {
            "profile": options.profile,
            "timeout": options.timeout,
            "record_mode": options.record_mode,
            "base_url": options.base_url,
            "replay": options.replay,
        }
        answer = self.ask({"cmd": "client", "case": scenario.id, "options": settings})
        if "corpus" in answer:
            raise CorpusError(str(answer["corpus"]))
        if "raised" in answer:
            fault = described(answer["raised"], "raised")
            summary = f"the adapter raised {fault.description}"
            return CaseResult(scenario.id, scenario.api, "error", summary=summary, detail=fault.detail)
        path = corpus.cassette_path(scenario)
        dialect = dialect_for(scenario.api)
        ctx = scenario_context(corpus, scenario, options.profile)
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
        answer = self.worker.ask({**message, "adapter": self.spec, "timeout": left}, limit)
        if isinstance(answer, Fault):
            summary = answer.summary
            if answer.kind == "timeout" and self._timeout:
                summary = (
                    f"the adapter did not finish within {self._timeout:g} s, nor in {self.grace:g} s more "
                    "(a hang Python cannot interrupt, or a time limit swallowed); its worker process was killed"
                )
            outcome = {"crash": "crash", "timeout": "timeout", "garbage": "error"}[answer.kind]
            raise ProcessLost(outcome, summary, answer.stderr)
        if "error" in answer:
            raise ProcessLost("error", str(answer["error"]))
        if "timeout" in answer:
            raise CaseTimeout(self._timeout or 0)
        if "crash" in answer:
            crash = described(answer["crash"], "crash")
            summary = f"{crash.description}, which would have ended the run as a success with no report"
            raise ProcessLost("crash", summary, crash.detail)
        return answer


class RemoteCodec:
    """A codec in the worker process, called across the boundary: what it returns comes back as JSON
    data (checked again by the parent's codec connector), what it raises as its description.

    The codec connector calls each method twice in a row on the same value (the second call checks
    that the codec is stable), and a turn is an encode then a decode of the turn's response, known
    beforehand (`expect_responses`). The worker makes a turn's four calls in one round trip, in that order;
    what it answered for a later call is kept for it, and used only when the call asks for exactly
    that value (else the call goes to the worker)."""

    # What it is called with goes to the worker as JSON text: the adapter never holds the parent's objects.
    copies_arguments = True

    def __init__(self, adapter: IsolatedAdapter, api: str) -> None:
        self.adapter = adapter
        self.api = api
        self._kept: list[tuple[str, Any, dict[str, Any]]] = []
        self._responses: list[Any] = []

    def expect_responses(self, responses: list[Any]) -> None:
        """The responses the connector will decode, one a turn, in order."""
        self._responses = list(responses)

    def decode(self, response: dict[str, Any]) -> Message:
        return self._call("decode", response)  # type: ignore[no-any-return]

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        return self._call("encode", conversation)  # type: ignore[no-any-return]

    def _call(self, method: str, value: Any) -> Any:
        if self._kept:
            kept_method, kept_value, result = self._kept.pop(0)
            if kept_method == method and kept_value == value:
                return self._answer(method, result)
            self._kept.clear()  # the connector asked for something else: nothing kept applies
        message: dict[str, Any] = {"cmd": method, "api": self.api, "value": value}
        then = self._responses.pop(0) if method == "encode" and self._responses else None
        if then is not None:
            message["then"] = then
        answer = self.adapter.ask(message)
        results = _results(answer.get("results"), method)
        self._kept = [(method, value, r) for r in results[1:]]
        if "then" in answer:
            self._kept += [("decode", then, r) for r in _results(answer["then"], "decode")]
        return self._answer(method, results[0])

    def _answer(self, method: str, result: dict[str, Any]) -> Any:
        if "raised" in result:
            raise described(result["raised"], "raised")
        if "value" not in result:
            summary = f"the adapter's worker process answered {method} with neither a value nor what the codec raised"
            raise ProcessLost("error", summary)
        return result["value"]


def _results(results: Any, method: str) -> list[dict[str, Any]]:
    if not isinstance(results, list) or not results or not all(isinstance(r, dict) for r in results):
        summary = f"the adapter's worker process answered {method} with no results of the codec's calls"
        raise ProcessLost("error", summary)
    return results
