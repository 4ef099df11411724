"""rig's httpmock cassettes: YAML documents of `when:` (the request) and `then:` (the response).

The recorder keeps the path, not the host, and redacts ids (`call_REDACTED_1`, `msg_REDACTED_1`):
the host is told by the provider folder the cassette lives in (`tests/cassettes/PROVIDER/...`),
and a folder this module does not know is read as an OpenAI-compatible server on localhost.
The redacted ids are what the recording holds; they are numbered per recording, so distinct
calls keep distinct ids.

The documents are read within the bounds a vcrpy cassette is read in (size, nodes, nesting, what
aliases expand to: conformance/recordings/bounds.py), over all the file's documents together.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from conformance.recordings.bounds import BoundsError, read_file
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

HOSTS = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com",
    "chatgpt": "https://api.openai.com",
    "gemini": "https://generativelanguage.googleapis.com",
    "mistral": "https://api.mistral.ai",
    "cohere": "https://api.cohere.com",
    "ollama": "http://localhost:11434",
    "deepseek": "https://api.deepseek.com",
    "groq": "https://api.groq.com",
    "openrouter": "https://openrouter.ai",
    "xai": "https://api.x.ai",
    "perplexity": "https://api.perplexity.ai",
    "bedrock": "https://bedrock-runtime.us-east-1.amazonaws.com",
    "moonshot": "https://api.moonshot.ai",
}
_LOCAL = "http://localhost:8080"


def looks_like(head: bytes) -> bool:
    return head.lstrip().startswith(b"when:")


def _host(path: Path) -> str:
    parts = path.parts
    if "cassettes" in parts:
        i = len(parts) - 1 - parts[::-1].index("cassettes")
        if i + 1 < len(parts):
            return HOSTS.get(parts[i + 1].lower(), _LOCAL)
    return _LOCAL


def _scalar(value: Any, what: str) -> str:
    if isinstance(value, Mapping | list):
        raise ValueError(f"{what} is a {type(value).__name__}, not a value")
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _headers(raw: Any, what: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, list | None):
        raise ValueError(f"{what} headers are a {type(raw).__name__}, not a list of names and values")
    headers: dict[str, tuple[str, ...]] = {}
    for entry in raw or ():
        if not isinstance(entry, Mapping) or "name" not in entry:
            raise ValueError(f"{what} header {_scalar(entry, 'a header')[:60]!r} is not a name and a value")
        key = _scalar(entry["name"], f"{what} header name").lower()
        headers[key] = (*headers.get(key, ()), _scalar(entry.get("value", ""), f"{what} header {key!r}"))
    return headers


def _query(raw: Any) -> list[tuple[str, str]]:
    if not isinstance(raw, list | None):
        raise ValueError(f"the query is a {type(raw).__name__}, not a list of names and values")
    pairs = []
    for entry in raw or ():
        if not isinstance(entry, Mapping) or "name" not in entry:
            raise ValueError("a query parameter is not a name and a value")
        pairs.append((_scalar(entry["name"], "a query name"), _scalar(entry.get("value", ""), "a query value")))
    return pairs


def parse(text: str | bytes, path: Path) -> Cassette:
    try:
        documents = [d for d in load_all_data(text, path) if d is not None]
    except YamlError as exc:
        raise yaml_refusal(exc, str(path)) from None
    host = _host(path)
    interactions: list[Interaction] = []
    for index, document in enumerate(documents):
        try:
            if not isinstance(document, Mapping):
                raise ValueError(f"the document is a {type(document).__name__}, not a mapping")
            when, then = document["when"], document["then"]
            if not isinstance(when, Mapping) or not isinstance(then, Mapping):
                raise ValueError("`when` and `then` must be mappings")
            query = _query(when.get("query_param"))
            uri = host + _scalar(when.get("path", "/"), "the path") + (f"?{urlencode(query)}" if query else "")
            status = status_code(then.get("status", 200))
            interactions.append(
                Interaction(
                    index=index,
                    request=HttpRequest(
                        method=_scalar(when.get("method", "POST"), "the method").upper(),
                        uri=uri,
                        headers=_headers(when.get("header"), "the request"),
                        body=body_bytes(when.get("body"), "the request body"),
                    ),
                    response=HttpResponse(
                        status=status,
                        headers=_headers(then.get("header"), "the response"),
                        body=body_bytes(then.get("body"), "the response body"),
                    ),
                )
            )
        except BodyError as exc:
            raise CassetteError(str(path), str(exc), index) from None
        except (KeyError, ValueError) as exc:
            raise CassetteError(str(path), f"not an httpmock `when`/`then` document: {exc}", index) from None
    # The recorder replaced the provider's ids: their shape and length are not the provider's.
    return Cassette(path=str(path), interactions=tuple(interactions), provenance={"ids_redacted": True})


def load(path: Path) -> Cassette:
    try:
        return parse(read_file(path), path)
    except BoundsError as exc:
        raise CassetteError(str(path), str(exc)) from None
