"""Reading vcrpy cassettes into typed HTTP interactions.

Handles what real recordings contain: bodies as text or `!!binary`, gzip and deflate
`Content-Encoding`, SSE streams, and the `parsed_body` mapping that pydantic-ai's cassette
serializer writes in place of `body`. Every failure is a `CassetteError` naming the file and,
where it can, the interaction.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

try:
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

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
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BodyError(f"{what} is not JSON: {exc}") from None


def _headers(raw: Any) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, Mapping):
        return {}
    headers: dict[str, tuple[str, ...]] = {}
    for name, value in raw.items():
        values = value if isinstance(value, list) else [value]
        headers[str(name).lower()] = tuple(str(v) for v in values)
    return headers


def _as_bytes(value: Any) -> bytes:
    if value is None:
        return b""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    # pydantic-ai's parsed_body (a mapping) and anything else JSON-shaped
    return json.dumps(value).encode("utf-8")


def _request_body(raw: Mapping[str, Any]) -> bytes:
    if "parsed_body" in raw:
        return _as_bytes(raw["parsed_body"])
    body = raw.get("body")
    if isinstance(body, Mapping) and "string" in body:  # older vcrpy request form
        body = body["string"]
    return _as_bytes(body)


def _decompress(body: bytes, encoding: str | None) -> bytes:
    # Recorders disagree on whether the stored body is still compressed: trust the bytes.
    if body[:2] == b"\x1f\x8b":
        return gzip.decompress(body)
    if encoding and encoding.strip().lower() == "deflate" and body:
        try:
            return zlib.decompress(body)
        except zlib.error:
            return zlib.decompress(body, -zlib.MAX_WBITS)
    if encoding and encoding.strip().lower() == "br" and body:
        try:
            import brotli  # type: ignore[import-not-found]
        except ImportError:
            raise BodyError("body is brotli-compressed; install 'brotli' to read it") from None
        return bytes(brotli.decompress(body))
    return body


def _response(raw: Mapping[str, Any]) -> HttpResponse:
    headers = _headers(raw.get("headers"))
    status_raw = raw.get("status", {})
    status = status_raw.get("code", 200) if isinstance(status_raw, Mapping) else status_raw
    if "parsed_body" in raw:
        body = _as_bytes(raw["parsed_body"])
    else:
        body_raw = raw.get("body", {})
        body = _as_bytes(body_raw.get("string") if isinstance(body_raw, Mapping) else body_raw)
    body = _decompress(body, _header(headers, "content-encoding"))
    return HttpResponse(status=int(status), headers=headers, body=body)


def parse_cassette(text: str | bytes, path: str = "<cassette>") -> Cassette:
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark else ""
        raise CassetteError(path, f"invalid YAML{where}: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("interactions"), list):
        raise CassetteError(path, "not a vcrpy cassette: no 'interactions' list")
    interactions: list[Interaction] = []
    for index, raw in enumerate(data["interactions"]):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("request"), Mapping):
            raise CassetteError(path, "interaction has no 'request' mapping", index)
        if not isinstance(raw.get("response"), Mapping):
            raise CassetteError(path, "interaction has no 'response' mapping", index)
        req = raw["request"]
        try:
            request = HttpRequest(
                method=str(req.get("method", "POST")).upper(),
                uri=str(req.get("uri", "")),
                headers=_headers(req.get("headers")),
                body=_request_body(req),
            )
            response = _response(raw["response"])
        except (BodyError, OSError, EOFError, zlib.error) as exc:
            raise CassetteError(path, str(exc), index) from None
        interactions.append(Interaction(index=index, request=request, response=response))
    provenance = data.get("provenance")
    return Cassette(
        path=path,
        interactions=tuple(interactions),
        provenance=provenance if isinstance(provenance, Mapping) else {},
    )


def load_cassette(path: Path | str) -> Cassette:
    path = Path(path)
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise CassetteError(str(path), f"cannot read: {exc.strerror or exc}") from None
    return parse_cassette(text, str(path))
