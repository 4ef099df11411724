"""`conformance proxy`: forward to an upstream, record a scrubbed cassette, report violations as they occur."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.commands.common import (
    EXIT_FOUND,
    EXIT_INPUT,
    EXIT_OK,
    add_corpus_options,
    corpus_of,
    stop_on_signals,
    wait_for_stop,
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    proxy = sub.add_parser(
        "proxy", help="forward to an upstream on 127.0.0.1, record a scrubbed cassette, report violations as they occur"
    )
    proxy.add_argument("--upstream", required=True, metavar="URL", help="where requests are forwarded")
    proxy.add_argument(
        "--cassette", default="proxy-recording.yaml", metavar="PATH", help="the scrubbed cassette written"
    )
    proxy.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (default: any free one)")
    proxy.add_argument("--force", action="store_true", help="overwrite the cassette when it exists")
    add_corpus_options(proxy)
    proxy.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from conformance.proxy import Proxy, Recorder
    from conformance.recordings.recording import Scrubber

    if not args.upstream.startswith(("http://", "https://")):
        shown = Scrubber(from_environment=False).uri(args.upstream)
        print(f"conformance proxy: --upstream {shown!r} is not an http(s) URL", file=sys.stderr)
        return EXIT_INPUT
    cassette = Path(args.cassette)
    if cassette.exists() and not args.force:
        print(f"conformance proxy: {cassette} exists; pass --force to overwrite it", file=sys.stderr)
        return EXIT_INPUT
    stop = stop_on_signals()
    recorder = Recorder(args.upstream, cassette, corpus_of(args), args.profile)
    try:
        proxy = Proxy(recorder, args.port)
    except OSError as exc:
        print(f"conformance proxy: cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT
    proxy.start()
    print(f"listening on {proxy.url}, forwarding to {recorder.shown_upstream}, recording to {cassette}", flush=True)
    try:
        wait_for_stop(stop)
    finally:
        proxy.stop()
    errors = sum(1 for f in recorder.found if f.violation.severity == "error")
    faults = len(recorder.faults)
    print(
        f"{recorder.recorded} exchange(s) recorded; {len(recorder.found)} violation(s), {errors} error(s);"
        f" {faults} fault(s)"
    )
    # A fault is an exchange that was not recorded or not judged: not a clean session, whatever the rest found.
    return EXIT_INPUT if faults else EXIT_FOUND if errors else EXIT_OK
