"""A Gemini recording made with enums as numbers (`$alt=json;enum-encoding=int`, Vertex AI's REST
clients) is served with names to a client that did not ask for numbers, as the provider answers it,
and its tool declarations are imported with JSON Schema's type names."""

from __future__ import annotations

import json

import pytest

from conformance.corpus.loading import Corpus
from conformance.importer.requests import tools
from conformance.recordings.cassette import HttpRequest, HttpResponse, Interaction, load_cassette
from conformance.replay.transports import transport_for
from conformance.replay.transports.base import Request

NUMBERS_URI = (
    "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google/models/"
    "gemini-2.5-pro:generateContent?%24alt=json%3Benum-encoding%3Dint"
)
BODY = {
    "candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": 1, "index": 0}],
    "usageMetadata": {"trafficType": 1, "promptTokensDetails": [{"modality": 1, "tokenCount": 3}]},
}
NAMED = {
    "candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP", "index": 0}],
    "usageMetadata": {"trafficType": "ON_DEMAND", "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 3}]},
}


def _recorded(body: bytes, uri: str = NUMBERS_URI) -> Interaction:
    request = HttpRequest(method="POST", uri=uri, headers={}, body=b"{}")
    return Interaction(0, request, HttpResponse(200, {"content-type": ("application/json",)}, body))


def _asked(query: str) -> Request:
    return Request.of("POST", f"/v1/models/gemini-2.5-pro:generateContent{query}", {}, b"{}")


@pytest.mark.parametrize(
    "body",
    [
        json.dumps(BODY, indent=2).encode(),  # one JSON body
        json.dumps([BODY, BODY]).encode(),  # a JSON array of chunks
        f"data: {json.dumps(BODY)}\r\n\r\ndata: {json.dumps(BODY)}\r\n\r\n".encode(),  # server-sent events
    ],
    ids=["json", "json-array", "sse"],
)
def test_numbers_become_names_for_a_client_that_did_not_ask_for_numbers(body: bytes) -> None:
    gemini = transport_for("gemini")
    served = gemini.as_asked(_asked(""), _recorded(body)).body.decode()
    if served.startswith("data:"):
        chunks = [json.loads(line[len("data:") :]) for line in served.splitlines() if line.startswith("data:")]
        assert chunks == [NAMED, NAMED] and served.endswith("\r\n\r\n")
    else:
        loaded = json.loads(served)
        assert loaded in (NAMED, [NAMED, NAMED])


def test_a_client_that_asks_for_numbers_gets_the_recording_as_it_is() -> None:
    gemini = transport_for("gemini")
    recorded = _recorded(json.dumps(BODY).encode())
    assert gemini.as_asked(_asked("?%24alt=json%3Benum-encoding%3Dint"), recorded) is recorded.response
    plain = _recorded(json.dumps(BODY).encode(), uri=NUMBERS_URI.split("?")[0])
    assert gemini.as_asked(_asked(""), plain) is plain.response  # recorded with names: nothing to do


def test_a_number_no_api_version_agrees_on_is_left_as_recorded() -> None:
    body = {"candidates": [{"finishReason": 9, "safetyRatings": [{"category": 2}]}]}
    served = transport_for("gemini").as_asked(_asked(""), _recorded(json.dumps(body).encode()))
    assert json.loads(served.body) == body


def test_the_corpus_vertex_recordings_are_served_with_names(corpus: Corpus) -> None:
    scenario = corpus.scenarios["gemini/recorded/otel-vertexai-function-call-choice"]
    recorded = load_cassette(corpus.cassette_path(scenario)).interactions[0]
    served = json.loads(transport_for("gemini").as_asked(_asked(""), recorded).body)
    assert served["candidates"][0]["finishReason"] == "STOP"
    assert served["usageMetadata"]["trafficType"] == "ON_DEMAND"
    # and the tools a client is handed are JSON Schema, as imported from the recorded numbers
    assert scenario.tools[0]["parameters"]["type"] == "object"
    assert tools("gemini", json.loads(recorded.request.body))[0]["parameters"] == scenario.tools[0]["parameters"]


def test_recorded_schema_types_as_numbers_are_imported_with_their_names() -> None:
    declared = {"name": "f", "parameters": {"type": 6, "properties": {"a": {"type": 1}, "b": {"type": "INTEGER"}}}}
    (tool,) = tools("gemini", {"tools": [{"functionDeclarations": [declared]}]})
    assert tool["parameters"] == {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}
