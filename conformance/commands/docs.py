"""`conformance docs`: regenerate the parts of the docs made from data."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.commands.common import EXIT_FOUND, EXIT_INPUT, EXIT_OK, add_corpus_options, corpus_of
from conformance.commands.run import parser as run_parser


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    docs = sub.add_parser(
        "docs",
        help="regenerate the parts of the docs made from data (scenario lists, option tables, the official "
        "SDKs' failures)",
    )
    docs.add_argument("--docs", metavar="DIR", default="docs", help="the docs directory (default: docs)")
    docs.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 naming the pages whose generated parts are stale"
    )
    docs.add_argument(
        "--sdk-results",
        metavar="RESULTS",
        help="a results JSON of conformance.clients.official_sdks:ADAPTER: its failures become "
        "DIR/data/official-sdks.json",
    )
    add_corpus_options(docs)
    docs.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from conformance.docgen import COMMAND, DocsError, stale, write, write_sdk_digest

    docs = Path(args.docs)
    try:
        if args.sdk_results:
            print(f"wrote {write_sdk_digest(docs, Path(args.sdk_results))}")
        corpus = corpus_of(args)
        if not args.check:
            written = write(docs, corpus, run_parser())
            print(f"{len(written)} page(s) rewritten under {docs}" if written else f"up to date: {docs}")
            return EXIT_OK
        found = stale(docs, corpus, run_parser())
    except (DocsError, ValueError) as exc:
        print(f"conformance docs: {exc}", file=sys.stderr)
        return EXIT_INPUT
    for path in found:
        print(f"{path}: differs from what `{COMMAND}` generates")
    if found:
        print(f"stale: run `{COMMAND}`")
        return EXIT_FOUND
    print(f"up to date: the generated parts of {docs}")
    return EXIT_OK
