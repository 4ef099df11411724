"""Wire dialects, one module per API, looked up by API name or by recorded request.

Modules are imported on first use: a run over one API loads one dialect.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from conformance.engine.dialects.base import Dialect, DialectError
from conformance.engine.faults import describe
from conformance.recordings.cassette import HttpRequest

# API -> "module:class". Order matters for `detect`: more specific hosts first.
_REGISTRY: dict[str, str] = {
    "mistral-chat": "conformance.engine.dialects.mistral_chat:MistralChat",
    "kimi-chat": "conformance.engine.dialects.kimi_chat:KimiChat",
    "ollama-chat": "conformance.engine.dialects.ollama_chat:OllamaChat",
    "cohere-v2": "conformance.engine.dialects.cohere_v2:CohereV2",
    "azure-foundry": "conformance.engine.dialects.azure_foundry:AzureFoundry",
    "openresponses": "conformance.engine.dialects.openresponses:OpenResponses",
    "mistral-responses": "conformance.engine.dialects.mistral_responses:MistralResponses",
    "ollama-responses": "conformance.engine.dialects.ollama_responses:OllamaResponses",
    "openai-responses": "conformance.engine.dialects.openai_responses:OpenAIResponses",
    "openai-chat": "conformance.engine.dialects.openai_chat:OpenAIChat",
    "ollama-messages": "conformance.engine.dialects.ollama_messages:OllamaMessages",
    "anthropic-messages": "conformance.engine.dialects.anthropic_messages:AnthropicMessages",
    "gemini": "conformance.engine.dialects.gemini:Gemini",
    "gemini-interactions": "conformance.engine.dialects.gemini_interactions:GeminiInteractions",
    "bedrock-converse": "conformance.engine.dialects.bedrock_converse:BedrockConverse",
}
_LOADED: dict[str, Dialect] = {}

__all__ = ["Dialect", "DialectError", "detect", "dialect_for", "supported_apis"]


def _located(where: str, exc: Exception) -> DialectError:
    if isinstance(exc, ValueError):  # the readers' own errors (streams, bodies, JSON) say what is wrong
        return DialectError(where, describe(exc).split(": ", 1)[-1])
    return DialectError(where, f"has an unexpected shape ({describe(exc)})")


def _guarded(cls: type[Any]) -> type[Any]:
    """The dialect class, with its readers turning any failure on a malformed body into a
    DialectError located at the body (`request[2]`, `response[0]`).

    A body can be anything a recording or an adapter produced: an object where a list belongs,
    a string where an object does. The dialects check the shapes they rely on, and this catches
    the rest, so that a body no dialect foresaw is reported where it is, never a crash.
    """

    def guarded(read: Callable[[Any, Any, str], Any], default: str) -> Callable[..., Any]:
        def reader(self: Any, value: Any, where: str = default) -> Any:
            try:
                return read(self, value, where)
            except DialectError:
                raise
            except Exception as exc:
                raise _located(where, exc) from exc

        return reader

    history, served = guarded(cls.history, "request"), guarded(cls.served, "response")
    namespace = {"history": history, "served": served, "__doc__": cls.__doc__, "__module__": cls.__module__}
    return type(cls.__name__, (cls,), {**namespace, "__qualname__": cls.__qualname__})


def _load(api: str) -> Dialect:
    if api not in _LOADED:
        module_name, _, attribute = _REGISTRY[api].partition(":")
        dialect: Dialect = _guarded(getattr(importlib.import_module(module_name), attribute))()
        _LOADED[api] = dialect
    return _LOADED[api]


def supported_apis() -> tuple[str, ...]:
    return tuple(sorted(_REGISTRY))


def dialect_for(api: str) -> Dialect:
    if api not in _REGISTRY:
        raise KeyError(f"no dialect for API {api!r}; known: {', '.join(supported_apis())}")
    return _load(api)


def detect(request: HttpRequest) -> Dialect | None:
    for api in _REGISTRY:
        dialect = _load(api)
        if dialect.handles(request):
            return dialect
    return None
