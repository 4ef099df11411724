"""WireMock stub mappings written by its recorder: what Java test suites record provider traffic into.

A recorded stub holds the request as matchers (`url`, `method`, `bodyPatterns: [{equalToJson: ...}]`,
headers as `{equalTo: ...}`) and the response as served (`status`, `headers`, `body`, `jsonBody`,
`base64Body`). One file is a stub (`{"request": ..., "response": ...}`), several
(`{"mappings": [...]}`), or a YAML stream of stubs, one document each (how some suites keep a
test's recordings in one file); the stubs are read in the file's order, which is the recorder's.

A request is only traffic when its body was kept whole (`equalToJson`, `equalTo`, `binaryEqualTo`):
a stub matching on a JSON path says what its author checked, not what the client sent, and is
refused. A body kept in the recorder's `__files/` folder (`bodyFileName`) is read from there.
The recorder keeps the path, not the host: the host is told by the provider's own response headers
(`openai-version`, `anthropic-organization-id`) and is otherwise a local OpenAI-compatible server.
A body kept as text is decoded: a `Content-Encoding` header beside it described the wire and is dropped.

Everything is read within the bounds every cassette is read within (conformance/recordings/bounds.py).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conformance.recordings.bounds import BoundsError, parse_json, read_file
from conformance.recordings.cassette import (
    BodyError,
    Cassette,
    CassetteError,
    HttpRequest,
    HttpResponse,
    Interaction,
    body_bytes,
    status_code,
    yaml_refusal,
)
from conformance.recordings.yamlio import YamlError, load_all_data

# Keys only a WireMock stub mapping has: as a JSON key anywhere, or a YAML key at the start of a line.
_KEYS = re.compile(rb'"(bodyPatterns|insertionIndex|urlPath|urlPattern|urlPathPattern|mappings)"\s*:')
_YAML_KEYS = re.compile(rb"(?m)^\s*(bodyPatterns|insertionIndex|urlPath|urlPattern|urlPathPattern):")
_HOSTS = (("openai-version", "https://api.openai.com"), ("anthropic-organization-id", "https://api.anthropic.com"))
_LOCAL = "http://localhost:8080"
_EXACT_BODY = ("equalToJson", "equalTo", "binaryEqualTo")


def looks_like(head: bytes) -> bool:
    keys = _KEYS if head.lstrip().startswith(b"{") else _YAML_KEYS
    return bool(keys.search(head)) and b"request" in head and b"interactions" not in head


def _stubs(text: bytes, path: Path) -> list[Any]:
    if text.lstrip().startswith(b"{"):
        try:
            data = parse_json(text, "the stub mappings")
        except BoundsError as exc:
            raise CassetteError(str(path), str(exc)) from None
        stubs = data.get("mappings", [data]) if isinstance(data, Mapping) else None
        if not isinstance(stubs, list):
            raise CassetteError(str(path), "not WireMock stub mappings: no stub and no `mappings` list")
        return stubs
    try:
        return [d for d in load_all_data(text, path) if d is not None]
    except YamlError as exc:
        raise yaml_refusal(exc, str(path)) from None


def _text(value: Any, what: str) -> str:
    if isinstance(value, Mapping | list) or value is None:
        raise BodyError(f"{what} is a {type(value).__name__}, not a value")
    return str(value)


def _request_body(request: Mapping[str, Any]) -> bytes:
    patterns = request.get("bodyPatterns") or []
    if not isinstance(patterns, list):
        raise BodyError("the request's bodyPatterns are not a list")
    for pattern in patterns:
        if not isinstance(pattern, Mapping):
            raise BodyError("a request body pattern is not a mapping")
        for key in _EXACT_BODY:
            if key not in pattern:
                continue
            value = pattern[key]
            if key == "binaryEqualTo":
                return _base64(value, "the request's binaryEqualTo")
            return (value if isinstance(value, str) else json.dumps(value)).encode()
    if patterns:
        kinds = sorted({k for p in patterns for k in p})
        raise BodyError(f"the request body is matched ({', '.join(kinds)}), not recorded whole")
    return b""


def _base64(value: Any, what: str) -> bytes:
    try:
        return base64.b64decode(_text(value, what), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise BodyError(f"{what} is not base64: {exc}") from None


def _response_body(response: Mapping[str, Any], path: Path) -> bytes:
    if "jsonBody" in response:
        return json.dumps(response["jsonBody"]).encode()
    if "base64Body" in response:
        return _base64(response["base64Body"], "the response's base64Body")
    if "bodyFileName" in response:
        name = _text(response["bodyFileName"], "the response's bodyFileName")
        folder = (path.parent.parent / "__files").resolve()
        file = (folder / name).resolve()
        if folder not in file.parents:
            raise BodyError(f"the response's bodyFileName {name[:60]!r} is outside the recorder's __files folder")
        try:
            return read_file(file)
        except (BoundsError, OSError) as exc:
            raise BodyError(f"the response's bodyFileName {name[:60]!r} cannot be read: {exc}") from None
    return body_bytes(response.get("body"), "the response body")


def _headers(raw: Any, what: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, Mapping | None):
        raise BodyError(f"the {what} headers are a {type(raw).__name__}, not a mapping")
    headers: dict[str, tuple[str, ...]] = {}
    for name, value in (raw or {}).items():
        # A request header is a matcher (`{equalTo: ...}`); a response header a value or a list of them.
        if isinstance(value, Mapping):
            if "equalTo" not in value:
                continue
            value = value["equalTo"]
        values = value if isinstance(value, list) else [value]
        headers[str(name).lower()] = tuple(_text(v, f"the {what} header {name!r}") for v in values)
    return headers


def _url(request: Mapping[str, Any]) -> str:
    for key in ("url", "urlPath"):
        if key in request:
            return _text(request[key], f"the request's {key}")
    raise BodyError("the request has no `url` or `urlPath`: a stub matching a pattern records no request")


def parse(text: bytes, path: Path) -> Cassette:
    stubs = _stubs(text, path)
    interactions: list[Interaction] = []
    for index, stub in enumerate(stubs):
        try:
            if not isinstance(stub, Mapping):
                raise BodyError(f"the stub is a {type(stub).__name__}, not a mapping")
            request, response = stub.get("request"), stub.get("response")
            if not isinstance(request, Mapping) or not isinstance(response, Mapping):
                raise BodyError("a stub holds a `request` and a `response` mapping")
            served = _headers(response.get("headers"), "response")
            if "base64Body" not in response:  # decoded text: a Content-Encoding left beside it is the wire's
                served.pop("content-encoding", None)
            host = next((h for header, h in _HOSTS if header in served), _LOCAL)
            interactions.append(
                Interaction(
                    index=index,
                    request=HttpRequest(
                        method=_text(request.get("method", "POST"), "the method").upper(),
                        uri=host + _url(request),
                        headers=_headers(request.get("headers"), "request"),
                        body=_request_body(request),
                    ),
                    response=HttpResponse(
                        status=status_code(response.get("status", 200)),
                        headers=served,
                        body=_response_body(response, path),
                    ),
                )
            )
        except (BodyError, ValueError) as exc:
            raise CassetteError(str(path), f"a WireMock stub: {exc}", index) from None
    return Cassette(path=str(path), interactions=tuple(interactions))


def load(path: Path) -> Cassette:
    try:
        return parse(read_file(path), path)
    except BoundsError as exc:
        raise CassetteError(str(path), str(exc)) from None
