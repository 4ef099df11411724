"""The process an isolated adapter runs in: `python -m conformance.running.worker`, under a Supervisor.

Whatever the adapter does (`sys.exit`, `os._exit`, a segfault, a hang inside C code, swallowing
the suite's time limit), the suite's own process goes on: the supervisor turns it into the case's
outcome and starts a new worker for the next case. Messages are JSON lines on stdin and on the
original stdout; everything else written to stdout, by Python or C code, goes to stderr, so an
adapter that prints cannot corrupt them. The messages are the suite's own (not the harness protocol):

    -> {"cmd": "start", "cases": [DIR], "cassettes": [DIR], "path": [DIR]}   <- {"ready": true}
    -> {"cmd": "identify", "seq": N, "adapter": SPEC}    <- {"seq": N, "adapter": {...}, "apis": [...]}
    -> {"cmd": "run", "seq": N, "adapter": SPEC, "case": ID, "options": {...}}   <- {"seq": N, "result": {...}}

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
    from conformance.connectors.codec import short_traceback
    from conformance.corpus.loading import load_corpus
    from conformance.corpus.problems import InputError
    from conformance.engine.outcomes import CaseResult
    from conformance.running.runner import RunOptions, run_scenario

    corpus = None
    adapters: dict[str, Any] = {}
    for line in inp:
        message = json.loads(line)
        command = message.get("cmd")
        seq = message.get("seq")
        if command == "start":
            sys.path[:0] = [p for p in message.get("path", []) if p not in sys.path]
            try:
                corpus = load_corpus(
                    [Path(p) for p in message.get("cases", [])], [Path(p) for p in message.get("cassettes", [])]
                )
            except InputError as exc:
                _say(out, {"ready": False, "error": str(exc)})
                continue
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
            apis = sorted(getattr(adapter, "codecs", None) or getattr(adapter, "clients", None) or {})
            _say(out, {"seq": seq, "adapter": adapter.identity(), "apis": apis})
            continue
        if corpus is None or message.get("case") not in corpus.scenarios:
            _say(out, {"seq": seq, "error": f"the worker has no scenario {message.get('case')!r}"})
            continue
        scenario = corpus.scenarios[message["case"]]
        try:
            result = run_scenario(adapter, scenario, corpus, options=RunOptions(**message.get("options", {})))
        except BaseException as exc:  # SystemExit, KeyboardInterrupt, ... from the adapter
            summary = f"the adapter raised {type(exc).__name__}: {safe_text(exc)}"
            result = CaseResult(scenario.id, scenario.api, "error", summary=summary, detail=short_traceback(exc))
        _say(out, {"seq": seq, "result": result.to_json()})


def main() -> None:
    # The protocol keeps the real stdout; fd 1 becomes stderr, for whatever the adapter prints.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    serve(sys.stdin, out)


if __name__ == "__main__":
    main()
