"""The rules engine: an exchange in, violations out. Every connector gets every check."""

from __future__ import annotations

import dataclasses
import gc
import re
from collections.abc import Iterator
from contextlib import contextmanager

from conformance.engine.dialects import dialect_for
from conformance.engine.exchange import Exchange
from conformance.engine.rules import (
    continuation,
    declared,
    decoding,
    determinism,
    idformat,
    pairing,
    roundtrip,
    shape,
    tool_definitions,
    turns,
)
from conformance.engine.rules import (
    history as prior_history,
)
from conformance.engine.rules.alignment import echoes
from conformance.engine.rules.context import CheckContext, dedupe
from conformance.engine.violations import Violation

__all__ = ["CheckContext", "check"]


def _key(v: Violation) -> tuple[str, str, str, str]:
    # The same fault repeats in every later request that carries the same history: report it
    # once, at its first location, and list the others. Same fault = same code, values and path
    # within the request.
    path = re.sub(r"^request\[\d+\]", "", v.location)
    return (v.code, path, repr(v.expected), repr(v.received))


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The rules allocate one small record per message and call and free them all at the end;
    Python's cyclic collector would otherwise walk every live object again and again meanwhile
    (the exchange's bodies included), doubling the time of a long history. The records form no
    cycles, so nothing is left for it to find."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _model(body: object) -> str | None:
    """The model a request body names (the limits of some providers depend on it); None where the
    model travels in the URL (Gemini, Bedrock) or is absent."""
    model = body.get("model") if isinstance(body, dict) else None
    return model if isinstance(model, str) else None


def check(exchange: Exchange, ctx: CheckContext) -> list[Violation]:
    with _collector_paused():
        return _check(exchange, ctx)


def _check(exchange: Exchange, ctx: CheckContext) -> list[Violation]:
    found: list[Violation] = []
    known = roundtrip.Known()
    for position, turn in enumerate(exchange.turns):
        # A body the dialect cannot read raises DialectError: the caller decides what it means.
        history = ctx.dialect.history(turn.request, f"request[{turn.index}]")
        # Which sent call echoes which served call: both pairing and round-trip rules need it.
        # A request continuing a stored history does not send the served calls back.
        echoed = [] if history.continues else echoes(exchange, turn.index, history, ctx.replayable)
        found.extend(pairing.check_request(ctx, history, echoed))
        found.extend(continuation.check_request(ctx, exchange, turn.index, history))
        found.extend(roundtrip.check_request(ctx, turn.index, history, echoed))
        if position == 0:
            known.add(history.calls())  # the history the exchange began with
            found.extend(prior_history.check_first_request(ctx, turn.index, history))
        else:
            found.extend(roundtrip.unserved(ctx, history, echoed, known))
        known.add(turn.served.calls)
        # Where the model travels in the URL (Bedrock, Gemini), the run's model picks the limits in force.
        found.extend(idformat.check_request(ctx, history, _model(turn.request) or ctx.model))
        found.extend(shape.check_request(ctx, turn.request, history))
        found.extend(tool_definitions.check_request(ctx, turn.request, history, f"request[{turn.index}]"))
        found.extend(turns.check_request(ctx, exchange, turn.index, turn.request))
        found.extend(declared.check_turn(ctx, turn))
        found.extend(determinism.check_turn(ctx, turn, history))
    if exchange.decoded:
        found.extend(decoding.check(ctx, exchange))
    if exchange.history_api and exchange.history_turns:
        # A history played through the adapter's codec for its own API: that decoder is checked too,
        # against that API's wire.
        played = Exchange(
            api=exchange.history_api,
            turns=exchange.history_turns,
            decoded=exchange.history_decoded,
            redecoded=exchange.history_redecoded,
        )
        history_ctx = dataclasses.replace(ctx, dialect=dialect_for(exchange.history_api))
        found.extend(decoding.check(history_ctx, played, "history."))
    return dedupe(found, _key)
