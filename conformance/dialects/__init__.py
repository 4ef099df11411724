"""Wire dialects, one module per API, looked up by API name or by recorded request."""

from __future__ import annotations

from conformance.cassette import HttpRequest
from conformance.dialects.base import Dialect, DialectError
from conformance.dialects.openai_chat import OpenAIChat

_DIALECTS: dict[str, Dialect] = {d.api: d for d in (OpenAIChat(),)}

__all__ = ["Dialect", "DialectError", "detect", "dialect_for", "supported_apis"]


def supported_apis() -> tuple[str, ...]:
    return tuple(sorted(_DIALECTS))


def dialect_for(api: str) -> Dialect:
    try:
        return _DIALECTS[api]
    except KeyError:
        raise KeyError(f"no dialect for API {api!r}; known: {', '.join(supported_apis())}") from None


def detect(request: HttpRequest) -> Dialect | None:
    for dialect in _DIALECTS.values():
        if dialect.handles(request):
            return dialect
    return None
