"""format/*: ids sent obey the target API's grammar, with limits read from the wire-type cases."""

from __future__ import annotations

import re

from conformance.corpus import Limit
from conformance.rules.context import CheckContext
from conformance.violations import Violation
from conformance.wire import History


def _describe(limit: Limit) -> str:
    note = f"; {limit.note}" if limit.note else ""
    return f"observed {limit.observed}, {limit.source}{note}"


def check_request(ctx: CheckContext, history: History) -> list[Violation]:
    out: list[Violation] = []
    items = [(c.call_id, c.wire_type, c.id_field, c.id_path) for c in history.calls()]
    items += [(c.item_id, c.wire_type, c.item_field, c.item_path) for c in history.calls() if c.item_id]
    items += [(r.call_id, r.wire_type, r.id_field, r.id_path) for r in history.results()]
    for value, wire_type, field, location in items:
        if not value:
            continue  # empty and missing ids are roundtrip and pairing problems
        for limit in ctx.corpus.limits(wire_type, field):
            if not limit.enforced:
                continue
            if limit.max_length is not None and len(value) > limit.max_length:
                out.append(
                    ctx.violation(
                        "format/id-length",
                        location,
                        f"The id is {len(value)} characters long; {ctx.dialect.api} accepts at most "
                        f"{limit.max_length} ({_describe(limit)}).",
                        wire_type=wire_type,
                        expected=f"at most {limit.max_length} characters",
                        received=value,
                    )
                )
            if limit.min_length is not None and len(value) < limit.min_length:
                out.append(
                    ctx.violation(
                        "format/id-length",
                        location,
                        f"The id is {len(value)} characters long; {ctx.dialect.api} needs at least "
                        f"{limit.min_length} ({_describe(limit)}).",
                        wire_type=wire_type,
                        expected=f"at least {limit.min_length} characters",
                        received=value,
                    )
                )
            if limit.pattern is not None and not re.fullmatch(limit.pattern, value):
                out.append(
                    ctx.violation(
                        "format/id-pattern",
                        location,
                        f"The id {value!r} does not match {limit.pattern!r}, which {ctx.dialect.api} "
                        f"requires ({_describe(limit)}).",
                        wire_type=wire_type,
                        expected=limit.pattern,
                        received=value,
                    )
                )
    return out
