"""Every Gemini response body and stream chunk in the bundled cassettes validates against python-genai.

python-genai's models forbid unknown fields and take the REST API's camelCase names as aliases, so
`model_validate` on the wire JSON catches a misspelt or invented field. Both stream forms are read:
SSE events and the JSON array served without `alt=sse`.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.corpus.loading import load_corpus
from conformance.recordings.cassette import load_cassette
from conformance.recordings.sse import parse_events

genai_types = pytest.importorskip("google.genai.types", reason="the fidelity tests need the google-genai SDK")

_corpus = load_corpus()
# Constructed cassettes only: a recorded one is the provider's own bytes, which win where a model disagrees.
SCENARIOS = sorted((s for s in _corpus.scenarios.values() if s.api == "gemini" and not s.recorded), key=lambda s: s.id)


def _chunks(scenario: Any) -> list[Any]:
    chunks: list[Any] = []
    for interaction in load_cassette(_corpus.cassette_path(scenario)):
        response = interaction.response
        if response.is_event_stream:
            chunks.extend(event.data for event in parse_events(response.body))
        else:
            body = response.json()
            chunks.extend(body if isinstance(body, list) else [body])
    return chunks


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_response_bodies_validate_against_the_sdk(scenario: Any) -> None:
    chunks = _chunks(scenario)
    assert chunks
    for chunk in chunks:
        genai_types.GenerateContentResponse.model_validate(chunk)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_request_contents_validate_against_the_sdk(scenario: Any) -> None:
    for interaction in load_cassette(_corpus.cassette_path(scenario)):
        for content in interaction.request.json()["contents"]:
            genai_types.Content.model_validate(content)


def test_the_sdk_rejects_a_misspelt_field() -> None:
    """The validation above can fail: a part with a misspelt signature field is refused."""
    part = {"functionCall": {"name": "get_weather", "args": {}}, "thoughtSignatures": "CiQB"}
    with pytest.raises(ValueError):
        genai_types.GenerateContentResponse.model_validate({"candidates": [{"content": {"parts": [part]}}]})


def test_both_stream_forms_are_covered() -> None:
    forms = set()
    for scenario in SCENARIOS:
        if not scenario.stream:
            continue
        response = load_cassette(_corpus.cassette_path(scenario)).interactions[0].response
        forms.add("sse" if response.is_event_stream else "json-array")
    assert forms == {"sse", "json-array"}
