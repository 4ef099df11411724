"""Which cases `conformance run` runs: case ids named on the command line, and `-k EXPR` as pytest reads
it (case-insensitive substrings of the case id joined by `and`, `or`, `not` and parentheses), so that
`-k weather` selects the same cases in `conformance run` as in `pytest`.

The expression is compiled by pytest's own `-k` parser (pytest is a dependency of the suite), so the
grammar, and what it refuses, is pytest's.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

from conformance.corpus.loading import Scenario


class SelectionError(ValueError):
    """A case id the corpus does not hold, or a `-k` expression that does not parse."""


def _keyword_matcher(expression: str) -> Any:
    from _pytest.mark.expression import Expression

    try:
        return Expression.compile(expression)
    except Exception as exc:  # pytest 8 raises its own ParseError here, pytest 9 a SyntaxError
        raise SelectionError(f"-k {expression!r} is not an expression pytest's -k reads: {exc}") from None


def select_cases(scenarios: Sequence[Scenario], case_ids: Sequence[str], keyword: str | None) -> list[Scenario]:
    """The scenarios named by id (in the order given) or, with none named, all of them; then those
    whose id `keyword` matches. An id the scenarios do not hold is an error naming the closest ones."""
    by_id = {s.id: s for s in scenarios}
    unknown = [case_id for case_id in case_ids if case_id not in by_id]
    if unknown:
        close = difflib.get_close_matches(unknown[0], list(by_id), n=3, cutoff=0.5)
        hint = f" (did you mean {', '.join(close)}?)" if close else " (`conformance run -v` lists every case id)"
        raise SelectionError(f"no case {unknown[0]!r} in the corpus{hint}")
    chosen = [by_id[c] for c in dict.fromkeys(case_ids)] if case_ids else list(scenarios)
    if keyword is None:
        return chosen
    expression = _keyword_matcher(keyword)

    def matches(scenario: Scenario) -> bool:
        text = scenario.id.lower()
        return bool(expression.evaluate(lambda name, /, **_: name.lower() in text))

    return [s for s in chosen if matches(s)]
