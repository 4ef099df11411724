"""Located problems in input files: what `conformance check` and the loaders report."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One broken rule in one file. `rule` is a stable name, e.g. `schema`, `id-unique`."""

    path: str
    line: int | None
    rule: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: [{self.rule}] {self.message}"


class InputError(Exception):
    """Input that cannot be used, carrying every problem found in it."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))
