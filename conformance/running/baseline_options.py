"""The baseline options of a run, as pytest and `conformance run` share them: load the file, and after
the run say what fails the run beyond the cases (stale entries) and rewrite it when asked."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from conformance.corpus.problems import InputError
from conformance.engine.outcomes import CaseResult
from conformance.running.baseline import Baseline, load_baseline, update_note, updated, write_baseline


def load_for_run(path: Path | None, *, update: bool = False) -> Baseline | None:
    """The baseline of the run, or None without one. A file that is missing is an error unless the run
    is to write it (`update`); one with problems is an error naming each, located. Raises ValueError."""
    if path is None:
        if update:
            raise ValueError("--update-baseline needs the baseline file to write (give --baseline FILE)")
        return None
    if update and not path.exists():
        return None
    if not path.is_file():
        raise ValueError(f"no baseline file {path} (--update-baseline writes one)")
    try:
        return load_baseline(path)
    except InputError as exc:
        raise ValueError(f"the baseline file has problems:\n{exc}") from None


def after_run(
    baseline: Baseline | None,
    path: Path,
    results: Sequence[CaseResult],
    known: Collection[str],
    *,
    update: bool,
    adapter: str = "",
) -> tuple[str | None, str]:
    """(why the run fails beyond its cases, or None; a note on the file rewritten, or "").

    Entries for cases the corpus no longer holds are stale, as entries whose case passes are (those
    fail their case, as `xpass`). With `update`, the file is rewritten; the run's verdicts stay those
    of the file as it was read.
    """
    gate = None
    unknown = baseline.unknown(known) if baseline is not None else []
    if unknown:
        gate = f"the baseline lists cases the corpus does not hold (stale): {', '.join(unknown)}"
    note = ""
    if update:
        document = updated(baseline, results, known, adapter)
        write_baseline(path, document)
        note = update_note(baseline, document, path)
    return gate, note
