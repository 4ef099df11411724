"""`conformance serve`: play scenarios over HTTP to a client in any language, and judge what it sends."""

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
    serve = sub.add_parser(
        "serve",
        help="play scenarios over HTTP on 127.0.0.1 to a client in any language, and judge what it sends",
    )
    serve.add_argument("scenario_ids", nargs="*", metavar="SCENARIO_ID", help="scenarios to serve")
    serve.add_argument("--api", action="append", help="serve every scenario of this API too (repeatable)")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=0, help="the port to listen on (default: a free one)")
    serve.add_argument("--report", metavar="PATH", help="write the results JSON here when the server stops")
    serve.add_argument(
        "--show-requests",
        action="store_true",
        help="when the server stops, print every request received beside the recorded one",
    )
    add_corpus_options(serve)
    serve.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from conformance.connectors.serving import ScenarioServer
    from conformance.engine.outcomes import FAILING
    from conformance.engine.requests_view import requests_text
    from conformance.reports.textreport import case_text, nothing_judged, summary_table
    from conformance.running.results import served_document, write_results

    corpus = corpus_of(args)
    wanted = list(args.scenario_ids or ())
    unknown = [i for i in wanted if i not in corpus.scenarios]
    if unknown:
        print(f"conformance serve: no scenario {', '.join(map(repr, unknown))}", file=sys.stderr)
        return EXIT_INPUT
    chosen = [corpus.scenarios[i] for i in wanted]
    for api in args.api or ():
        chosen += [s for s in sorted(corpus.scenarios.values(), key=lambda s: s.id) if s.api == api]
    if not chosen:
        print("conformance serve: name the scenarios to serve (SCENARIO_ID... or --api NAME)", file=sys.stderr)
        return EXIT_INPUT
    stop = stop_on_signals()  # before the listing is printed: a client may signal as soon as it reads it
    server = ScenarioServer(corpus, args.profile, args.host, args.port)
    server.server.results = lambda: served_document(server)  # what /_conformance/results answers
    try:
        server.start()
    except OSError as exc:
        print(f"conformance serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT
    try:
        listings = server.add_all({s.id: s for s in chosen}.values())
        print(f"listening on {server.url}", flush=True)
        for listing in listings:
            print(f"{listing.scenario} {listing.api} {listing.base_url}", flush=True)
        wait_for_stop(stop)
        results = server.verdicts(show_requests=args.show_requests)
    finally:
        server.stop()
    for result in results:
        # Each failing case in full, as `conformance run` prints it: the violations, not counts only.
        if result.outcome in FAILING:
            print(case_text(result, "serve"), end="\n\n", file=sys.stderr)
        if args.show_requests and result.requests is not None and result.outcome != "not-run":
            print(f"{result.case_id}: the requests received", file=sys.stderr)
            print(requests_text(result.requests), end="\n\n", file=sys.stderr)
    print(summary_table(results), file=sys.stderr)
    if args.report:
        write_results(Path(args.report), served_document(server, results))
        print(f"results: {args.report}", file=sys.stderr)
    gate = nothing_judged(results)
    if gate:
        # No client came: a CI step that started the server and never reached it has tested nothing.
        print(f"FAILED: {gate}", file=sys.stderr)
        return EXIT_FOUND
    return EXIT_FOUND if any(r.outcome in FAILING for r in results) else EXIT_OK
