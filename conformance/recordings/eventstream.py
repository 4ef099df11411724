"""The AWS event-stream framing (`application/vnd.amazon.eventstream`), read and written.

Bedrock's ConverseStream answers in this binary format instead of server-sent events. Each
message is a prelude (total length, headers length, CRC32 of those eight bytes), typed headers
(`:event-type`, `:content-type`, `:message-type`, ...), a payload and a CRC32 of everything
before it; all integers are big-endian. The format is small and fully specified, so the suite
reads it itself rather than depending on botocore at run time; the tests check this module
against botocore's decoder.
"""

from __future__ import annotations

import struct
import uuid
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

HeaderValue = bool | int | str | bytes | uuid.UUID | datetime

_PRELUDE = struct.Struct("!III")  # total length, headers length, prelude CRC
_PRELUDE_LENGTH = _PRELUDE.size
_MINIMUM_LENGTH = _PRELUDE_LENGTH + 4  # the prelude and the message CRC, with no headers or payload
# The limits botocore enforces on what a service sends (botocore.eventstream).
_MAX_HEADERS_LENGTH = 128 * 1024
_MAX_PAYLOAD_LENGTH = 16 * 1024 * 1024

# Header value types, by the tag byte that precedes each value.
_TRUE, _FALSE, _BYTE, _SHORT, _INTEGER, _LONG, _BYTES, _STRING, _TIMESTAMP, _UUID = range(10)
_FIXED = {
    _BYTE: struct.Struct("!b"),
    _SHORT: struct.Struct("!h"),
    _INTEGER: struct.Struct("!i"),
    _LONG: struct.Struct("!q"),
}


class EventStreamError(ValueError):
    """A body that is not a well-formed event stream; `offset` is the byte where it goes wrong."""

    def __init__(self, message: str, offset: int, index: int) -> None:
        self.offset = offset
        self.index = index
        super().__init__(f"message[{index}] at byte {offset}: {message}")


@dataclass(frozen=True)
class Message:
    index: int
    offset: int
    headers: Mapping[str, HeaderValue]
    payload: bytes

    def header(self, name: str) -> str | None:
        value = self.headers.get(name)
        return value if isinstance(value, str) else None


def _crc(data: bytes) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


class _Reader:
    def __init__(self, data: bytes, offset: int, index: int) -> None:
        self.data = data
        self.pos = 0
        self.base = offset
        self.index = index

    def take(self, count: int, what: str) -> bytes:
        if self.pos + count > len(self.data):
            raise EventStreamError(f"headers end inside {what}", self.base + self.pos, self.index)
        chunk = self.data[self.pos : self.pos + count]
        self.pos += count
        return chunk

    def unpack(self, fmt: struct.Struct, what: str) -> int:
        value: int = fmt.unpack(self.take(fmt.size, what))[0]
        return value

    def text(self, raw: bytes, what: str, at: int) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise EventStreamError(f"{what} is not UTF-8: {exc.reason}", at, self.index) from None


def _headers(data: bytes, offset: int, index: int) -> dict[str, HeaderValue]:
    reader = _Reader(data, offset, index)
    headers: dict[str, HeaderValue] = {}
    u8, u16 = struct.Struct("!B"), struct.Struct("!H")
    while reader.pos < len(data):
        at = offset + reader.pos
        name = reader.text(reader.take(reader.unpack(u8, "a header name length"), "a header name"), "a header name", at)
        kind = reader.unpack(u8, "a header type")
        value: HeaderValue
        if kind in (_TRUE, _FALSE):
            value = kind == _TRUE
        elif kind in _FIXED:
            value = reader.unpack(_FIXED[kind], f"header {name!r}")
        elif kind in (_BYTES, _STRING):
            raw = reader.take(reader.unpack(u16, f"header {name!r}"), f"header {name!r}")
            value = reader.text(raw, f"header {name!r}", at) if kind == _STRING else raw
        elif kind == _TIMESTAMP:
            millis = reader.unpack(_FIXED[_LONG], f"header {name!r}")
            try:
                value = datetime.fromtimestamp(millis / 1000, tz=UTC)
            except (OverflowError, OSError, ValueError):
                raise EventStreamError(
                    f"header {name!r} is a timestamp out of range ({millis} ms)", at, index
                ) from None
        elif kind == _UUID:
            value = uuid.UUID(bytes=reader.take(16, f"header {name!r}"))
        else:
            raise EventStreamError(f"header {name!r} has unknown type {kind}", at, index)
        if name in headers:
            raise EventStreamError(f"header {name!r} appears twice", at, index)
        headers[name] = value
    return headers


