"""The wire-type corpus holds every row of the CallId proposal exactly once (case or variant)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import yaml

from conformance.corpus.loading import Corpus

ROWS = yaml.safe_load((Path(__file__).parent / "data" / "callid-proposal-rows.yaml").read_text())["rows"]


def _claimed(corpus: Corpus) -> Counter[tuple[str, str, str]]:
    found: Counter[tuple[str, str, str]] = Counter()
    for case in corpus.wire_types.values():
        rows = [case.data.get("proposal")] + [v.get("proposal") for v in case.data.get("variants", [])]
        for row in rows:
            if row:
                found[(row["provider"], row["wire_type"], row["table"])] += 1
    return found


def test_the_proposal_lists_58_rows_not_64() -> None:
    # The proposal says "64 tool call/output wire types", "15 lack" and "the remaining 49", but its
    # two tables hold 15 and 43 rows.
    assert len(ROWS) == 58
    assert sum(r["table"] == "no-natural-id" for r in ROWS) == 15


def test_every_proposal_row_is_in_exactly_one_case(corpus: Corpus) -> None:
    claimed = _claimed(corpus)
    expected = Counter((r["provider"], r["wire_type"], r["table"]) for r in ROWS)
    assert claimed == expected
