"""`conformance check`: validate the corpus."""

from __future__ import annotations

import argparse
from pathlib import Path

from conformance.commands.common import EXIT_FOUND, EXIT_OK, add_corpus_options


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = sub.add_parser("check", help="validate the corpus")
    check.add_argument("--no-examples", action="store_true", help="skip validating examples against SDK models")
    add_corpus_options(check)
    check.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from conformance.check import check_corpus, summary

    report = check_corpus(
        [Path(p) for p in args.cases or ()], [Path(p) for p in args.cassettes or ()], examples=not args.no_examples
    )
    for problem in report.problems:
        print(problem)
    for note in report.notes:
        print(f"note: {note}")
    print(summary(report))
    return EXIT_FOUND if report.problems else EXIT_OK
