"""The openai-responses cassettes against openai-python: every response body and stream event.

The helpers here serve the other Responses-family fidelity tests too.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

from conformance.corpus.loading import Scenario, load_corpus
from conformance.recordings.cassette import load_cassette
from conformance.recordings.sse import parse_events

_corpus = load_corpus()


def scenarios_of(api: str) -> list[Scenario]:
    # Constructed cassettes only: a recorded one is the provider's own bytes, which win where a model disagrees.
    return sorted((s for s in _corpus.scenarios.values() if s.api == api and not s.recorded), key=lambda s: s.id)


SCENARIOS = scenarios_of("openai-responses")


def bodies(scenario: Scenario) -> list[tuple[bool, Any]]:
    out: list[tuple[bool, Any]] = []
    for interaction in load_cassette(_corpus.cassette_path(scenario)):
        response = interaction.response
        if response.is_event_stream:
            events = parse_events(response.body)
            assert events
            out.extend((True, e.data) for e in events)
        else:
            out.append((False, response.json()))
    return out


def by_type(members: tuple[Any, ...], literal_of: Callable[[Any], Any]) -> dict[str, Any]:
    """Event models keyed by their `type` literal, so a failure names the one model that applies."""
    found: dict[str, Any] = {}
    for member in members:
        literal = literal_of(member)
        while literal is not None and typing.get_args(literal) and not isinstance(typing.get_args(literal)[0], str):
            literal = typing.get_args(literal)[0]
        values = typing.get_args(literal) if literal is not None else ()
        if values:
            found[values[0]] = member
    return found


@cache
def openai_events() -> dict[str, Any]:
    from openai.types.responses import ResponseStreamEvent

    members = typing.get_args(ResponseStreamEvent)
    if members and typing.get_args(members[0]):
        members = typing.get_args(members[0])  # Annotated[Union[...], ...]
    return by_type(members, lambda m: m.model_fields["type"].annotation if "type" in m.model_fields else None)


def validate_with_openai_python(scenario: Scenario) -> None:
    pytest.importorskip("openai", reason="the fidelity tests need the official openai SDK")
    from openai.types.responses import Response

    events = openai_events()
    for is_event, data in bodies(scenario):
        if is_event:
            events[data["type"]].model_validate(data)
        else:
            Response.model_validate(data)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_bodies_validate_against_openai_python(scenario: Scenario) -> None:
    validate_with_openai_python(scenario)
