"""vcrpy settings for replaying and recording provider traffic, with secrets scrubbed.

Recording writes whatever the client sent, so every credential a provider SDK may send is
removed before an interaction reaches the cassette: request headers (OpenAI and Mistral
`Authorization`, Anthropic `x-api-key`, Gemini `x-goog-api-key`, Azure `api-key`, cookies, AWS
SigV4 headers), key query parameters (Gemini `?key=`), and response cookies. The scrubbing
cannot be turned off by a user's `vcr_config`; it is merged under it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

SCRUBBED = "<scrubbed>"

SECRET_HEADERS = (
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "x-goog-api-key",
    "api-key",
    "cookie",
    "x-amz-security-token",
    "x-amz-date",
    "openai-organization",
    "openai-project",
)
SECRET_QUERY_PARAMETERS = ("key", "api_key", "api-key", "apikey", "access_token", "token", "sig")
SECRET_RESPONSE_HEADERS = ("set-cookie", "openai-organization", "anthropic-organization-id")

RECORD_MODES = ("none", "once", "new_episodes", "all")


def _scrub_response(response: dict[str, Any]) -> dict[str, Any]:
    headers = response.get("headers") or {}
    for name in list(headers):
        if name.lower() in SECRET_RESPONSE_HEADERS:
            headers[name] = [SCRUBBED]
    return response


def vcr_settings(
    record_mode: str,
    user_config: Mapping[str, Any],
    *,
    before: Callable[[Any], Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """Keyword arguments for `vcr.VCR(...)` and for `use_cassette(...)`.

    `user_config` is a pytest-recording `vcr_config`: its filters are added to the suite's, its
    hooks run after the suite's scrubbing, and it cannot change how interactions are matched.
    """
    if record_mode not in RECORD_MODES:
        raise ValueError(f"record mode {record_mode!r}: use one of {', '.join(RECORD_MODES)}")
    user = dict(user_config)
    headers = [(h, SCRUBBED) for h in SECRET_HEADERS]
    headers += [h if isinstance(h, tuple) else (h, SCRUBBED) for h in user.pop("filter_headers", ())]
    query = [(q, SCRUBBED) for q in SECRET_QUERY_PARAMETERS]
    query += [q if isinstance(q, tuple) else (q, SCRUBBED) for q in user.pop("filter_query_parameters", ())]
    user_request_hook = user.pop("before_record_request", None)
    user_response_hook = user.pop("before_record_response", None)
    for ignored in ("match_on", "record_mode", "allow_playback_repeats"):
        user.pop(ignored, None)

    def request_hook(request: Any) -> Any:
        if before is not None:
            request = before(request)
        if user_request_hook is not None and request is not None:
            request = user_request_hook(request)
        return request

    def response_hook(response: dict[str, Any]) -> dict[str, Any]:
        response = _scrub_response(response)
        return user_response_hook(response) if user_response_hook is not None else response

    return {
        "vcr": {
            **user,
            "record_mode": record_mode,
            # In order, by method and path: the host differs when a client is pointed at a proxy.
            "match_on": ("method", "path"),
            "filter_headers": headers,
            "filter_query_parameters": query,
            "decode_compressed_response": True,
        },
        "cassette": {
            "before_record_request": request_hook,
            "before_record_response": response_hook,
            "allow_playback_repeats": False,
        },
    }
