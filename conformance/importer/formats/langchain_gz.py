"""langchain-tests' cassettes (`*.yaml.gz`): gzipped YAML of `requests:` and `responses:` lists, paired
by position (the standard tests' own serializer), or vcrpy's `interactions:` under gzip.

The serializer redacts header values (`**REDACTED**`), the content type and encoding among them: a
header left with only redacted values says nothing and is dropped, and the body tells what it is
(an SSE stream, an AWS event stream, JSON).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from conformance.recordings.bounds import BoundsError, read_file
from conformance.recordings.cassette import Cassette, CassetteError, parse_cassette

# A gzipped cassette that inflates past this is refused rather than read into memory.
_MAX_INFLATED = 256 * 1024 * 1024
_REDACTED = "**REDACTED**"


def _inflate(data: bytes, path: Path) -> bytes:
    try:
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        text = inflater.decompress(data, _MAX_INFLATED)
    except zlib.error as exc:
        raise CassetteError(str(path), f"not gzip data: {exc}") from None
    if inflater.unconsumed_tail:
        raise CassetteError(str(path), f"inflates past {_MAX_INFLATED} bytes")
    return text


def _headers(raw: Any) -> Any:
    if not isinstance(raw, Mapping):
        return raw
    kept: dict[Any, Any] = {}
    for name, values in raw.items():
        listed = values if isinstance(values, list) else [values]
        if any(v != _REDACTED for v in listed):
            kept[name] = values
    return kept


def _paired(data: Mapping[str, Any], path: Path) -> dict[str, Any]:
    requests, responses = data.get("requests"), data.get("responses")
    if not isinstance(requests, list) or not isinstance(responses, list):
        raise CassetteError(str(path), "not a langchain-tests cassette: no 'requests' and 'responses' lists")
    if len(requests) != len(responses):
        raise CassetteError(
            str(path), f"{len(requests)} requests but {len(responses)} responses: they pair by position"
        )
    interactions: list[dict[str, Any]] = []
    for request, response in zip(requests, responses, strict=True):
        if not isinstance(request, Mapping) or not isinstance(response, Mapping):
            raise CassetteError(str(path), "a request or response is not a mapping", len(interactions))
        interactions.append(
            {
                "request": {**request, "headers": _headers(request.get("headers"))},
                "response": {**response, "headers": _headers(response.get("headers"))},
            }
        )
    return {"interactions": interactions, "version": 1}


def load(path: Path) -> Cassette:
    try:
        data = read_file(path)
    except BoundsError as exc:
        raise CassetteError(str(path), str(exc)) from None
    text = _inflate(data, path)
    if b"interactions:" in text[:4096] and not text.lstrip().startswith(b"requests:"):
        return parse_cassette(text, str(path))
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise CassetteError(str(path), f"invalid YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(document, Mapping):
        raise CassetteError(str(path), "not a cassette: the YAML is not a mapping")
    if "interactions" in document:
        return parse_cassette(text, str(path))
    return parse_cassette(yaml.safe_dump(_paired(document, path), allow_unicode=True), str(path))
