"""The process an isolated adapter runs in: `python -m conformance.running.worker`, under a Supervisor.

Whatever the adapter does (`sys.exit`, `os._exit`, a segfault, a hang inside C code, swallowing
the suite's time limit), the suite's own process goes on: the supervisor turns it into the case's
outcome and starts a new worker for the next case. Messages are JSON lines on stdin and on the
original stdout; everything else written to stdout, by Python or C code, goes to stderr, so an
adapter that prints cannot corrupt them. The messages are the suite's own (not the harness protocol):

    -> {"cmd": "start", "cases": [DIR], "cassettes": [DIR], "path": [DIR]}   <- {"ready": true}
       (the corpus at those directories is read when the first client runs)
    -> {"cmd": "identify", "seq": N, "adapter": SPEC}
       <- {"seq": N, "adapter": {...}, "apis": [...], "connector": "codec" | "client", "skips": {API: REASON}}
    -> {"cmd": "encode" | "decode", "seq": N, "adapter": SPEC, "api": API, "value": ..., "timeout": S}
       <- {"seq": N, "results": [R, R]} | {"seq": N, "timeout": S}, each R {"value": ...} or
          {"raised": {"description", "detail"}}: the codec called twice, as the connector does; an
          encode's optional "then" (the response of the same turn) is answered as "then": [R, R]
          | {"seq": N, "crash": {"description", "detail"}}  (the adapter called os._exit(0))
    -> {"cmd": "client", "seq": N, "adapter": SPEC, "case": ID, "options": {...}}
       <- {"seq": N, "run": {...}} | {"seq": N, "raised": {...}} | {"seq": N, "timeout": S} | {"seq": N, "corpus": TEXT}

The worker never judges: it answers with what the adapter returned or sent (conformance.running.handover),
and the parent judges that with its own rules, where the adapter's code cannot reach.
A failure to resolve the adapter answers `{"seq": N, "error": "..."}`.
"""

from __future__ import annotations

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
    roots: tuple[list[Path], list[Path]] = ([], [])
    adapters: dict[str, Any] = {}
    for line in inp:
        message = json.loads(line)
        command = message.get("cmd")
        seq = message.get("seq")
        if command == "start":
            sys.path[:0] = [p for p in message.get("path", []) if p not in sys.path]
            # The corpus is read when a client first runs: a codec's worker never needs it (the parent
            # plays the tool loop), and the parent has already loaded the same files.
            roots = ([Path(p) for p in message.get("cases", [])], [Path(p) for p in message.get("cassettes", [])])
            _say(out, {"ready": True, "pid": os.getpid()})
            continue
        if command == "stop":
            return
        spec = str(message.get("adapter"))
        try:
            if spec not in adapters:
                adapters[spec] = resolve_adapter(spec)
            adapter = adapters[spec]
        except AdapterSpecError as exc:
            _say(out, {"seq": seq, "error": str(exc)})
            continue
        except BaseException as exc:  # importing the adapter ran its code
            _say(out, {"seq": seq, "error": f"importing {spec!r} raised {type(exc).__name__}: {safe_text(exc)}"})
            continue
        if command == "identify":
            _say(out, {"seq": seq, **_identify(adapter)})
            continue
        if command in ("encode", "decode"):
            _say(out, {"seq": seq, **_codec_call(adapter, command, message)})
            continue
        if corpus is None:
            try:
                corpus = load_corpus(*roots)
            except InputError as exc:
                _say(out, {"seq": seq, "error": f"the worker cannot load the corpus: {exc}"})
                continue
        if message.get("case") not in corpus.scenarios:
            _say(out, {"seq": seq, "error": f"the worker has no scenario {message.get('case')!r}"})
            continue
        _say(out, {"seq": seq, **_client_run(adapter, corpus, corpus.scenarios[message["case"]], message)})


def _identify(adapter: Any) -> dict[str, Any]:
    from conformance.connectors.contract import known_apis

    served = getattr(adapter, "codecs", None) or getattr(adapter, "clients", None) or {}
    return {
        "adapter": adapter.identity(),
        "apis": sorted(served),
        "connector": "codec" if hasattr(adapter, "codecs") else "client",
        "skips": {api: adapter.skip_reason(api) for api in known_apis() if api not in served},
    }


def _codec_call(adapter: Any, method: str, message: dict[str, Any]) -> dict[str, Any]:
    """The adapter's codec called twice on private copies of the same value, as the codec connector
    calls it (the second call is the stability check), in one round trip: each call answered with what
    it returned in plain JSON, or what it raised. An `encode` may carry `then`, the response the
    connector decodes next in the same turn: decoded twice after the encodes, unless an encode raised."""
    from conformance.connectors.codec import AdapterFault, check_body, check_message
    from conformance.engine.faults import CaseTimeout, describe, short_traceback
    from conformance.running.exits import ProcessExit, exits_trapped
    from conformance.running.timeouts import call_with_timeout

    codec = adapter.codec(str(message.get("api")))
    if codec is None:
        return {"error": f"the adapter has no codec for {message.get('api')!r}"}

    def twice(method: str, value: Any) -> list[dict[str, Any]]:
        fn = codec.encode if method == "encode" else codec.decode
        check = check_body if method == "encode" else check_message
        text = json.dumps(value)

        def once() -> dict[str, Any]:
            try:
                return {"value": check(fn(json.loads(text)), 0)}
            except (CaseTimeout, ProcessExit):
                raise
            except AdapterFault as fault:  # what it returned is no body or message: in the check's own words
                return {"raised": {"description": fault.summary, "detail": fault.detail}}
            except BaseException as exc:  # the adapter's own, SystemExit and KeyboardInterrupt too
                return {"raised": {"description": describe(exc), "detail": short_traceback(exc)}}

        first = once()
        return [first] if "raised" in first else [first, once()]

    def turn() -> dict[str, Any]:
        results = twice(method, message.get("value"))
        answer: dict[str, Any] = {"results": results}
        if method == "encode" and "then" in message and not any("raised" in r for r in results):
            answer["then"] = twice("decode", message["then"])
        return answer

    try:
        with exits_trapped():
            return call_with_timeout(turn, message.get("timeout"))
    except CaseTimeout as exc:
        return {"timeout": exc.seconds}
    except ProcessExit as exc:
        return {"crash": {"description": str(exc), "detail": short_traceback(exc)}}


def _client_run(adapter: Any, corpus: Any, scenario: Any, message: dict[str, Any]) -> dict[str, Any]:
    """A client's run against the scenario's replay, handed over as data: the parent judges it."""
    from conformance.connectors.client import run_client
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
