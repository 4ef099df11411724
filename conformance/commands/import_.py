"""`conformance import`: turn recorded cassettes into scenarios."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.commands.common import EXIT_FOUND, EXIT_INPUT, EXIT_OK, add_corpus_options, corpus_of


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    imp = sub.add_parser(
        "import",
        help="turn recorded cassettes into scenarios: one per conversation, with a scrubbed copy of its traffic",
    )
    imp.add_argument("cassettes_to_import", nargs="+", metavar="CASSETTE")
    imp.add_argument("--api", help="only the conversations on this API")
    imp.add_argument("--id", help="the scenario id or slug (API/recorded/SLUG); further conversations get -2, -3, ...")
    imp.add_argument(
        "--conversation",
        type=int,
        action="append",
        metavar="N",
        help="only the N-th conversation (1-based; repeatable)",
    )
    imp.add_argument("--description", help="the scenario's description (default: made from the source and turns)")
    imp.add_argument(
        "--output", default=".", metavar="DIR", help="where cases/ and cassettes/ are written (default: .)"
    )
    imp.add_argument("--force", action="store_true", help="replace files that exist")
    imp.add_argument("--source-repo", metavar="OWNER/NAME", help="the public repository the recording comes from")
    imp.add_argument("--source-path", metavar="PATH", help="the recording's path in that repository")
    imp.add_argument("--source-commit", metavar="SHA", help="the commit the recording was read at (40 hex digits)")
    imp.add_argument("--licence", help="the repository's licence (SPDX: MIT, Apache-2.0, BSD-2-Clause, BSD-3-Clause)")
    imp.add_argument("--read", metavar="YYYY-MM-DD", help="the date the recording was read (default: today)")
    imp.add_argument("--edited", metavar="TEXT", help="how the recording was changed by hand, if it was")
    voicing = imp.add_mutually_exclusive_group()
    voicing.add_argument(
        "--revoice",
        action="store_true",
        help="replace every text of the recording by the project's own, keeping its facts (for a recording "
        "contributed to a public corpus; required with --source-repo)",
    )
    voicing.add_argument(
        "--no-revoice",
        dest="revoice",
        action="store_false",
        help="keep the recording's texts as recorded (the default)",
    )
    add_corpus_options(imp)
    imp.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from conformance.importer import Options, Source, import_paths

    if (args.source_repo is None) != (args.licence is None) or (args.source_repo and not args.source_commit):
        print(
            "conformance import: --source-repo needs --source-commit and --licence (a third-party recording "
            "names where it comes from and under which licence)",
            file=sys.stderr,
        )
        return EXIT_INPUT
    if args.source_repo and not args.revoice:
        print(
            "conformance import: a third-party recording enters a corpus re-voiced: add --revoice (your own "
            "recordings keep their texts, the default)",
            file=sys.stderr,
        )
        return EXIT_INPUT
    if args.source_path and len(args.cassettes_to_import) > 1:
        print("conformance import: --source-path names one file; import one cassette at a time", file=sys.stderr)
        return EXIT_INPUT
    source = Source(
        repository=args.source_repo,
        path=args.source_path,
        commit=args.source_commit,
        licence=args.licence,
        edited=args.edited,
        **({"read": args.read} if args.read else {}),
    )
    options = Options(
        output=Path(args.output),
        source=source,
        api=args.api,
        case_id=args.id,
        conversations=tuple(args.conversation or ()),
        description=args.description,
        force=args.force,
        revoice=args.revoice,
    )
    reports, unreadable = import_paths([Path(p) for p in args.cassettes_to_import], corpus_of(args), options)
    for path, exc in unreadable:
        print(
            f"{path}: unreadable: {exc.message}"
            + (f" (interaction {exc.interaction})" if exc.interaction is not None else "")
        )
    for report in reports:
        print(f"{report.path}: {report.conversations} conversation(s); {len(report.imported)} imported")
        for line in report.skipped:
            print(f"  skipped {line}")
        for imported in report.imported:
            print(f"  imported {imported.case_id} from interactions {imported.interactions}")
            print(f"    {imported.case_path}")
            print(f"    {imported.cassette_path}")
            for note in imported.notes:
                print(f"    note: {note}")
            if imported.reference:
                print(f"    warning: the reference adapter fails it: {imported.reference}")
        for refusal in report.refused:
            print(f"  refused interactions {refusal.interactions}: {refusal.reason}")
    if unreadable:
        return EXIT_INPUT
    return EXIT_OK if all(r.imported for r in reports) else EXIT_FOUND
