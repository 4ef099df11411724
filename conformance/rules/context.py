"""What the rules need besides the exchange, and the one way they build a violation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance.corpus import Corpus
from conformance.dialects.base import Dialect
from conformance.violations import CODES, Violation, severity_of


@dataclass
class CheckContext:
    corpus: Corpus
    dialect: Dialect
    profile: str = "default"
    # natural call id -> the canned output the scenario answers it with (codec runs)
    expected_outputs: Mapping[str, str] = field(default_factory=dict)
    tool_names: frozenset[str] = frozenset()

    def violation(
        self,
        code: str,
        location: str,
        message: str,
        *,
        wire_type: str | None = None,
        **details: Any,
    ) -> Violation:
        known = self.corpus.error_text(self.dialect.api, code, wire_type)
        return Violation(
            code=code,
            severity=severity_of(code, self.profile),
            location=location,
            message=message,
            hint=details.pop("hint", CODES[code].hint),
            provider_error=known.text if known else None,
            provider_error_source=known.source if known else None,
            **details,
        )


def dedupe(violations: list[Violation], key: Any) -> list[Violation]:
    """Keep the first violation per key; later ones become its `related` locations."""
    first: dict[Any, Violation] = {}
    order: list[Any] = []
    for v in violations:
        k = key(v)
        if k not in first:
            first[k] = v
            order.append(k)
        else:
            kept = first[k]
            first[k] = Violation(**{**kept.__dict__, "related": (*kept.related, v.location)})
    return [first[k] for k in order]
