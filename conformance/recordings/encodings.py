"""HTTP bodies opened and closed again by their content coding: gzip (every member), deflate (zlib-wrapped
or raw), and br where the `brotli` module is installed (as aiohttp also needs it for br).

The scrubber opens a compressed body to find the credentials in it and closes it again; the proxy
opens what it records and asks the upstream only for codings listed in `OPENED`. Opening stops at
`limit` bytes: a body that inflates past it is refused, never cut.
"""

from __future__ import annotations

import gzip
import importlib
import zlib
from types import ModuleType


class EncodingError(ValueError):
    """A body that cannot be opened: truncated, corrupt, too large once inflated, or in a coding not opened here."""


def _brotli() -> ModuleType | None:
    for name in ("brotli", "brotlicffi"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


_BROTLI = _brotli()
# The codings a body may carry and still be opened here, in the order a request's Accept-Encoding names them.
OPENED: tuple[str, ...] = ("gzip", "deflate", *(("br",) if _BROTLI is not None else ()))
_NONE = frozenset({"", "identity"})


def codings(header: str | None) -> list[str]:
    """The codings a Content-Encoding header names, in the order they were applied."""
    return [c.strip().lower() for c in (header or "").split(",") if c.strip().lower() not in _NONE]


def looks_gzip(body: bytes) -> bool:
    return body[:2] == b"\x1f\x8b"


def looks_zlib(body: bytes) -> bool:
    """A zlib header: deflate method and a check value that holds (RFC 1950)."""
    return len(body) >= 2 and body[0] & 0x0F == 8 and (body[0] << 8 | body[1]) % 31 == 0


def _inflate(body: bytes, wbits: int, limit: int) -> bytes:
    out = bytearray()
    rest = body
    while rest:
        stream = zlib.decompressobj(wbits)
        try:
            out += stream.decompress(rest, limit + 1 - len(out))
        except zlib.error as exc:
            raise EncodingError(f"is not valid compressed data: {exc}") from None
        if len(out) > limit or stream.unconsumed_tail:
            raise EncodingError(f"decompresses to more than {limit} bytes")
        if not stream.eof:
            raise EncodingError("is cut off before the end of its compressed stream")
        rest = stream.unused_data
        if wbits & 16:
            rest = rest.lstrip(b"\x00")  # gzip allows zero padding between members
            if rest and not looks_gzip(rest):
                raise EncodingError(f"has {len(rest)} bytes after its compressed stream")
        elif rest:
            raise EncodingError(f"has {len(rest)} bytes after its compressed stream")
    return bytes(out)


def decode(body: bytes, coding: str, limit: int) -> bytes:
    """One coding taken off; EncodingError when the body is not in it, or inflates past `limit`."""
    if coding in ("gzip", "x-gzip"):
        return _inflate(body, zlib.MAX_WBITS | 16, limit)
    if coding == "deflate":  # servers send it zlib-wrapped or raw; the header tells which
        return _inflate(body, zlib.MAX_WBITS if looks_zlib(body) else -zlib.MAX_WBITS, limit)
    if coding == "br" and _BROTLI is not None:
        try:
            out = bytes(_BROTLI.Decompressor().process(body, output_buffer_limit=limit + 1))
        except TypeError:  # a brotli without an output limit: decompress, then measure
            out = bytes(_BROTLI.decompress(body))
        except Exception as exc:  # brotli and brotlicffi raise their own error types
            raise EncodingError(f"is not valid brotli data: {exc}") from None
        if len(out) > limit:
            raise EncodingError(f"decompresses to more than {limit} bytes")
        return out
    raise EncodingError(f"is in content coding {coding!r}, which this suite does not open ({', '.join(OPENED)})")


def encode(body: bytes, coding: str) -> bytes:
    """A body put back into a coding `decode` took off (one member, the same bytes once opened)."""
    if coding in ("gzip", "x-gzip"):
        return gzip.compress(body, mtime=0)
    if coding == "deflate":
        return zlib.compress(body)
    if coding == "br" and _BROTLI is not None:
        return bytes(_BROTLI.compress(body))
    raise EncodingError(f"content coding {coding!r} is not one this suite writes")


def open_body(body: bytes, header: str | None, limit: int) -> bytes:
    """A body with every coding its Content-Encoding header names taken off, last applied first."""
    for coding in reversed(codings(header)):
        body = decode(body, coding, limit)
    return body


def accept_encoding(header: str | None) -> str:
    """A client's Accept-Encoding narrowed to the codings opened here (identity when none is left)."""
    kept = [part.strip() for part in (header or "").split(",") if part.split(";")[0].strip().lower() in OPENED]
    return ", ".join(kept) or "identity"
