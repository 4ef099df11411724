"""The process an isolated adapter runs in: `python -m conformance.running.worker`, under a Supervisor.

Whatever the adapter does (`sys.exit`, `os._exit`, a segfault, a hang inside C code, swallowing
the suite's time limit), the suite's own process goes on: the supervisor turns it into the case's
outcome and starts a new worker for the next case. Messages are JSON lines on stdin and on the
original stdout; everything else written to stdout, by Python or C code, goes to stderr, so an
adapter that prints cannot corrupt them. Every command after `start` carries a `nonce` that its
answer echoes (not shown below): a line on the answers' pipe without it is not the worker's. The
messages are the suite's own (not the harness protocol):

    -> {"cmd": "start", "cases": [DIR], "cassettes": [DIR], "path": [DIR]}   <- {"ready": true}
       (the corpus at those directories is read once the first adapter is identified)
    -> {"cmd": "identify", "seq": N, "adapter": SPEC}
       <- {"seq": N, "adapter": {...}, "apis": [...], "connector": "codec" | "client", "skips": {API: REASON},
          "continues": ["history" | "sessions", ...]}
    -> {"cmd": "codec", "seq": N, "adapter": SPEC, "case": ID, "timeout": S}
       <- {"seq": N, "run": {"requests": [[BODY, BODY]], "decoded": [[MESSAGE, MESSAGE]], "history": [...]}}
          | {"seq": N, "fault": {"phase", "turn", "summary", "detail"}} | {"seq": N, "timeout": S}
          | {"seq": N, "crash": {"description", "detail"}}  (the adapter called os._exit(0))
          | {"seq": N, "corpus": TEXT}
    -> {"cmd": "client", "seq": N, "adapter": SPEC, "case": ID, "options": {...}}
       either command may carry a scenario of no case file: "document" (the scenario case), "path" (where
       its file would be) and "cassettes" (the directory its cassette is under)
       <- {"seq": N, "run": {...}} | {"seq": N, "raised": {...}} | {"seq": N, "timeout": S, "run": {...}}
          | {"seq": N, "corpus": TEXT}  (a timeout's run: what the client sent until its time ran out)

The worker never judges: it answers with what the adapter returned or sent (conformance.running.handover),
and the parent judges that with its own rules, where the adapter's code cannot reach.
A failure to resolve the adapter answers `{"seq": N, "error": "..."}`.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from pathlib import Path
from typing import IO, Any


def _say(out: IO[str], message: dict[str, Any]) -> None:
    out.write(json.dumps(message) + "\n")
    out.flush()


def safe_text(exc: BaseException) -> str:
    """An exception's message, even when its own `__str__` raises."""
    try:
        return str(exc)
    except BaseException:  # a broken __str__ must not end the worker
        return f"<{type(exc).__name__} whose message cannot be shown>"


def serve(inp: IO[str], out: IO[str]) -> None:
    from conformance.connectors.adapters import AdapterSpecError, resolve_adapter
    from conformance.corpus.loading import load_corpus
    from conformance.corpus.problems import InputError

    corpus = None
    problem = ""
    roots: tuple[list[Path], list[Path]] = ([], [])
    adapters: dict[str, Any] = {}
    for line in inp:
        message = json.loads(line)
        command = message.get("cmd")
        seq = message.get("seq")
        nonce = message.get("nonce")

        def say(answer: dict[str, Any], nonce: Any = nonce) -> None:
            _say(out, {**answer, "nonce": nonce} if nonce is not None else answer)

        if command == "start":
            sys.path[:0] = [p for p in message.get("path", []) if p not in sys.path]
            roots = ([Path(p) for p in message.get("cases", [])], [Path(p) for p in message.get("cassettes", [])])
            say({"ready": True, "pid": os.getpid()})
            continue
        if command == "stop":
            return
        spec = str(message.get("adapter"))
        try:
            if spec not in adapters:
                adapters[spec] = resolve_adapter(spec)
            adapter = adapters[spec]
        except AdapterSpecError as exc:
            say({"seq": seq, "error": str(exc)})
            continue
        except BaseException as exc:  # importing the adapter ran its code
            say({"seq": seq, "error": f"importing {spec!r} raised {type(exc).__name__}: {safe_text(exc)}"})
            continue
        if command == "identify":
            say({"seq": seq, **_identify(adapter)})
        if corpus is None and not problem:
            # Read once the adapter is identified (the parent collects the cases meanwhile), from the
            # snapshot the parent has just used; a corpus with problems is said when a case asks for it.
            try:
                corpus = load_corpus(*roots)
            except InputError as exc:
                problem = f"the worker cannot load the corpus: {exc}"
            # The corpus lives as long as the worker: the collector need not walk its objects again.
            gc.freeze()
        if command == "identify":
            continue
        if corpus is None:
            say({"seq": seq, "error": problem})
            continue
        run = _codec_run if command == "codec" else _client_run
        if isinstance(message.get("document"), dict):
            # A scenario of no case file (generated): typed from its document, its cassette beside.
            from conformance.corpus.generated import corpus_with
            from conformance.corpus.loading import typed_scenario

            scenario = typed_scenario(message["document"], Path(str(message.get("path"))))
            carried = corpus_with(corpus, scenario, Path(str(message.get("cassettes"))))
            say({"seq": seq, **run(adapter, carried, scenario, message)})
            continue
        if message.get("case") not in corpus.scenarios:
            say({"seq": seq, "error": f"the worker has no scenario {message.get('case')!r}"})
            continue
        scenario = corpus.scenarios[message["case"]]
        say({"seq": seq, **run(adapter, corpus, scenario, message)})


