"""What a generated search says: the shrunk failure, its files, and the command that reruns it."""

from __future__ import annotations

import shlex
from pathlib import Path

from conformance.generated.search import Search, size
from conformance.reports.textreport import case_text


def selector(adapter_spec: str, harness: str | None = None) -> str:
    """The option that names what ran: the harness's command, else the adapter."""
    return f"--conformance-harness={harness}" if harness else f"--conformance-adapter={adapter_spec}"


def rerun_command(chosen: str, cases: Path, case_id: str, base: Path | None = None) -> str:
    """The pytest command that runs the written scenario alone, by its id; `chosen` is `selector(...)`."""
    where = cases
    if base is not None:
        try:
            where = cases.relative_to(base)
        except ValueError:
            where = cases
    return shlex.join(["pytest", chosen, f"--conformance-cases={where}", f"conformance::{case_id}"])


def failure_text(
    found: Search, adapter_spec: str, seed: int, base: Path | None = None, *, harness: str | None = None
) -> str:
    failure = found.failure
    if failure is None:
        return f"{found.api}: {found.examples} generated scenarios passed (seed {seed})"
    lines = [
        f"{found.api}: a generated scenario fails with {', '.join(failure.codes)} (seed {seed}: found at "
        f"scenario {found.first_at}, shrunk by hypothesis over {found.examples - found.first_at} more)",
        "",
        case_text(failure.result, adapter_spec),
    ]
    if found.first is not None:
        (calls0, bytes0), (calls1, bytes1) = size(found.first), size(failure.document)
        lines += ["", f"shrunk: {calls0} calls, {bytes0} bytes of case file -> {calls1} calls, {bytes1} bytes"]
    if found.written is not None:
        case, cassette = found.written
        cases_root = case.parents[len(Path(str(failure.document["id"])).parts)]
        lines += [
            "",
            "the scenario, to commit beside your tests:",
            f"  case:     {case}",
            f"  cassette: {cassette}",
            "rerun it:",
            "  " + rerun_command(selector(adapter_spec, harness), cases_root, str(failure.document["id"]), base),
        ]
    return "\n".join(lines)
