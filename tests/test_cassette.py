"""Cassette loading: the forms real recorders write, and located errors for broken ones."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import yaml
from conftest import REAL_TRAFFIC, ROOT

from conformance.engine.dialects import detect
from conformance.recordings.cassette import CassetteError, load_cassette, parse_cassette
from conformance.recordings.sse import StreamError, parse_events

BODY = {
    "choices": [
        {
            "message": {
                "role": "assistant",
                "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
            }
        }
    ]
}


def cassette(response: dict, request: dict | None = None) -> str:
    request = request or {
        "method": "POST",
        "uri": "https://api.openai.com/v1/chat/completions",
        "body": "{}",
        "headers": {},
    }
    return yaml.safe_dump({"interactions": [{"request": request, "response": response}], "version": 1})


def test_gzip_binary_body_is_decompressed() -> None:
    raw = gzip.compress(json.dumps(BODY).encode())
    text = cassette({"status": {"code": 200}, "headers": {"Content-Encoding": ["gzip"]}, "body": {"string": raw}})
    assert "!!binary" in text
    loaded = parse_cassette(text)
    assert loaded.interactions[0].response.json() == BODY


def test_parsed_body_form_of_pydantic_ai() -> None:
    request = {"method": "POST", "uri": "https://api.openai.com/v1/chat/completions", "parsed_body": {"messages": []}}
    loaded = parse_cassette(cassette({"status": {"code": 200}, "parsed_body": BODY}, request))
    assert loaded.interactions[0].request.json() == {"messages": []}
    assert loaded.interactions[0].response.json() == BODY


def test_sse_stream_is_recognised_and_parsed() -> None:
    body = 'data: {"a": 1}\n\nevent: ping\ndata: {"b": 2}\n\ndata: [DONE]\n\n'
    loaded = parse_cassette(cassette({"status": {"code": 200}, "headers": {}, "body": {"string": body}}))
    response = loaded.interactions[0].response
    assert response.is_event_stream
    events = parse_events(response.body)
    assert [(e.event, e.data) for e in events] == [(None, {"a": 1}), ("ping", {"b": 2})]


def test_stream_cut_off_mid_event_is_a_located_error() -> None:
    with pytest.raises(StreamError, match=r"event\[1\]: stream ends mid-event"):
        parse_events(b'data: {"a": 1}\n\ndata: {"b": ')


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("interactions: [", "invalid YAML"),
        ("version: 1", "no 'interactions' list"),
        ("interactions:\n- response: {}\n", r"interaction\[0\].*no 'request'"),
    ],
)
def test_broken_cassettes_name_file_and_interaction(text: str, message: str) -> None:
    with pytest.raises(CassetteError, match=message):
        parse_cassette(text, "x.yaml")


def test_missing_file_is_a_cassette_error(tmp_path: Path) -> None:
    with pytest.raises(CassetteError, match="cannot read"):
        load_cassette(tmp_path / "nope.yaml")


REAL = sorted(REAL_TRAFFIC.glob("*/*.yaml")) if REAL_TRAFFIC.is_dir() else []


@pytest.mark.skipif(not REAL, reason="the shared real-traffic recordings are not beside this checkout")
@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_every_real_recording_loads(path: Path) -> None:
    loaded = load_cassette(path)
    assert len(loaded) >= 2
    for interaction in loaded:
        response = interaction.response
        if response.is_event_stream:
            assert parse_events(response.body)
        elif "eventstream" not in response.content_type:
            assert response.json() is not None
        assert interaction.request.json() is not None


@pytest.mark.skipif(not REAL, reason="the shared real-traffic recordings are not beside this checkout")
def test_real_openai_chat_streams_reassemble_with_their_ids() -> None:
    kimi = load_cassette(REAL_TRAFFIC / "llm" / "test_tools_streaming_variant_a.yaml")
    dialect = detect(kimi.interactions[0].request)
    assert dialect is not None and dialect.api == "openai-chat"
    served = dialect.served(kimi.interactions[0].response)
    # The id "0" is repeated on every delta: it must not be concatenated or split.
    assert [c.call_id for c in served.calls] == ["0"]
    stream = load_cassette(REAL_TRAFFIC / "pydantic-ai" / "test_run_stream_sync_streams_real_model.yaml")
    served = dialect.served(stream.interactions[0].response)
    assert [(c.call_id, c.name, c.arguments) for c in served.calls] == [
        ("call_ZR5UUuTt3pf61kjwAJIYdVMj", "get_capital", '{"country":"UK"}')
    ]


def test_every_recorded_gemini_thought_signature_is_strict_base64() -> None:
    """A thought signature is base64 bytes on the wire (Gemini sends the URL-safe alphabet, which proto
    JSON accepts beside the standard one); clients decode it strictly (Go's and Java's decoders refuse a
    length that is not a multiple of four), so a constructed one must be whole quanta too."""
    import base64
    import binascii
    import re

    pattern = re.compile(r'"?thought_?[sS]ignature"?\s*:\s*\\?"([^"\\]+)\\?"')
    bad = []
    for path in sorted((ROOT / "cassettes").rglob("*.yaml")) + sorted((ROOT / "cases").rglob("*.yaml")):
        for signature in pattern.findall(path.read_text()):
            try:
                base64.b64decode(signature.replace("-", "+").replace("_", "/"), validate=True)
                if len(signature) % 4:
                    raise binascii.Error("length")
            except binascii.Error:
                bad.append(f"{path.relative_to(ROOT)}: {signature[:24]}...")
    assert not bad, bad
