"""Gemini's enums as numbers or names: a recording made with `$alt=json;enum-encoding=int` served to a
client that did not ask for numbers.

Vertex AI's REST clients (the `vertexai` SDK) ask for enums as numbers; the server then writes
`"finishReason": 1` where it writes `"STOP"` for everyone else, and the recorded tool declarations
carry schema types as numbers (`"type": 6`). A client that asks nothing of the kind (google-genai, every
framework) gets names from the provider, and its types cannot read numbers; the replay answers it
with the names, as the provider would. Only the enums whose numbers are the same in every API version
are named; any other number is left as recorded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

from conformance.recordings.cassette import HttpResponse

# Field name -> the enum's names by number (google.cloud.aiplatform.v1 and the Developer API agree on these).
_NAMES: Mapping[str, tuple[str, ...]] = {
    "finishReason": ("FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION"),
    "modality": ("MODALITY_UNSPECIFIED", "TEXT", "IMAGE", "VIDEO", "AUDIO", "DOCUMENT"),
    "trafficType": ("TRAFFIC_TYPE_UNSPECIFIED", "ON_DEMAND", "PROVISIONED_THROUGHPUT"),
}
# OpenAPI schema types (google.cloud.aiplatform.v1.Type) by number, as JSON Schema names.
SCHEMA_TYPES = ("type_unspecified", "string", "number", "integer", "boolean", "array", "object", "null")


def asks_numbers(query: Mapping[str, tuple[str, ...]] | str) -> bool:
    """Whether a request's query (parsed, or a whole URI) asks for enums as numbers."""
    if isinstance(query, str):
        query = {k: tuple(v) for k, v in parse_qs(urlsplit(query).query, keep_blank_values=True).items()}
    return any("enum-encoding=int" in value for value in query.get("$alt", ()))


def with_names(response: HttpResponse) -> HttpResponse:
    """The response with its enums named: one JSON body, a JSON array of chunks, or server-sent events."""
    try:
        text = response.body.decode("utf-8")
        body = json.dumps(_named(json.loads(text)), ensure_ascii=False)
    except (UnicodeDecodeError, ValueError):
        lines = []
        for line in response.body.decode("utf-8", errors="replace").splitlines(keepends=True):
            head, sep, data = line.partition("data:")
            if head or not sep or not data.strip():
                lines.append(line)
                continue
            try:
                named = json.dumps(_named(json.loads(data)), ensure_ascii=False)
            except ValueError:
                lines.append(line)
                continue
            lines.append(f"data: {named}" + line[len(line.rstrip("\r\n")) :])
        body = "".join(lines)
    return HttpResponse(status=response.status, headers=response.headers, body=body.encode())


def _named(value: Any) -> Any:
    if isinstance(value, list):
        return [_named(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        names = _NAMES.get(key)
        if names is not None and isinstance(item, int) and not isinstance(item, bool) and 0 <= item < len(names):
            out[key] = names[item]
        else:
            out[key] = _named(item)
    return out
