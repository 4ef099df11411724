"""Turns by model family: where the models of one API disagree on what a turn is.

Gemini reads consecutive contents of one role as one turn for most models. The reports show Gemini 3
Pro models refusing one shape: a model turn's calls in one content answered by function responses
split over consecutive user contents, each content counted as a turn against the calls (eino-ext
#571). Calls split over model contents and answered in one user content got 200 from
gemini-3-flash-preview (recorded traffic), so only the reported shape is reported, and only for the
models the reports name. Which models do what is data, with the date and source of each observation
(`model_behaviours` in the wire-type cases); the model is the one the run names (the scenario's),
else the one the responses say served them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from conformance.engine.exchange import Exchange
from conformance.engine.rules.context import CheckContext
from conformance.engine.violations import Violation

ONE_TURN_PER_CONTENT = "one-turn-per-content"


def behaviours(ctx: CheckContext, name: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(wire type, behaviour) for each recorded behaviour of the API with this name."""
    for case in ctx.corpus.wire_types.values():
        if case.api != ctx.dialect.api:
            continue
        for entry in case.data.get("model_behaviours") or ():
            if isinstance(entry, dict) and entry.get("behaviour") == name:
                yield case.id, entry


def family_of(model: str | None, pattern: str) -> bool:
    if not model:
        return False
    return re.search(pattern, model.removeprefix("models/")) is not None


def served_model(exchange: Exchange, before: int) -> str | None:
    """The model the latest response before request `before` says served it (Gemini's modelVersion)."""
    for turn in reversed(exchange.turns):
        if turn.index >= before:
            continue
        payload = turn.served.payload
        bodies = (
            [payload.get("body")] if not payload.get("stream") else [e.get("data") for e in payload.get("events", ())]
        )
        for body in bodies:
            if isinstance(body, dict) and isinstance(body.get("modelVersion"), str):
                return str(body["modelVersion"])
    return None


def check_request(ctx: CheckContext, exchange: Exchange, index: int, body: Any) -> list[Violation]:
    split_responses = getattr(ctx.dialect, "split_responses", None)
    if split_responses is None:
        return []
    split = split_responses(body, f"request[{index}]")
    if not split:
        return []
    model = ctx.model or served_model(exchange, index)
    found = next(((t, b) for t, b in behaviours(ctx, ONE_TURN_PER_CONTENT) if family_of(model, b["models"])), None)
    if found is None:
        return []  # the model reads consecutive contents of one role as one turn
    wire_type, behaviour = found
    error = behaviour.get("error") or {}
    out: list[Violation] = []
    for path in split:
        violation = ctx.violation(
            "pairing/count-mismatch",
            path,
            f"This content carries on the function responses of the user content before it, against calls sent "
            f"in one model content; {model} reads each content as a turn of its own ({behaviour['what']}, "
            f"{behaviour['source']}), so the calls and their function responses no longer match in number.",
            wire_type=wire_type,
            expected="every function response to a model content's calls in the one user content after it",
            received="function responses split over consecutive user contents",
            hint="Put every function response answering a model turn in the one user content after it.",
        )
        if error:
            violation = Violation(
                **{**violation.__dict__, "provider_error": error["text"], "provider_error_source": error["source"]}
            )
        out.append(violation)
    return out
