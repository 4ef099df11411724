"""langchain-tests' cassettes (`*.yaml.gz`): gzipped YAML of `requests:` and `responses:` lists, paired
by position (the standard tests' own serializer), or vcrpy's `interactions:` under gzip.

The serializer redacts header values (`**REDACTED**`), the content type and encoding among them: a
header left with only redacted values says nothing and is dropped, and the body tells what it is
(an SSE stream, an AWS event stream, JSON).

The file inflates within the bounds a compressed body does (INFLATION_FACTOR times its size, past
a floor) and no further than a cassette file may be; what it inflates to is read within a vcrpy
cassette's bounds (nodes, nesting, aliases: conformance/recordings/bounds.py).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conformance.recordings.bounds import (
    INFLATION_FACTOR,
    INFLATION_FLOOR,
    MAX_FILE_BYTES,
    BoundsError,
    read_file,
)
from conformance.recordings.cassette import Cassette, CassetteError, cassette_from_data, yaml_refusal
from conformance.recordings.yamlio import YamlError, load_data

_REDACTED = "**REDACTED**"


def inflated_limit(compressed: int) -> int:
    """What a gzipped cassette of `compressed` bytes may inflate to."""
    return min(MAX_FILE_BYTES, max(INFLATION_FACTOR * compressed, INFLATION_FLOOR))


def _inflate(data: bytes, path: Path) -> bytes:
    limit = inflated_limit(len(data))
    members: list[bytes] = []
    size = 0
    rest = data
    try:
        while rest:  # every gzip member, as gzip itself reads them
            inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            members.append(inflater.decompress(rest, limit + 1 - size))
            size += len(members[-1])
            if size > limit or inflater.unconsumed_tail:
                raise CassetteError(str(path), f"inflates past {limit} bytes ({INFLATION_FACTOR} times its size)")
            if not inflater.eof:
                raise CassetteError(str(path), "not gzip data: cut off before the end of its compressed stream")
            rest = inflater.unused_data.lstrip(b"\x00")
    except zlib.error as exc:
        raise CassetteError(str(path), f"not gzip data: {exc}") from None
    # One member (the usual file) is handed on as inflated, not copied: tens of megabytes, for nothing.
    return members[0] if len(members) == 1 else b"".join(members)


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
    try:
        document = load_data(_inflate(data, path), path)
    except YamlError as exc:
        raise yaml_refusal(exc, str(path)) from None
    if not isinstance(document, Mapping):
        raise CassetteError(str(path), "not a cassette: the YAML is not a mapping")
    if "interactions" in document:
        return cassette_from_data(document, str(path))
    return cassette_from_data(_paired(document, path), str(path))
