"""The fields a served call must come back with, besides its ids, name and arguments.

Two sources, both the provider's: what the dialect reads as opaque where it sits outside the item
(Gemini's thought signature, on the part around the call), and the `returned_fields` the call's
wire-type case names (OpenAI's `namespace`, Anthropic's `caller`), read from the item as served.
The list is data: a field a provider starts to require is a change to its wire-type case.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.corpus.loading import Corpus, ErrorText, ReturnedField
from conformance.engine.wire import WireCall


def declared(corpus: Corpus, wire_type: str) -> tuple[ReturnedField, ...]:
    case = corpus.wire_types.get(wire_type)
    return case.returned_fields if case else ()


def returned(corpus: Corpus, call: WireCall) -> dict[str, Any]:
    """What the call carries that must come back unchanged, by field."""
    out = dict(call.opaque)
    for spec in declared(corpus, call.wire_type):
        value = _value(call.fields, spec)
        if value is not None:
            out[spec.field] = value
    return out


def refusal(corpus: Corpus, wire_type: str, name: str) -> ErrorText | None:
    """The provider's error for a replay without the field, where the case records one."""
    return next((s.error for s in declared(corpus, wire_type) if s.field == name), None)


def is_declared(corpus: Corpus, wire_type: str, name: str) -> bool:
    return any(s.field == name for s in declared(corpus, wire_type))


def _value(item: Mapping[str, Any], spec: ReturnedField) -> Any:
    value = item.get(spec.field)
    return None if value is None or value in spec.ignore else value
