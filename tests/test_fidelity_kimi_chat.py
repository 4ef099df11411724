"""Every response body in the kimi-chat cassettes validates against the OpenAI SDK's models, the
client Moonshot documents for its OpenAI-compatible API."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.corpus.loading import load_corpus
from conformance.recordings.cassette import load_cassette
from conformance.recordings.sse import parse_events

pytest.importorskip("openai", reason="the fidelity tests need the official openai SDK")

_corpus = load_corpus()
# Constructed cassettes only: a recorded one is the provider's own bytes, which win where a model disagrees.
SCENARIOS = sorted(
    (s for s in _corpus.scenarios.values() if s.api == "kimi-chat" and not s.recorded), key=lambda s: s.id
)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_response_bodies_validate_against_the_openai_sdk(scenario: Any) -> None:
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    for interaction in load_cassette(_corpus.cassette_path(scenario)):
        response = interaction.response
        if response.is_event_stream:
            events = parse_events(response.body)
            assert events
            for event in events:
                ChatCompletionChunk.model_validate(event.data)
        else:
            ChatCompletion.model_validate(response.json())
