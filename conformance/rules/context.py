"""What the rules need besides the exchange, and the one way they build a violation."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance.corpus import Corpus, ExpectedCall
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
    # every call of the scenario, prior history included, with its canned output
    expected_calls: tuple[ExpectedCall, ...] = ()

    def expected_for(self, call: Any) -> ExpectedCall | None:
        """The scenario call a wire call stands for: same id, else same name and arguments."""
        if call.call_id:
            same = next((c for c in self.expected_calls if c.id == call.call_id), None)
            if same is not None:
                return same
        arguments = call.arguments
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                return None
        return next(
            (c for c in self.expected_calls if c.name == call.name and dict(c.arguments) == arguments),
            None,
        )

    def replayable(self, call: Any) -> bool:
        """Whether the API takes the call back as request input (history replay): its wire type is
        request input, or is a streamed form reassembled into one (a chunk referencing its call type).
        Output-only items (Azure Foundry's server-run tool calls) are not sent back."""
        case = self.corpus.wire_types.get(call.wire_type)
        if case is None or case.request_input:
            return True
        target = str(case.data.get("references", {}).get("target", "")).split(".", 1)[0]
        into = self.corpus.wire_types.get(target)
        return into is not None and into.role == case.role and into.request_input

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
