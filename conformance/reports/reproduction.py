"""What `conformance reproduce` says ran: which library, at which version, and whether it was the
library itself (a harness) or the Python reproduction standing in for it, so that a verdict from the
stand-in never reads like a run of the real code."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.corpus.loading import BugCase


@dataclass(frozen=True)
class Ran:
    """What ran a bug case: the `library` and its `version` (as the harness reports them, or the
    case's project and the version the reproduction models), and whether it was the library itself."""

    library: str
    version: str
    real: bool

    @property
    def what(self) -> str:
        if self.real:
            return f"{self.library} {self.version} (the library itself)"
        return f"{self.library} {self.version} (its Python reproduction, not the library itself)"


def headline(bug: BugCase, ran: Ran) -> str:
    """The first line: the bug, as far as the run shows it. A release can carry less of a bug than its
    description (the case's `harness.shows` says what it does show); the reproduction models all of it."""
    shows = (bug.data.get("harness") or {}).get("shows") if ran.real else None
    return f"{bug.id} in {ran.what}: {shows or bug.description}"


def verdict(ran: Ran, reproduced: bool, summary: str) -> str:
    word = "REPRODUCED" if reproduced else "NOT REPRODUCED"
    how = "by the library itself" if ran.real else "by the Python reproduction only"
    return f"{word} in {ran.library} {ran.version} {how}: {summary}"
