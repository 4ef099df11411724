"""Credentials out of an imported interaction, whatever the recorder left in.

The recorder that made a third-party cassette may have filtered nothing. Before an interaction is
written into the corpus: the credential headers and key query parameters that recording scrubs
(`conformance.recordings.recording`'s lists), cookies, and any string shaped like a provider key, wherever
it stands (header values, URLs, bodies). One function, `scrub_interaction`, so that value-based
scrubbing can be added in one place.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from conformance.recordings.recording import SCRUBBED, SECRET_HEADERS, SECRET_QUERY_PARAMETERS, SECRET_RESPONSE_HEADERS

# Shapes of provider keys and tokens: OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), Google (AIza),
# AWS access key ids, GitHub, Groq, Slack, Hugging Face, and bearer tokens in header values.
# A key starts a token: not the middle of a longer base64 run (thought signatures, encrypted content).
KEY_SHAPES = re.compile(
    r"(?<![A-Za-z0-9_+/=-])(?:"
    r"sk-(?:ant-|proj-|svcacct-)?[A-Za-z0-9_-]{20,}"
    r"|AIza[0-9A-Za-z_-]{35}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|gh[pousr]_[A-Za-z0-9]{36,}"
    r"|gsk_[A-Za-z0-9]{40,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"
    r"|hf_[A-Za-z0-9]{30,}"
    r")"
)
_BEARER = re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}")


def scrub_text(text: str) -> str:
    return _BEARER.sub(f"Bearer {SCRUBBED}", KEY_SHAPES.sub(SCRUBBED, text))


def _scrub_uri(uri: str) -> str:
    parts = urlsplit(uri)
    if not parts.query:
        return scrub_text(uri)
    query = [
        (k, SCRUBBED if k.lower() in SECRET_QUERY_PARAMETERS else scrub_text(v))
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    ]
    return scrub_text(urlunsplit(parts._replace(query=urlencode(query, safe="<>/:"))))


def _scrub_headers(headers: dict[str, list[str]], secret: tuple[str, ...]) -> dict[str, list[str]]:
    return {
        name: [SCRUBBED] * len(values) if name.lower() in secret else [scrub_text(v) for v in values]
        for name, values in headers.items()
    }


def _scrub_body(body: str | bytes) -> str | bytes:
    if isinstance(body, str):
        return scrub_text(body)
    # Binary bodies (AWS event streams) are framed with checksums; a key inside one cannot be
    # replaced without breaking the frame, so the importer refuses such a body (see `has_key`).
    return body


def has_key(value: str | bytes) -> bool:
    """Whether text or bytes hold something shaped like a credential."""
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    return KEY_SHAPES.search(text) is not None


def scrub_interaction(interaction: dict[str, Any]) -> dict[str, Any]:
    """A plain interaction (`request`: method, uri, headers, body; `response`: status, headers, body)
    with credentials replaced by `<scrubbed>`."""
    request = dict(interaction["request"])
    response = dict(interaction["response"])
    request["uri"] = _scrub_uri(request["uri"])
    request["headers"] = _scrub_headers(request.get("headers", {}), (*SECRET_HEADERS, "set-cookie"))
    request["body"] = _scrub_body(request.get("body", ""))
    response["headers"] = _scrub_headers(response.get("headers", {}), (*SECRET_RESPONSE_HEADERS, "cookie"))
    response["body"] = _scrub_body(response.get("body", ""))
    return {"request": request, "response": response}
