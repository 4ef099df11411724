"""`conformance matrix`: regenerate the reports under reports/ (the compatibility matrix, the wire-types report)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.commands.common import EXIT_FOUND, EXIT_INPUT, EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    matrix = sub.add_parser(
        "matrix",
        help="regenerate the reports under reports/: the compatibility matrix (of the results files given, or of "
        "the bundled adapters and reports/results/*.json), or with --wire-types the wire-types report",
    )
    matrix.add_argument(
        "results",
        nargs="*",
        metavar="RESULTS",
        help="results JSON files to merge (default: run the bundled adapters and read DIR/results/*.json)",
    )
    matrix.add_argument(
        "--wire-types", action="store_true", help="the CallId proposal's tables and counts, from the wire-type cases"
    )
    matrix.add_argument("--output", metavar="DIR", default="reports", help="where the reports go (default: reports)")
    matrix.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 naming the files that are not what would be written"
    )
    matrix.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from conformance.reports.matrix import COMMAND
    from conformance.reports.matrix.generate import from_bundled, from_results
    from conformance.reports.matrix.outputs import stale_files, write_files

    if args.wire_types:
        if args.results:
            print("conformance matrix: --wire-types takes no results files", file=sys.stderr)
            return EXIT_INPUT
        return _wire_types(args)
    output = Path(args.output)
    if args.results:
        report = from_results([Path(p) for p in args.results])
    else:
        report = from_bundled(output, progress=lambda line: print(f"warning: {line}", file=sys.stderr))
    for line in report.summaries:
        print(line)
    if not args.check:
        written, removed = write_files(output, report.files)
        for path in written:
            print(f"wrote {path}")
        for path in removed:
            print(f"removed {path}")
        print(f"{len(report.files) - len(written)} of {len(report.files)} files unchanged under {output}")
        return EXIT_OK
    stale = stale_files(output, report.files)
    command = " ".join([COMMAND, *args.results] + ([f"--output {args.output}"] if args.output != "reports" else []))
    for path, why in stale:
        print(f"{path}: {why} what `{command}` generates")
    if stale:
        print(f"stale: run `{command}`")
        return EXIT_FOUND
    print(f"up to date: {len(report.files)} files under {output}")
    return EXIT_OK


def _wire_types(args: argparse.Namespace) -> int:
    from conformance.corpus.loading import load_corpus
    from conformance.reports.wiretypes_render import render, stale_files, write_files
    from conformance.reports.wiretypes_report import COMMAND

    rendered = render(load_corpus())
    output = Path(args.output)
    if not args.check:
        for path in write_files(output, rendered):
            print(f"wrote {path}")
        return EXIT_OK
    stale = stale_files(output, rendered)
    for path in stale:
        print(f"{path}: {'differs from' if path.is_file() else 'missing from'} what `{COMMAND}` generates")
    if stale:
        print(f"stale: run `{COMMAND}" + (f" --output {args.output}`" if args.output != "reports" else "`"))
        return EXIT_FOUND
    print(f"up to date: {', '.join(str(output / name) for name in sorted(rendered))}")
    return EXIT_OK
