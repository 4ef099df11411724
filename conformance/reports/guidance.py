"""What `conformance run` says before its first case and after its summary: what it is about to run,
and what to do next with what it found."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from conformance.engine.wording import plural


def opening(who: str, mode: str, case_apis: Sequence[str], narrowed: bool) -> str:
    """The run's first line: the adapter, how it runs, and how many cases of which APIs (`case_apis`: the
    API of each case that will be judged)."""
    apis = sorted(set(case_apis))
    which = "selected" if narrowed else "served"
    shown = ", ".join(apis) if len(apis) <= 4 else f"{', '.join(apis[:3])} and {len(apis) - 3} more"
    scope = (
        f"{plural(len(case_apis), 'case')} of the {plural(len(apis), f'{which} API')} ({shown})"
        if apis
        else ("no case (the selection holds none of an API the adapter serves)")
    )
    return (
        f"conformance run: {who}, {mode}, on {scope}; "
        "a failing case is printed as it fails, the summary after the last one"
    )


def next_steps(rerun: Sequence[str], failing: Sequence[str], baseline: str | None) -> list[str]:
    """The lines that close a run: how to look at a failing case, or how to keep the run in CI.
    `rerun`: the command line that runs this adapter again (`conformance run --adapter ...`)."""
    command = shlex.join(rerun)
    if failing:
        lines = [f"next: {command} {shlex.quote(failing[0])} --show-requests   (one failing case, with its requests)"]
        if baseline is None:
            lines.append(
                f"      {command} --baseline conformance-baseline.yaml --update-baseline   "
                "(record today's failures as expected; CI then fails only on new ones)"
            )
        return lines
    return ["next: run it in CI on every change: README.md, 'In CI' (the GitHub Action, or pytest with a baseline)"]
