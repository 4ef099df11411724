"""format/*: ids sent obey the target API's grammar, with limits read from the wire-type cases.

Every id a dialect exposes (a call's id, a call item's own id, a result's reference) is checked
against the limits its wire-type case records for that field. Only limits the provider enforces
today are errors; a limit it has dropped or widened is a warning where the case says compatible
servers or older deployments still enforce it (`afterwards: warning`), and is ignored otherwise.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from dataclasses import replace

from conformance.corpus.loading import Limit
from conformance.engine.rules.context import CheckContext
from conformance.engine.violations import Violation
from conformance.engine.wire import History


def _describe(limit: Limit) -> str:
    parts = [f"observed {limit.observed}, {limit.source}"]
    if limit.assumed:
        parts.append("assumed for this field from another one")
    if limit.until:
        parts.append(
            f"no longer enforced by the provider itself since {limit.until} ({limit.until_source}), "
            "but compatible servers and older deployments still enforce it"
        )
    if limit.note:
        parts.append(limit.note)
    return "; ".join(parts)


def _breaches(limit: Limit, value: str, api: str) -> list[tuple[str, str, str]]:
    """(code, message, expected) for each way `value` breaks `limit`."""
    found = []
    if limit.max_length is not None and len(value) > limit.max_length:
        found.append(
            (
                "format/id-length",
                f"The id is {len(value)} characters long; {api} accepts at most {limit.max_length} "
                f"({_describe(limit)}).",
                f"at most {limit.max_length} characters",
            )
        )
    if limit.min_length is not None and len(value) < limit.min_length:
        found.append(
            (
                "format/id-length",
                f"The id is {len(value)} characters long; {api} needs at least {limit.min_length} "
                f"({_describe(limit)}).",
                f"at least {limit.min_length} characters",
            )
        )
    if limit.pattern is not None and _compiled(limit.pattern).fullmatch(value) is None:
        found.append(
            (
                "format/id-pattern",
                f"The id {value!r} does not match {limit.pattern!r}, which {api} requires ({_describe(limit)}).",
                limit.pattern,
            )
        )
    return found


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# Per limit that applies: (longest, shortest, the pattern's fullmatch or None).
_Bounds = tuple[tuple[float, int, Callable[[str], object] | None], ...]


def _bound(limits: tuple[Limit, ...], model: str | None) -> tuple[Limit, ...]:
    """The limits in force for the request's model: a provider that checks ids by the model's
    tokenizer applies one record to some models and another to the rest."""
    return tuple(limit for limit in limits if limit.binds(model))


def _bounds(limits: tuple[Limit, ...]) -> _Bounds:
    return tuple(
        (
            limit.max_length if limit.max_length is not None else math.inf,
            limit.min_length or 0,
            _compiled(limit.pattern).fullmatch if limit.pattern is not None else None,
        )
        for limit in limits
        if limit.applies is not None
    )


def _violations(
    ctx: CheckContext, value: str, wire_type: str, field: str, location: str, model: str | None = None
) -> list[Violation]:
    """What an id that breaks a limit of its field violates."""
    errors: list[Violation] = []
    warnings: list[Violation] = []
    for limit in _bound(ctx.corpus.limits(wire_type, field), model):
        applies = limit.applies
        if applies is None:
            continue
        for code, message, expected in _breaches(limit, value, ctx.dialect.api):
            found = ctx.violation(code, location, message, wire_type=wire_type, expected=expected, received=value)
            if limit.error_text:
                found = replace(found, provider_error=limit.error_text, provider_error_source=limit.error_source)
            elif applies == "warning":
                # The wire type's quoted error belongs to the limit enforced today, not to this one.
                found = replace(found, provider_error=None, provider_error_source=None)
            if applies == "warning" and ctx.profile != "strict":
                warnings.append(replace(found, severity="warning"))
            else:
                errors.append(found)
    # A warning about a dropped limit adds nothing where the limit enforced today is broken too.
    failed = {v.code for v in errors}
    return errors + [v for v in warnings if v.code not in failed]


def check_request(ctx: CheckContext, history: History, model: str | None = None) -> list[Violation]:
    """`model` is the request's model, where its body names one: it picks the limits in force."""
    out: list[Violation] = []
    known: dict[tuple[str, str], _Bounds] = {}  # each wire type's field, its limits read once a request

    def keeps(value: str, wire_type: str, field: str) -> bool:
        """Whether the value keeps every limit that applies: the common case, decided without
        building any message."""
        key = (wire_type, field)
        bounds = known.get(key)
        if bounds is None:
            bounds = known[key] = _bounds(_bound(ctx.corpus.limits(wire_type, field), model))
        size = len(value)
        for longest, shortest, fullmatch in bounds:
            if size > longest or size < shortest or (fullmatch is not None and fullmatch(value) is None):
                return False
        return True

    # Empty and missing ids are roundtrip and pairing problems.
    for message in history.messages:
        for call in message.calls:
            if call.call_id and not keeps(call.call_id, call.wire_type, call.id_field):
                out.extend(_violations(ctx, call.call_id, call.wire_type, call.id_field, call.id_path, model))
            if call.item_id and not keeps(call.item_id, call.wire_type, call.item_field):
                out.extend(_violations(ctx, call.item_id, call.wire_type, call.item_field, call.item_path, model))
        for result in message.results:
            if result.call_id and not keeps(result.call_id, result.wire_type, result.id_field):
                out.extend(_violations(ctx, result.call_id, result.wire_type, result.id_field, result.id_path, model))
    return out
