"""The Gemini dialect on shapes the constructed cassettes do not carry, and on real recordings."""

from __future__ import annotations

import json

import pytest
from conftest import REAL_TRAFFIC

from conformance.corpus.loading import Corpus
from conformance.engine.dialects import detect
from conformance.engine.dialects.gemini import Gemini
from conformance.lint import lint_path
from conformance.recordings.cassette import HttpRequest, HttpResponse

DIALECT = Gemini()
CHUNKS = [
    {
        "candidates": [
            {"content": {"role": "model", "parts": [{"functionCall": {"id": "a1", "name": "f", "args": {}}}]}}
        ]
    },
    {
        "candidates": [
            {"content": {"role": "model", "parts": [{"functionCall": {"id": "b2", "name": "f", "args": {}}}]}}
        ]
    },
    {"usageMetadata": {"promptTokenCount": 3}},
]


def _request(uri: str) -> HttpRequest:
    return HttpRequest("POST", uri, {}, b"{}")


@pytest.mark.parametrize(
    ("uri", "gemini"),
    [
        ("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent", True),
        ("https://generativelanguage.googleapis.com/v1beta/models/gemini-3-flash-preview:streamGenerateContent", True),
        (
            "https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/models/"
            "gemini-2.5-flash:streamGenerateContent?alt=sse",
            True,
        ),
        ("https://generativelanguage.googleapis.com/v1beta/openai/chat/completions", False),
        ("https://aiplatform.googleapis.com/v1/projects/p/locations/l/publishers/anthropic/models/c:rawPredict", False),
    ],
)
def test_requests_are_detected_by_endpoint(uri: str, gemini: bool) -> None:
    assert DIALECT.handles(_request(uri)) is gemini
    found = detect(_request(uri))
    assert (found is not None and found.api == "gemini") is gemini


def test_both_stream_forms_give_every_call_of_every_chunk() -> None:
    sse = "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in CHUNKS).encode()
    array = json.dumps(CHUNKS, indent=2).encode()
    for body, content_type in ((sse, "text/event-stream"), (array, "application/json")):
        served = DIALECT.served(HttpResponse(200, {"content-type": (content_type,)}, body))
        assert served.stream and len(served.payload["events"]) == 3
        assert [(c.call_id, c.path) for c in served.calls] == [
            ("a1", "response.events[0].candidates[0].content.parts[0]"),
            ("b2", "response.events[1].candidates[0].content.parts[0]"),
        ]


def test_proto_field_names_are_read_with_their_own_paths() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "hi"}]},
            {"role": "model", "parts": [{"function_call": {"id": "x", "name": "f"}, "thought_signature": "CiQB"}]},
            {"role": "user", "parts": [{"function_response": {"id": "x", "name": "f", "response": {}}}]},
        ]
    }
    history = DIALECT.history(body)
    (call,) = history.calls()
    (result,) = history.results()
    assert call.id_path == "request.contents[1].parts[0].function_call.id"
    assert call.opaque == {"thoughtSignature": "CiQB"}
    assert (result.call_id, result.id_path) == ("x", "request.contents[2].parts[0].function_response.id")


def test_an_empty_id_is_no_id() -> None:
    body = {"candidates": [{"content": {"parts": [{"functionCall": {"id": "", "name": "f", "args": {}}}]}}]}
    served = DIALECT.served(HttpResponse(200, {}, json.dumps(body).encode()))
    assert [c.call_id for c in served.calls] == [None]


@pytest.mark.parametrize("recording", ["llm-gemini/test_tools.yaml", "pydantic-ai/test_google_model_iter_stream.yaml"])
def test_real_recordings_only_show_their_made_up_ids(recording: str, corpus: Corpus) -> None:
    path = REAL_TRAFFIC / recording
    if not path.is_file():
        pytest.skip(f"{path} is not available here")
    report = lint_path(path, corpus)
    assert report.checked == {"gemini": 3} and not report.unchecked
    assert {v.code for _, v in report.violations} == {"roundtrip/invented-id"}
    assert report.errors == []


def test_a_signature_in_the_url_safe_alphabet_is_the_same_signature() -> None:
    """google-genai sends bytes fields URL-safe and unpadded; the API takes both spellings."""
    import base64

    from conformance.engine.dialects.gemini import canonical_bytes

    raw = bytes(range(256))
    assert canonical_bytes(base64.urlsafe_b64encode(raw).decode().rstrip("=")) == base64.b64encode(raw).decode()
    assert canonical_bytes("not base64 at all!") == "not base64 at all!"
