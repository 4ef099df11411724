"""`conformance lint`: check recorded cassettes' requests against their responses."""

from __future__ import annotations

import argparse
from pathlib import Path

from conformance.commands.common import EXIT_FOUND, EXIT_INPUT, EXIT_OK, add_corpus_options, corpus_of


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lint = sub.add_parser("lint", help="check recorded cassettes' requests against their responses")
    lint.add_argument("cassettes_to_lint", nargs="+", metavar="CASSETTE")
    add_corpus_options(lint)
    lint.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from conformance.lint import lint_path, lint_verdict
    from conformance.recordings.cassette import CassetteError
    from conformance.reports.textreport import violation_text

    corpus = corpus_of(args, wire_types_only=True)  # the rules read wire types; lint plays no scenario
    status = EXIT_OK
    for raw in args.cassettes_to_lint:
        try:
            report = lint_path(Path(raw), corpus, args.profile)
        except CassetteError as exc:
            print(
                f"{raw}: unreadable: {exc.message}"
                + (f" (interaction {exc.interaction})" if exc.interaction is not None else "")
            )
            status = EXIT_INPUT
            continue
        checked = ", ".join(f"{api} ({n})" for api, n in sorted(report.checked.items()))
        if not checked:
            verdict = "nothing checked"
        else:
            verdict = (
                f"checked {checked}: {lint_verdict(len(report.errors), len(report.violations) - len(report.errors))}"
            )
        print(f"{raw}: {report.interactions} interaction(s); {verdict}")
        for line in report.unchecked:
            print(f"  not checked: {line}")
        for line in report.unreadable:
            print(f"  unreadable: {line}")
        if report.unreadable:
            status = EXIT_INPUT
        for line in report.notes:
            print(f"  note: {line}")
        for api, violation in report.violations:
            print(violation_text(violation, api, report.quote(violation)))
        if report.errors and status == EXIT_OK:
            status = EXIT_FOUND
    return status
