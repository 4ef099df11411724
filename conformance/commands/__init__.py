"""The subcommands of `conformance`, one module each: `register(sub)` adds its parser, `main(args)`
runs it and returns the exit code. Heavy imports stay inside `main`, so that `conformance --help`
and a command that needs little load little."""

from __future__ import annotations

from conformance.commands import check, docs, import_, lint, matrix, proxy, reproduce, run, serve

# In the order `conformance --help` lists them.
COMMANDS = (run, serve, reproduce, lint, import_, proxy, check, matrix, docs)
