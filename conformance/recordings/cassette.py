"""Reading vcrpy cassettes into typed HTTP interactions.

Handles what real recordings contain: bodies as text or `!!binary`, gzip and deflate
`Content-Encoding`, SSE streams, and the `parsed_body` mapping that pydantic-ai's cassette
serializer writes in place of `body`. Every failure is a `CassetteError` naming the file and,
where it can, the interaction; what a cassette may hold is bounded (conformance/recordings/bounds.py): the
file's size, its YAML's nesting and aliases, and what its bodies decompress to.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from conformance.recordings.bounds import (
    INFLATION_FACTOR,
    INFLATION_FLOOR,
    MAX_BODY_BYTES,
    MAX_CASSETTE_BODY_BYTES,
    MAX_DEPTH,
    BoundsError,
    depth_of,
    parse_json,
    read_file,
)
from conformance.recordings.encodings import OPENED, EncodingError, codings, decode, looks_gzip
from conformance.recordings.yamlio import YamlError, load_data

Headers = Mapping[str, tuple[str, ...]]


class CassetteError(Exception):
    """A cassette that cannot be read, located by file and interaction."""

    def __init__(self, path: str, message: str, interaction: int | None = None) -> None:
        self.path = path
        self.interaction = interaction
        self.message = message
        where = path if interaction is None else f"{path} interaction[{interaction}]"
        super().__init__(f"{where}: {message}")


def _header(headers: Headers, name: str) -> str | None:
    values = headers.get(name.lower())
    return values[0] if values else None


@dataclass(frozen=True)
class HttpRequest:
    method: str
    uri: str
    headers: Headers
    body: bytes

    @property
    def path(self) -> str:
        return urlsplit(self.uri).path

    @property
    def host(self) -> str:
        return urlsplit(self.uri).hostname or ""

    def json(self) -> Any:
        return _parse_json(self.body, "request body")


@dataclass(frozen=True)
class HttpResponse:
    status: int
    headers: Headers
    body: bytes  # decompressed

    @property
    def content_type(self) -> str:
        return (_header(self.headers, "content-type") or "").split(";")[0].strip().lower()

    @property
    def is_event_stream(self) -> bool:
        if self.content_type == "text/event-stream":
            return True
        # Some recorders drop headers; an SSE body announces itself.
        head = self.body.lstrip()[:6]
        return head.startswith((b"data:", b"event:", b"id:", b":"))

    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return _parse_json(self.body, "response body")


@dataclass(frozen=True)
class Interaction:
    index: int
    request: HttpRequest
    response: HttpResponse


@dataclass(frozen=True)
class Cassette:
    path: str
    interactions: tuple[Interaction, ...]
    provenance: Mapping[str, Any] = field(default_factory=dict)

    def __iter__(self) -> Iterator[Interaction]:
        return iter(self.interactions)

    def __len__(self) -> int:
        return len(self.interactions)


class BodyError(ValueError):
    pass


def _parse_json(body: bytes, what: str) -> Any:
    if not body:
        raise BodyError(f"{what} is empty")
    try:
        return parse_json(body, what)
    except BoundsError as exc:
        raise BodyError(str(exc)) from None


def _scalar(value: Any) -> bool:
    return isinstance(value, str | bytes | int | float | bool) or value is None


def _headers(raw: Any, what: str) -> dict[str, tuple[str, ...]]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise BodyError(f"{what} headers are a {type(raw).__name__}, not a mapping of names to values")
    headers: dict[str, tuple[str, ...]] = {}
    for name, value in raw.items():
        values = value if isinstance(value, list) else [value]
        if not _scalar(name) or not all(_scalar(v) for v in values):
            raise BodyError(f"{what} header {str(name)[:80]!r} is not a value or a list of values")
        headers[str(name).lower()] = tuple(
            v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in values
        )
    return headers


def _not_json(value: Any) -> Any:
    raise BodyError(f"holds {type(value).__name__} data, which JSON cannot carry")


def body_bytes(value: Any, what: str) -> bytes:
    """A recorded body's bytes: text, `!!binary`, or JSON-shaped data (pydantic-ai's `parsed_body`)
    written as JSON within MAX_DEPTH."""
    if value is None:
        return b""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    # pydantic-ai's parsed_body (a mapping) and anything else JSON-shaped
    if depth_of(value) > MAX_DEPTH:
        raise BodyError(f"{what} nests deeper than {MAX_DEPTH} levels")
    try:
        return json.dumps(value, default=_not_json).encode("utf-8", "surrogateescape")
    except BodyError as exc:
        raise BodyError(f"{what} {exc}") from None
    except (TypeError, ValueError) as exc:
        raise BodyError(f"{what} is not JSON data: {exc}") from None


def _request_body(raw: Mapping[str, Any]) -> bytes:
    if "parsed_body" in raw:
        return body_bytes(raw["parsed_body"], "the request's parsed_body")
    body = raw.get("body")
    if isinstance(body, Mapping) and "string" in body:  # older vcrpy request form
        body = body["string"]
    return body_bytes(body, "the request body")


class BodyBudget:
    """What the bodies of one cassette may decompress to, in all."""

    def __init__(self) -> None:
        self.left = MAX_CASSETTE_BODY_BYTES

    def limit(self, compressed: int | None = None) -> int:
        ratio = max(INFLATION_FACTOR * compressed, INFLATION_FLOOR) if compressed is not None else MAX_BODY_BYTES
        return min(MAX_BODY_BYTES, self.left, ratio)

    def spend(self, size: int) -> None:
        self.left -= size


def _decompress(body: bytes, encoding: str | None, budget: BodyBudget) -> bytes:
    """A response body opened (conformance.recordings.encodings), no further than the budget allows.
    Recorders disagree on whether the stored body is still compressed: the bytes are trusted over
    the header for gzip; deflate and br are opened where the header names them."""
    named = codings(encoding)
    coding = "gzip" if looks_gzip(body) else named[-1] if named and named[-1] in ("deflate", "br") else ""
    if not coding or not body:
        return body
    if coding == "br" and "br" not in OPENED:
        raise BodyError("body is brotli-compressed; install 'brotli' to read it")
    limit = budget.limit(len(body))
    try:
        opened = decode(body, coding, limit)
    except EncodingError as exc:
        raise BodyError(f"the response body ({'brotli' if coding == 'br' else coding}) {exc}") from None
    budget.spend(len(opened))
    return opened


def _status(raw: Mapping[str, Any]) -> int:
    status_raw = raw.get("status", {})
    return status_code(status_raw.get("code", 200) if isinstance(status_raw, Mapping) else status_raw)


def status_code(code: Any) -> int:
    """A recorded status (a number, or its digits) that is an HTTP status code."""
    if isinstance(code, str) and code.strip().isdigit() and len(code.strip()) <= 3:
        code = int(code)
    if isinstance(code, bool) or not isinstance(code, int) or not 100 <= code <= 599:
        raise BodyError(f"the response status {str(code)[:40]!r} is not an HTTP status code (100 to 599)")
    return code


def _response(raw: Mapping[str, Any], budget: BodyBudget) -> HttpResponse:
    headers = _headers(raw.get("headers"), "the response")
    status = _status(raw)
    if "parsed_body" in raw:
        body = body_bytes(raw["parsed_body"], "the response's parsed_body")
    else:
        body_raw = raw.get("body", {})
        body = body_bytes(body_raw.get("string") if isinstance(body_raw, Mapping) else body_raw, "the response body")
    body = _decompress(body, _header(headers, "content-encoding"), budget)
    return HttpResponse(status=status, headers=headers, body=body)


def recorded_exchange(
    request: tuple[str, str, Any, Any], response: tuple[int, Any, Any], budget: BodyBudget
) -> tuple[HttpRequest, HttpResponse]:
    """A request (method, URI, headers, body) and a response (status, headers, body) as another recorder
    wrote them, read as vcrpy's are: headers a mapping of names to a value or a list of values, bodies
    text or bytes, a response body decompressed within `budget`. Raises BodyError."""
    method, uri, request_headers, request_body = request
    status, response_headers, response_body = response
    if not 100 <= status <= 599:
        raise BodyError(f"the response status {status} is not an HTTP status code (100 to 599)")
    headers = _headers(response_headers, "the response")
    body = _decompress(body_bytes(response_body, "the response body"), _header(headers, "content-encoding"), budget)
    return (
        HttpRequest(
            method=method.upper(),
            uri=uri,
            headers=_headers(request_headers, "the request"),
            body=body_bytes(request_body, "the request body"),
        ),
        HttpResponse(status=status, headers=headers, body=body),
    )


def _request(raw: Mapping[str, Any]) -> HttpRequest:
    method, uri = raw.get("method", "POST"), raw.get("uri", "")
    if not isinstance(method, str) or not isinstance(uri, str):
        raise BodyError("the request's method and uri must be strings")
    try:
        urlsplit(uri)
    except ValueError as exc:
        raise BodyError(f"the request uri {uri[:80]!r} is not a URL: {exc}") from None
    return HttpRequest(
        method=method.upper(), uri=uri, headers=_headers(raw.get("headers"), "the request"), body=_request_body(raw)
    )


def yaml_refusal(exc: YamlError, path: str) -> CassetteError:
    """A recording's YAML that cannot be read, as a cassette's error (located by line)."""
    message = exc.message.removeprefix("invalid YAML: ")
    where = f" (line {exc.line})" if exc.line else ""
    prefix = "invalid YAML" if exc.message.startswith("invalid YAML") else "cannot read"
    return CassetteError(path, f"{prefix}{where}: {message.removeprefix('cannot read: ')}")


def load_cassette_data(text: str | bytes, path: str = "<cassette>") -> Any:
    """A cassette file's YAML as plain data, within the bounds; a CassetteError (located) when it is not YAML.
    Other recorders' YAML (go-vcr's) is read this way too, then shaped by its own reader."""
    try:
        return load_data(text, path)
    except YamlError as exc:
        raise yaml_refusal(exc, path) from None


def parse_cassette(text: str | bytes, path: str = "<cassette>") -> Cassette:
    return cassette_from_data(load_cassette_data(text, path), path)


def cassette_from_data(data: Any, path: str = "<cassette>") -> Cassette:
    """A vcrpy cassette from its YAML's data."""
    if not isinstance(data, Mapping) or not isinstance(data.get("interactions"), list):
        raise CassetteError(path, "not a vcrpy cassette: no 'interactions' list")
    interactions: list[Interaction] = []
    budget = BodyBudget()
    for index, raw in enumerate(data["interactions"]):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("request"), Mapping):
            raise CassetteError(path, "interaction has no 'request' mapping", index)
        if not isinstance(raw.get("response"), Mapping):
            raise CassetteError(path, "interaction has no 'response' mapping", index)
        try:
            request = _request(raw["request"])
            response = _response(raw["response"], budget)
        except (BodyError, RecursionError) as exc:
            message = str(exc) if isinstance(exc, BodyError) else f"nests deeper than {MAX_DEPTH} levels"
            raise CassetteError(path, message, index) from None
        interactions.append(Interaction(index=index, request=request, response=response))
    provenance = data.get("provenance")
    return Cassette(
        path=path,
        interactions=tuple(interactions),
        provenance=provenance if isinstance(provenance, Mapping) else {},
    )


# Cassettes parsed already (a corpus snapshot's), by path, with the stamp of the file they were
# parsed from: handed out again while the file is unchanged.
_preloaded: dict[str, tuple[tuple[int, int], Cassette]] = {}


def stamp(path: Path) -> tuple[int, int] | None:
    """A regular file's (size, modification time), or None."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_size, status.st_mtime_ns) if stat.S_ISREG(status.st_mode) else None


def preload(cassettes: Mapping[str, tuple[tuple[int, int], Cassette]]) -> None:
    _preloaded.update(cassettes)


def load_cassette(path: Path | str) -> Cassette:
    path = Path(path)
    known = _preloaded.get(str(path))
    if known is not None:
        if stamp(path) == known[0]:
            return known[1]
        del _preloaded[str(path)]
    try:
        text = read_file(path)
    except BoundsError as exc:
        raise CassetteError(str(path), str(exc)) from None
    return parse_cassette(text, str(path))
