"""Repeated violations of one code in one case, folded: the first in full, the rest as a count and
their locations. One planted bug (an id replaced everywhere) breaks the same rule at every call of
every turn; a report of hundreds of identical blocks hides the one thing to fix."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from conformance.engine.violations import Violation

# Locations listed for the folded ones; the results JSON keeps every violation.
SHOWN_LOCATIONS = 5


@dataclass(frozen=True)
class Folded:
    index: int  # of the first violation, in the result's list (its provider quote is keyed by it)
    first: Violation
    more: tuple[Violation, ...]  # the same code and severity, after the first

    def more_line(self) -> str:
        if not self.more:
            return ""
        places = ", ".join(v.location for v in self.more[:SHOWN_LOCATIONS])
        rest = len(self.more) - SHOWN_LOCATIONS
        tail = f" and {rest} more" if rest > 0 else ""
        return f"      … and {len(self.more)} more {self.first.code} like it, at {places}{tail}"


def fold(shown: Sequence[tuple[int, Violation]]) -> list[Folded]:
    """The violations grouped by (code, severity), in the order each group first appears."""
    groups: dict[tuple[str, str], tuple[int, Violation, list[Violation]]] = {}
    for index, violation in shown:
        key = (violation.code, violation.severity)
        if key in groups:
            groups[key][2].append(violation)
        else:
            groups[key] = (index, violation, [])
    return [Folded(i, first, tuple(more)) for i, first, more in groups.values()]
