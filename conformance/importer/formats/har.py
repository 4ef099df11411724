"""HTTP Archives (HAR 1.2): what LangChain.js's `@langchain/net-mocks` records its provider tests into
(`__snapshots__/*.har`), and what Polly.js's file persister writes.

`log.entries[]` each hold a `request` (`method`, `url`, `headers` as a list of `{name, value}`,
`postData.text`) and a `response` (`status`, `headers`, `content.text`, base64 when
`content.encoding` says so). Polly.js's node-http adapter writes a body it kept as the chunks it
received (a compressed one) as base64 too, but as a JSON array of each chunk's base64
(`["H4sI...", "jFPL..."]`): the chunks are decoded one by one and joined. Other text is decoded
content (the format says so): a `Content-Encoding` header left beside it does not describe it, so
it is dropped, and only bytes that are still compressed (gzip's magic number) are inflated, within
the budget every cassette's bodies share. The JSON is read within the same depth bound as every recorded body.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conformance.recordings.bounds import BoundsError, parse_json, read_file
from conformance.recordings.cassette import (
    BodyBudget,
    BodyError,
    Cassette,
    CassetteError,
    Interaction,
    recorded_exchange,
)


def looks_like(name: str, head: bytes) -> bool:
    return name.endswith(".har") or head.lstrip()[:8].replace(b" ", b"").startswith(b'{"log"')


def _headers(raw: Any, what: str, drop: str = "") -> dict[str, list[str]]:
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise BodyError(f"the {what}'s headers are a {type(raw).__name__}, not a list of {{name, value}}")
    headers: dict[str, list[str]] = {}
    for entry in raw:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            raise BodyError(f"the {what} header {str(entry)[:60]!r} is not a name and a value")
        if entry["name"].lower() == drop:
            continue
        headers.setdefault(entry["name"], []).append(str(entry.get("value", "")))
    return headers


def _content(response: Mapping[str, Any]) -> tuple[bytes | str, bool]:
    """The response body, and whether it is the bytes as sent (base64) rather than decoded text."""
    content = response.get("content") or {}
    if not isinstance(content, Mapping):
        raise BodyError("the response's content is not a mapping")
    text = content.get("text", "")
    if not isinstance(text, str):
        raise BodyError(f"the response's content.text is a {type(text).__name__}, not a string")
    if content.get("encoding") == "base64":
        chunks = _polly_chunks(text)
        try:
            return b"".join(base64.b64decode(chunk, validate=True) for chunk in chunks), True
        except (binascii.Error, ValueError) as exc:
            raise BodyError(f"the response's base64 content is not base64: {exc}") from None
    return text, False


def _polly_chunks(text: str) -> list[str]:
    """The base64 texts of a body: the one text, or the chunks of Polly.js's JSON array of them."""
    if not text.lstrip().startswith("["):
        return [text]
    try:
        chunks = parse_json(text.encode(), "the response's base64 chunks")
    except BoundsError as exc:
        raise BodyError(str(exc)) from None
    if not isinstance(chunks, list) or not all(isinstance(chunk, str) for chunk in chunks):
        raise BodyError("the response's base64 content is a JSON value, not a list of base64 chunks")
    return chunks


def parse(data: bytes, path: str) -> Cassette:
    try:
        archive = parse_json(data, "the archive")
    except BoundsError as exc:
        raise CassetteError(path, str(exc)) from None
    log = archive.get("log") if isinstance(archive, Mapping) else None
    entries = log.get("entries") if isinstance(log, Mapping) else None
    if not isinstance(entries, list):
        raise CassetteError(path, "not an HTTP Archive: no `log.entries` list")
    budget = BodyBudget()
    interactions: list[Interaction] = []
    for index, entry in enumerate(entries):
        request, response = (entry.get(k) if isinstance(entry, Mapping) else None for k in ("request", "response"))
        if not isinstance(request, Mapping) or not isinstance(response, Mapping):
            raise CassetteError(path, "an archive entry holds a `request` and a `response` mapping", index)
        try:
            method, url, status = request.get("method", "GET"), request.get("url"), response.get("status")
            if not isinstance(method, str) or not isinstance(url, str):
                raise BodyError("the request's method and url must be strings")
            if isinstance(status, bool) or not isinstance(status, int):
                raise BodyError(f"the response status {str(status)[:40]!r} is not an HTTP status code")
            post = request.get("postData") or {}
            body = post.get("text", "") if isinstance(post, Mapping) else None
            if not isinstance(body, str):
                raise BodyError("the request's postData.text is not a string")
            content, as_sent = _content(response)
            sent, received = recorded_exchange(
                (method, url, _headers(request.get("headers"), "request"), body),
                (status, _headers(response.get("headers"), "response", "" if as_sent else "content-encoding"), content),
                budget,
            )
        except BodyError as exc:
            raise CassetteError(path, str(exc), index) from None
        interactions.append(Interaction(index=index, request=sent, response=received))
    return Cassette(path=path, interactions=tuple(interactions))


def load(path: Path) -> Cassette:
    try:
        return parse(read_file(path), str(path))
    except BoundsError as exc:
        raise CassetteError(str(path), str(exc)) from None
