"""rig's httpmock cassettes: YAML documents of `when:` (the request) and `then:` (the response).

The recorder keeps the path, not the host, and redacts ids (`call_REDACTED_1`, `msg_REDACTED_1`):
the host is told by the provider folder the cassette lives in (`tests/cassettes/PROVIDER/...`),
and a folder this module does not know is read as an OpenAI-compatible server on localhost.
The redacted ids are what the recording holds; they are numbered per recording, so distinct
calls keep distinct ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import yaml

from conformance.importer.formats.text import read_text
from conformance.recordings.cassette import Cassette, CassetteError, HttpRequest, HttpResponse, Interaction

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


def _headers(raw: Any, what: str) -> dict[str, tuple[str, ...]]:
    headers: dict[str, tuple[str, ...]] = {}
    for entry in raw or ():
        if not isinstance(entry, Mapping) or "name" not in entry:
            raise ValueError(f"{what} header {str(entry)[:60]!r} is not a name and a value")
        key = str(entry["name"]).lower()
        headers[key] = (*headers.get(key, ()), str(entry.get("value", "")))
    return headers


def _body(raw: Any) -> bytes:
    if raw is None:
        return b""
    if isinstance(raw, bytes):
        return raw
    return str(raw).encode("utf-8", "surrogateescape")


def parse(text: str, path: Path) -> Cassette:
    try:
        documents = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as exc:
        raise CassetteError(str(path), f"invalid YAML: {str(exc).splitlines()[0]}") from None
    host = _host(path)
    interactions: list[Interaction] = []
    for index, document in enumerate(documents):
        try:
            when, then = document["when"], document["then"]
            query = [(q["name"], q.get("value", "")) for q in when.get("query_param") or ()]
            uri = host + str(when.get("path", "/")) + (f"?{urlencode(query)}" if query else "")
            status = int(then.get("status", 200))
            interactions.append(
                Interaction(
                    index=index,
                    request=HttpRequest(
                        method=str(when.get("method", "POST")).upper(),
                        uri=uri,
                        headers=_headers(when.get("header"), "the request"),
                        body=_body(when.get("body")),
                    ),
                    response=HttpResponse(
                        status=status,
                        headers=_headers(then.get("header"), "the response"),
                        body=_body(then.get("body")),
                    ),
                )
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CassetteError(str(path), f"not an httpmock `when`/`then` document: {exc}", index) from None
    # The recorder replaced the provider's ids: their shape and length are not the provider's.
    return Cassette(path=str(path), interactions=tuple(interactions), provenance={"ids_redacted": True})


def load(path: Path) -> Cassette:
    return parse(read_text(path), path)
