"""Error responses in each provider's own shape, for replays that must fail the way the provider would.

When a client under test sends a request the provider would reject, the replay serves this
instead of the recorded success, with the provider's verbatim message, so the client's own
error handling runs as it would in production. The shapes, and the evidence for them, are recorded
in the wire-type cases' notes and sources (cases/wire-types/<api>/).
"""

from __future__ import annotations

import json
from typing import Any

# Mistral's hosted API types an error by the validator check that raised it (mistral-common's
# InstructValidator): InvalidFunctionCallException as `invalid_function_call` with code "3280",
# InvalidMessageStructureException as `invalid_request_message_order` with code "3230"
# (cases/wire-types/mistral-chat/ToolCall.yaml). The messages are the validator's, so the message names
# the check; one no check below names keeps the general type, with no code.
_MISTRAL_CHECKS: tuple[tuple[str, str, str], ...] = (
    ("Tool call id was ", "invalid_function_call", "3280"),
    ("Tool call id has to be defined in serving mode", "invalid_function_call", "3280"),
    ("Duplicate tool call id ", "invalid_request_message_order", "3230"),
    ("Unexpected tool call id ", "invalid_request_message_order", "3230"),
    ("Not the same number of function calls and responses", "invalid_request_message_order", "3230"),
    ("More tool responses than tool calls", "invalid_request_message_order", "3230"),
    ("Unexpected role ", "invalid_request_message_order", "3230"),
)

# The header Bedrock Runtime's validation errors carry (cases/wire-types/bedrock-converse/ToolUseBlock.yaml).
BEDROCK_ERROR_TYPE = "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"


def mistral_error_type(message: str) -> tuple[str, str | None]:
    """(type, code) of Mistral's error body for a validator message."""
    for prefix, kind, code in _MISTRAL_CHECKS:
        if message.startswith(prefix):
            return kind, code
    return "invalid_request_error", None


def _body(api: str, message: str) -> tuple[dict[str, Any], dict[str, list[str]]]:
    # Anthropic names some causes in `error.details.error_code` (anthropic-python 2.14.0 reads it there:
    # `extract_error_code`, `ErrorDetails`), but the tool-id errors the rules quote come without it in every
    # body reported (cases/wire-types/anthropic-messages/), so the served body has no `details` either.
    if api in ("anthropic-messages", "ollama-messages"):  # Ollama answers in Anthropic's error shape
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}, {}
    if api == "gemini":
        return {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}, {}
    if api == "gemini-interactions":
        # google-genai 3.6.1 reads {"error": {"code"?: str, "message"?: str}} (CreateInteractionClientErrorData);
        # which code string the server sends is not shown, so none is made up.
        return {"error": {"message": message}}, {}
    if api == "bedrock-converse":
        return {"message": message}, {"x-amzn-errortype": [BEDROCK_ERROR_TYPE]}
    if api == "mistral-chat":
        kind, code = mistral_error_type(message)
        return {"object": "error", "message": message, "type": kind, "param": None, "code": code}, {}
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
