"""langchaingo's httprr traces (`.httprr`): HTTP/1.1 exchanges as the wire carried them.

The file starts `httprr trace v1`; each record is a line `N M`, then N bytes of the request
(request line, headers, blank line, body) and M bytes of the response (status line, headers,
blank line, body). The request line holds the full URL, so the host is known.
"""

from __future__ import annotations

import re
from pathlib import Path

from conformance.recordings.bounds import BoundsError, read_file
from conformance.recordings.cassette import (
    Cassette,
    CassetteError,
    HttpRequest,
    HttpResponse,
    Interaction,
    status_code,
)

MAGIC = b"httprr trace v1\n"
_SIZES = re.compile(rb"(\d+) (\d+)\n")
# A size longer than this cannot fit in a file within the bounds (and past 4,300 digits Python
# refuses to read it as a number at all).
_SIZE_DIGITS = 12
_BLANK = re.compile(rb"\r?\n\r?\n")


def _head_and_body(raw: bytes, what: str) -> tuple[list[str], dict[str, tuple[str, ...]], bytes]:
    # Recorders end header lines with CRLF, some with a bare LF: the first empty line ends the head.
    end = _BLANK.search(raw)
    if end is None:
        raise ValueError(f"{what} has no blank line after its headers")
    head, body = raw[: end.start()], raw[end.end() :]
    lines = head.decode("latin-1").replace("\r\n", "\n").split("\n")
    headers: dict[str, tuple[str, ...]] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon:
            raise ValueError(f"{what} header line {line[:60]!r} has no colon")
        key = name.strip().lower()
        headers[key] = (*headers.get(key, ()), value.strip())
    if "chunked" in ",".join(headers.get("transfer-encoding", ())).lower():
        body = _unchunk(body)
    return lines[0].split(" "), headers, body


def _unchunk(body: bytes) -> bytes:
    # Read in place, by offset: each chunk costs its own bytes, however many chunks there are.
    out = bytearray()
    at = 0
    while at < len(body):
        end = body.find(b"\r\n", at)
        end = len(body) if end < 0 else end
        size_text = body[at:end].split(b";")[0].strip()
        if len(size_text) > _SIZE_DIGITS:
            raise ValueError(f"a chunk size of {len(size_text)} digits")
        size = int(size_text or b"0", 16)
        if size == 0:
            break
        out += body[end + 2 : end + 2 + size]
        at = end + 2 + size + 2
    return bytes(out)


def parse(data: bytes, path: str) -> Cassette:
    if not data.startswith(MAGIC):
        raise CassetteError(path, "not an httprr trace: the first line is not `httprr trace v1`")
    at = len(MAGIC)
    interactions: list[Interaction] = []
    while at < len(data):
        sizes = _SIZES.match(data, at)
        if sizes is None:
            raise CassetteError(path, f"byte {at}: expected a record's `N M` sizes line", len(interactions))
        if max(len(sizes.group(1)), len(sizes.group(2))) > _SIZE_DIGITS:
            raise CassetteError(
                path, f"byte {at}: a record's size has more than {_SIZE_DIGITS} digits", len(interactions)
            )
        n, m = int(sizes.group(1)), int(sizes.group(2))
        start = sizes.end()
        if start + n + m > len(data):
            raise CassetteError(path, f"byte {at}: the record runs past the end of the file", len(interactions))
        try:
            first, req_headers, req_body = _head_and_body(data[start : start + n], "the request")
            status_line, resp_headers, resp_body = _head_and_body(data[start + n : start + n + m], "the response")
            method, uri = first[0], first[1]
            status = status_code(status_line[1])
        except (ValueError, IndexError) as exc:
            raise CassetteError(path, f"unreadable record: {exc}", len(interactions)) from None
        interactions.append(
            Interaction(
                index=len(interactions),
                request=HttpRequest(method=method.upper(), uri=uri, headers=req_headers, body=req_body),
                response=HttpResponse(status=status, headers=resp_headers, body=resp_body),
            )
        )
        at = start + n + m
    return Cassette(path=path, interactions=tuple(interactions))


def load(path: Path) -> Cassette:
    try:
        return parse(read_file(path), str(path))
    except BoundsError as exc:
        raise CassetteError(str(path), str(exc)) from None
