"""Every response body and stream event in the cohere-v2 cassettes validates against
cohere-python's v2 models (ChatResponse and the StreamedChatResponseV2 union)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.corpus.loading import load_corpus
from conformance.recordings.cassette import load_cassette
from conformance.recordings.sse import parse_events

pytest.importorskip("cohere", reason="the fidelity tests need the official cohere SDK")

_corpus = load_corpus()
# Constructed cassettes only: a recorded one is the provider's own bytes, which win where a model disagrees.
SCENARIOS = sorted(
    (s for s in _corpus.scenarios.values() if s.api == "cohere-v2" and not s.recorded), key=lambda s: s.id
)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_response_bodies_validate_against_cohere_python(scenario: Any) -> None:
    import pydantic
    from cohere import ChatResponse, StreamedChatResponseV2

    stream_event = pydantic.TypeAdapter(StreamedChatResponseV2)
    for interaction in load_cassette(_corpus.cassette_path(scenario)):
        response = interaction.response
        if response.is_event_stream:
            events = parse_events(response.body)
            assert events
            for event in events:
                parsed = stream_event.validate_python(event.data)
                assert event.event == parsed.type  # the event line names the type the data carries
        else:
            ChatResponse.model_validate(response.json())
