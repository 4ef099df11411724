"""Gemini bodies recorded with Vertex AI's numeric enums are served with their names to a client that
did not ask for numbers, as the API answers it, and as recorded to one that did."""

from __future__ import annotations

import json

from conformance.replay.transports.base import Request, Route
from conformance.replay.transports.gemini import Gemini

RECORDED = json.dumps(
    {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": 1}],
        "usageMetadata": {"promptTokenCount": 3, "trafficType": 1, "promptTokensDetails": [{"modality": 1}]},
    }
).encode()
PATH = "/v1/projects/p/locations/l/publishers/google/models/gemini-2.5-pro:generateContent"


def _route(query: str) -> Route:
    route = Gemini().route(Request.of("POST", f"https://aiplatform.googleapis.com{PATH}{query}", {}, b"{}"))
    assert route is not None
    return route


def test_numeric_enums_are_named_for_a_client_that_did_not_ask_for_numbers() -> None:
    served = json.loads(Gemini().as_asked(RECORDED, _route("")))
    assert served["candidates"][0]["finishReason"] == "STOP"
    assert served["usageMetadata"]["trafficType"] == "ON_DEMAND"
    assert served["usageMetadata"]["promptTokensDetails"][0]["modality"] == "TEXT"
    assert served["usageMetadata"]["promptTokenCount"] == 3


def test_a_client_that_asked_for_numbers_gets_the_recording_as_it_is() -> None:
    route = _route("?%24alt=json%3Benum-encoding%3Dint")
    assert route.numeric_enums
    assert Gemini().as_asked(RECORDED, route) == RECORDED


def test_a_body_without_numeric_enums_is_served_byte_for_byte() -> None:
    named = b'{"candidates": [{"finishReason": "STOP"}],   "x": 1}'
    assert Gemini().as_asked(named, _route("")) is named
