"""conformance.recordings.eventstream against botocore's decoder, the reference reader of the format."""

from __future__ import annotations

import struct
import uuid
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from conformance.recordings.cassette import load_cassette
from conformance.recordings.eventstream import EventStreamError, decode, encode, looks_like_event_stream

eventstream = pytest.importorskip("botocore.eventstream", reason="these tests compare against botocore's decoder")

CASSETTES = sorted((Path(__file__).resolve().parents[1] / "cassettes" / "bedrock-converse").glob("*.yaml"))
EVENT_HEADERS = {":event-type": "contentBlockDelta", ":content-type": "application/json", ":message-type": "event"}


def botocore_messages(body: bytes) -> list[Any]:
    buffer = eventstream.EventStreamBuffer()
    buffer.add_data(body)
    return list(buffer)


def _plain(value: Any) -> Any:
    """botocore gives timestamps as epoch milliseconds and uuids as 16 bytes."""
    if isinstance(value, datetime):
        return int(value.timestamp() * 1000)
    if isinstance(value, uuid.UUID):
        return value.bytes
    return value


@pytest.mark.parametrize(
    "headers",
    [
        EVENT_HEADERS,
        {},
        {"flag": True, "off": False, "small": -7, "big": 2**40, "raw": b"\x00\xff", "id": uuid.UUID(int=42)},
        {"when": datetime(2026, 8, 1, 12, 30, tzinfo=UTC), ":exception-type": "validationException"},
    ],
    ids=["event", "none", "typed", "timestamp"],
)
@pytest.mark.parametrize(
    "payload", [b"", b'{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\\"a"}}}', bytes(range(256))]
)
def test_botocore_reads_what_encode_writes(headers: dict[str, Any], payload: bytes) -> None:
    body = encode(headers, payload) + encode(EVENT_HEADERS, b"{}")
    theirs = botocore_messages(body)
    ours = decode(body)
    assert len(theirs) == len(ours) == 2
    for mine, reference in zip(ours, theirs, strict=True):
        assert {k: _plain(v) for k, v in mine.headers.items()} == reference.headers
        assert mine.payload == reference.payload
    assert ours[0].headers == headers


def test_byte_and_short_headers_decode_as_botocore_decodes_them() -> None:
    # encode never writes these two types, so build the header bytes by hand.
    raw_headers = b"\x01a\x02\xfe" + b"\x01b\x03" + struct.pack("!h", -300)
    prelude = struct.pack("!II", 16 + len(raw_headers), len(raw_headers))
    frame = prelude + struct.pack("!I", zlib.crc32(prelude)) + raw_headers
    frame += struct.pack("!I", zlib.crc32(frame))
    assert decode(frame)[0].headers == botocore_messages(frame)[0].headers == {"a": -2, "b": -300}


@pytest.mark.parametrize("path", CASSETTES, ids=[p.stem for p in CASSETTES])
def test_cassette_streams_decode_as_botocore_decodes_them(path: Path) -> None:
    for interaction in load_cassette(path):
        body = interaction.response.body
        if not looks_like_event_stream(body):
            assert interaction.response.content_type == "application/json"
            continue
        ours, theirs = decode(body), botocore_messages(body)
        assert [(m.headers, m.payload) for m in ours] == [(m.headers, m.payload) for m in theirs]


def test_every_single_bit_flip_is_rejected_by_both() -> None:
    frame = encode(EVENT_HEADERS, b'{"contentBlockIndex":0,"delta":{"text":"Hi"}}')
    for position in range(len(frame)):
        corrupted = bytearray(frame)
        corrupted[position] ^= 0x01
        with pytest.raises(EventStreamError):
            decode(bytes(corrupted))
        try:
            accepted = botocore_messages(bytes(corrupted))
        except eventstream.ParserError:
            continue
        assert accepted == [], f"botocore accepted a flip at byte {position}"


def test_a_stream_cut_off_mid_message_is_an_error_naming_where() -> None:
    body = encode(EVENT_HEADERS, b"{}") + encode(EVENT_HEADERS, b'{"x":1}')
    with pytest.raises(EventStreamError) as cut:
        decode(body[:-3])
    assert cut.value.index == 1 and cut.value.offset == len(encode(EVENT_HEADERS, b"{}"))
    with pytest.raises(EventStreamError, match="inside a prelude"):
        decode(body[:5])


def test_duplicate_headers_are_rejected_like_botocore_rejects_them() -> None:
    one = encode({"a": "x"}, b"")
    header = one[12:-4]
    prelude = struct.pack("!II", 16 + 2 * len(header), 2 * len(header))
    frame = prelude + struct.pack("!I", zlib.crc32(prelude)) + header + header
    frame += struct.pack("!I", zlib.crc32(frame))
    with pytest.raises(EventStreamError, match="appears twice"):
        decode(frame)
    with pytest.raises(eventstream.DuplicateHeader):
        botocore_messages(frame)


def test_sse_and_json_bodies_do_not_look_like_event_streams() -> None:
    assert not looks_like_event_stream(b'{"output": {"message": {"role": "assistant", "content": []}}}')
    assert not looks_like_event_stream(b"data: {}\n\n")
    assert looks_like_event_stream(encode(EVENT_HEADERS, b"{}"))
