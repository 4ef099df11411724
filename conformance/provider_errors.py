"""Error responses in each provider's own shape, for replays that must fail the way the provider would.

When a client under test sends a request the provider would reject, the replay serves this
instead of the recorded success, with the provider's verbatim message, so the client's own
error handling runs as it would in production.
"""

from __future__ import annotations

import json
from typing import Any


def _body(api: str, message: str) -> tuple[dict[str, Any], dict[str, list[str]]]:
    if api == "anthropic-messages":
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}, {}
    if api == "gemini":
        return {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}, {}
    if api == "bedrock-converse":
        return {"message": message}, {"x-amzn-errortype": ["ValidationException:http://internal.amazon.com/coral/"]}
    if api == "mistral-chat":
        return {"object": "error", "message": message, "type": "invalid_request_error", "param": None, "code": None}, {}
    if api == "ollama-chat":
        return {"error": message}, {}
    if api == "cohere-v2":
        return {"message": message}, {}
    # OpenAI and the servers that follow its error shape (Responses, Foundry, OpenResponses, Kimi).
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}, {}


def error_response(api: str, message: str) -> dict[str, Any]:
    """A vcrpy response dict: HTTP 400 with the provider's error body."""
    body, headers = _body(api, message)
    return {
        "status": {"code": 400, "message": "Bad Request"},
        "headers": {"content-type": ["application/json"], **headers},
        "body": {"string": json.dumps(body).encode()},
    }
