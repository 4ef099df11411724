"""`conformance reproduce`: replay a bug case through its reproduction adapter (or its harness)."""

from __future__ import annotations

import argparse
import sys

from conformance.commands.common import EXIT_FOUND, EXIT_INPUT, EXIT_OK, add_corpus_options, corpus_of


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rep = sub.add_parser("reproduce", help="replay a bug case through its reproduction adapter")
    rep.add_argument("bug_id", metavar="BUG-ID")
    rep.add_argument(
        "--no-harness",
        action="store_true",
        help="run the reproduction adapter even where the bug case names a harness for the library itself",
    )
    add_corpus_options(rep)
    rep.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from conformance.reports.textreport import diff_text, violation_text
    from conformance.running.runner import reproduce

    corpus = corpus_of(args)
    bug = corpus.bugs.get(args.bug_id)
    if bug is None:
        print(
            f"conformance reproduce: no bug case {args.bug_id!r}; known: {', '.join(sorted(corpus.bugs))}",
            file=sys.stderr,
        )
        return EXIT_INPUT
    from conformance.connectors.adapters import resolve_reproduction
    from conformance.connectors.harness import bug_harness
    from conformance.reports.reproduction import Ran, headline, verdict

    harness, ran_by = (None, f"{bug.reproduction} (--no-harness)") if args.no_harness else bug_harness(bug, corpus)
    if harness is not None:
        bug = harness.bug
    adapter = harness.adapter if harness is not None else resolve_reproduction(bug.reproduction)
    real = harness is not None
    ran = Ran(adapter.name, adapter.version, real=True) if real else Ran(bug.project, adapter.version, real=False)
    try:
        result = reproduce(bug, corpus, args.profile, adapter)
    finally:
        if harness is not None:
            harness.adapter.close()
    print(headline(bug, ran))
    print(f"  report: {bug.report}")
    for fix in bug.fixes:
        print(f"  fix:    {fix}")
    print(f"  scenario: {bug.scenario}   reproduction: {ran_by}")
    if bug.provider_error:
        print(f"  the provider answered: {bug.provider_error['text']}")
    print()
    if result.outcome == "error":
        print(f"the reproduction errored: {result.summary}")
        if result.detail:
            print(result.detail)
        return EXIT_FOUND
    for i, violation in enumerate(result.violations):
        print(violation_text(violation, result.api, result.quotes.get(i)))
    if result.diff:
        print()
        print(diff_text(result.diff))
    print()
    print(f"expected: {', '.join(bug.expected)}")
    print(verdict(ran, result.outcome == "pass", result.summary))
    return EXIT_OK if result.outcome == "pass" else EXIT_FOUND
