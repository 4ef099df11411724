"""Every Anthropic Messages cassette validates against the official SDK's models.

Responses validate as `Message` (streams: each event as `RawMessageStreamEvent`); requests block by
block as `ContentBlockParam`. A scenario whose requests announce a beta (MCP connector, advisor,
programmatic tool calling) is validated against the SDK's beta models, which those blocks need.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.corpus.loading import Scenario, load_corpus
from conformance.recordings.cassette import Interaction, load_cassette
from conformance.recordings.sse import parse_events

pytest.importorskip("anthropic", reason="the fidelity tests need the official anthropic SDK")

from anthropic.types import ContentBlockParam, Message, RawMessageStreamEvent
from anthropic.types.beta import BetaContentBlockParam, BetaMessage, BetaRawMessageStreamEvent
from pydantic import TypeAdapter

API = "anthropic-messages"
_corpus = load_corpus()
# Constructed cassettes only: a recorded one is the provider's own bytes, which win where a model disagrees.
SCENARIOS = sorted((s for s in _corpus.scenarios.values() if s.api == API and not s.recorded), key=lambda s: s.id)


def _beta(interaction: Interaction) -> bool:
    return bool(interaction.request.headers.get("anthropic-beta"))


def _validate_response(interaction: Interaction) -> None:
    beta = _beta(interaction)
    response = interaction.response
    if not response.is_event_stream:
        (BetaMessage if beta else Message).model_validate(response.json())
        return
    events = TypeAdapter(BetaRawMessageStreamEvent if beta else RawMessageStreamEvent)
    parsed = parse_events(response.body)
    assert parsed
    for event in parsed:
        if event.event == "ping":
            continue  # keep-alive: the SDK's stream reader drops it before any model sees it
        events.validate_python(event.data)
        assert event.event == event.data["type"], f"event[{event.index}] is named {event.event!r}"


def _validate_request(interaction: Interaction) -> None:
    blocks: TypeAdapter[Any] = TypeAdapter(BetaContentBlockParam if _beta(interaction) else ContentBlockParam)
    body = interaction.request.json()
    for message in body["messages"]:
        assert message["role"] in ("user", "assistant")
        for block in message["content"]:
            blocks.validate_python(block)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_cassette_validates_against_the_sdk(scenario: Scenario) -> None:
    cassette = load_cassette(_corpus.cassette_path(scenario))
    for interaction in cassette:
        _validate_response(interaction)
        _validate_request(interaction)


def test_every_scenario_of_the_api_is_checked() -> None:
    assert len(SCENARIOS) >= 5
