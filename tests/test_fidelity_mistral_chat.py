"""Every response body in the mistral-chat cassettes validates against mistralai's models."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.corpus.loading import load_corpus
from conformance.recordings.cassette import load_cassette
from conformance.recordings.sse import parse_events

pytest.importorskip("mistralai", reason="the fidelity tests need the official mistralai SDK")

_corpus = load_corpus()
# Constructed cassettes only: a recorded one is the provider's own bytes, which win where a model disagrees.
SCENARIOS = sorted(
    (s for s in _corpus.scenarios.values() if s.api == "mistral-chat" and not s.recorded), key=lambda s: s.id
)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_response_bodies_validate_against_mistralai(scenario: Any) -> None:
    from mistralai.client.models import ChatCompletionResponse, CompletionEvent

    for interaction in load_cassette(_corpus.cassette_path(scenario)):
        response = interaction.response
        if response.is_event_stream:
            events = parse_events(response.body)
            assert events
            chunks = [CompletionEvent.model_validate({"data": e.data}).data for e in events]
            calls = [c for chunk in chunks for c in chunk.choices[0].delta.tool_calls or []]
        else:
            completion = ChatCompletionResponse.model_validate(response.json())
            calls = completion.choices[0].message.tool_calls or []
        # The SDK fills a missing id with "null": every call must carry its own.
        assert all(c.id != "null" for c in calls)