def _identify(adapter: Any) -> dict[str, Any]:
    from conformance.connectors.contract import known_apis

    served = getattr(adapter, "codecs", None) or getattr(adapter, "clients", None) or {}
    return {
        "adapter": adapter.identity(),
        "apis": sorted(served),
        "connector": "codec" if hasattr(adapter, "codecs") else "client",
        "skips": {api: adapter.skip_reason(api) for api in known_apis() if api not in served},
        "continues": sorted(getattr(adapter, "continues", ())),
    }


def _codec_run(adapter: Any, corpus: Any, scenario: Any, message: dict[str, Any]) -> dict[str, Any]:
    """The scenario's tool loop played through the adapter's codec, as the codec connector plays it in
    process, in one round trip: handed over as what the codec returned (the parent judges it), or
    what it raised, located."""
    from conformance.connectors.codec import AdapterFault, run_codec
    from conformance.engine.dialects import dialect_for
    from conformance.engine.dialects.base import DialectError
    from conformance.engine.faults import CaseTimeout, describe, short_traceback
    from conformance.recordings.cassette import CassetteError, load_cassette
    from conformance.recordings.sse import StreamError
    from conformance.running.exits import ProcessExit, exits_trapped
    from conformance.running.handover import codec_run_data, fault_data
    from conformance.running.runner import played_history
    from conformance.running.timeouts import call_with_timeout

    codec = adapter.codec(scenario.api)
    if codec is None:
        return {"error": f"the adapter has no codec for {scenario.api}"}
    path = corpus.cassette_path(scenario)

    def play() -> Any:
        history = played_history(adapter, scenario, corpus)
        return run_codec(codec, scenario, load_cassette(path), dialect_for(scenario.api), history, _ends_the_case)

    try:
        with exits_trapped():
            exchange = call_with_timeout(play, message.get("timeout"))
    except CaseTimeout as exc:
        return {"timeout": exc.seconds}
    except ProcessExit as exc:
        return {"crash": {"description": str(exc), "detail": short_traceback(exc)}}
    except AdapterFault as fault:
        return {"fault": fault_data(fault)}
    except (CassetteError, StreamError, DialectError, ValueError) as exc:
        return {"corpus": f"{scenario.id}: cassette {path}: {exc}"}
    except Exception as exc:  # the suite's own code, playing the loop: not the adapter's crash
        return {"error": f"the suite failed in the worker while playing the case: {describe(exc)}"}
    return {"run": codec_run_data(exchange)}


def _ends_the_case(exc: BaseException) -> bool:
    """The worker's own time limit and an exit it trapped end a case; anything else the codec raises,
    KeyboardInterrupt and SystemExit included, is what the adapter did (the parent owns Ctrl-C)."""
    from conformance.engine.faults import CaseTimeout
    from conformance.running.exits import ProcessExit

    return isinstance(exc, CaseTimeout | ProcessExit)


def _client_run(adapter: Any, corpus: Any, scenario: Any, message: dict[str, Any]) -> dict[str, Any]:
    """A client's run against the scenario's replay, handed over as data: the parent judges it."""
    from conformance.connectors.client import TimedOutRun, run_client
    from conformance.engine.dialects import dialect_for
    from conformance.engine.faults import CaseTimeout, short_traceback
    from conformance.engine.rules import check
    from conformance.recordings.cassette import CassetteError
    from conformance.recordings.sse import StreamError
    from conformance.replay.verdicts import scenario_context
    from conformance.running.exits import ProcessExit, exits_trapped
    from conformance.running.handover import client_run_data, raised
    from conformance.running.timeouts import call_with_timeout

    options = message.get("options") or {}
    fn = adapter.client(scenario.api)
    if fn is None:
        return {"error": f"the adapter has no client for {scenario.api}"}
    # The replay refuses what the provider would refuse while the client runs; the parent judges again.
    ctx = scenario_context(corpus, scenario, str(options.get("profile", "default")))
    path = corpus.cassette_path(scenario)
    try:
        with exits_trapped():
            run = call_with_timeout(
                lambda: run_client(
                    fn,
                    scenario,
                    path,
                    dialect_for(scenario.api),
                    lambda exchange: check(exchange, ctx),
                    record_mode=str(options.get("record_mode", "none")),
                    user_config=options.get("vcr_config") or {},
                    base_url=options.get("base_url"),
                    replay=options.get("replay", "in-process"),
                ),
                options.get("timeout"),
            )
    except TimedOutRun as exc:  # what it sent until then goes with the timeout: the parent judges it
        return {"timeout": exc.seconds, "run": client_run_data(exc.run)}
    except CaseTimeout as exc:
        return {"timeout": exc.seconds}
    except ProcessExit as exc:
        return {"crash": {"description": str(exc), "detail": short_traceback(exc)}}
    except (CassetteError, StreamError) as exc:
        return {"corpus": f"{scenario.id}: cassette {path}: {exc}"}
    except BaseException as exc:  # escaped the client's own boundary (SystemExit, a BaseException of its own)
        return {"raised": raised(exc)}
    return {"run": client_run_data(run)}


def main() -> None:
    # The protocol keeps the real stdout; fd 1 becomes stderr, for whatever the adapter prints.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    serve(sys.stdin, out)


if __name__ == "__main__":
    main()