def decode(body: bytes) -> list[Message]:
    """Every message of a body, each checked against both of its CRCs; a body cut off mid-message is an error."""
    messages: list[Message] = []
    offset = 0
    while offset < len(body):
        index = len(messages)
        if len(body) - offset < _PRELUDE_LENGTH:
            raise EventStreamError("the stream ends inside a prelude", offset, index)
        total, headers_length, prelude_crc = _PRELUDE.unpack_from(body, offset)
        if _crc(body[offset : offset + 8]) != prelude_crc:
            raise EventStreamError("prelude CRC mismatch", offset, index)
        if total < _MINIMUM_LENGTH or headers_length > total - _MINIMUM_LENGTH:
            raise EventStreamError(f"lengths do not fit: total {total}, headers {headers_length}", offset, index)
        payload_length = total - _MINIMUM_LENGTH - headers_length
        if headers_length > _MAX_HEADERS_LENGTH or payload_length > _MAX_PAYLOAD_LENGTH:
            raise EventStreamError(f"headers {headers_length} or payload {payload_length} too long", offset, index)
        if offset + total > len(body):
            raise EventStreamError(f"the stream ends inside a message of {total} bytes", offset, index)
        frame = body[offset : offset + total]
        (message_crc,) = struct.unpack_from("!I", frame, total - 4)
        if _crc(frame[:-4]) != message_crc:
            raise EventStreamError("message CRC mismatch", offset, index)
        start = _PRELUDE_LENGTH
        headers = _headers(frame[start : start + headers_length], offset + start, index)
        payload = frame[start + headers_length : total - 4]
        messages.append(Message(index=index, offset=offset, headers=headers, payload=payload))
        offset += total
    return messages


def looks_like_event_stream(body: bytes) -> bool:
    """Whether a body starts with a valid prelude: for recordings that lost their content-type."""
    if len(body) < _MINIMUM_LENGTH:
        return False
    total, headers_length, prelude_crc = _PRELUDE.unpack_from(body)
    fits: bool = total >= _MINIMUM_LENGTH and headers_length <= total - _MINIMUM_LENGTH
    return fits and _crc(body[:8]) == prelude_crc


def _encode_header(name: str, value: HeaderValue) -> bytes:
    raw_name = name.encode("utf-8")
    head = struct.pack("!B", len(raw_name)) + raw_name
    if isinstance(value, bool):
        return head + struct.pack("!B", _TRUE if value else _FALSE)
    if isinstance(value, int):
        kind = _INTEGER if -(2**31) <= value < 2**31 else _LONG
        return head + struct.pack("!B", kind) + _FIXED[kind].pack(value)
    if isinstance(value, str | bytes):
        raw = value.encode("utf-8") if isinstance(value, str) else value
        return head + struct.pack("!BH", _STRING if isinstance(value, str) else _BYTES, len(raw)) + raw
    if isinstance(value, uuid.UUID):
        return head + struct.pack("!B", _UUID) + value.bytes
    millis = int(value.timestamp() * 1000)
    return head + struct.pack("!B", _TIMESTAMP) + _FIXED[_LONG].pack(millis)


def encode(headers: Mapping[str, HeaderValue], payload: bytes) -> bytes:
    """One message, with both CRCs; headers keep their order."""
    raw_headers = b"".join(_encode_header(name, value) for name, value in headers.items())
    total = _MINIMUM_LENGTH + len(raw_headers) + len(payload)
    prelude = struct.pack("!II", total, len(raw_headers))
    prelude += struct.pack("!I", _crc(prelude))
    body = prelude + raw_headers + payload
    return body + struct.pack("!I", _crc(body))
