"""The `conformance` command: the top parser and the dispatch. Each subcommand is a module of
conformance/commands/ that adds its own parser and runs it.

Exit codes: 0 success; 1 the thing checked has problems (failing cases, a run that judged no
case, violations, a bug that does not reproduce, corpus problems); 2 the input cannot be used
(unreadable file, bad arguments, unknown API, an adapter that cannot be loaded, unknown bug id).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from conformance import __version__
from conformance.commands import COMMANDS
from conformance.commands.common import EXIT_INPUT
from conformance.commands.run import parser as run_parser

__all__ = ["build_parser", "main", "run_parser"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="conformance", description="Tool-call id conformance suite.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from conformance.connectors.contract import AdapterSpecError
    from conformance.corpus.problems import InputError

    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (AdapterSpecError, InputError) as exc:
        print(f"conformance {args.command}: {exc}", file=sys.stderr)
        return EXIT_INPUT


if __name__ == "__main__":
    raise SystemExit(main())
