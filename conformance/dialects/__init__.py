"""Wire dialects, one module per API, looked up by API name or by recorded request.

Modules are imported on first use: a run over one API loads one dialect.
"""

from __future__ import annotations

import importlib

from conformance.cassette import HttpRequest
from conformance.dialects.base import Dialect, DialectError

# API -> "module:class". Order matters for `detect`: more specific hosts first.
_REGISTRY: dict[str, str] = {
    "mistral-chat": "conformance.dialects.mistral_chat:MistralChat",
    "kimi-chat": "conformance.dialects.kimi_chat:KimiChat",
    "ollama-chat": "conformance.dialects.ollama_chat:OllamaChat",
    "cohere-v2": "conformance.dialects.cohere_v2:CohereV2",
    "azure-foundry": "conformance.dialects.azure_foundry:AzureFoundry",
    "openresponses": "conformance.dialects.openresponses:OpenResponses",
    "openai-responses": "conformance.dialects.openai_responses:OpenAIResponses",
    "openai-chat": "conformance.dialects.openai_chat:OpenAIChat",
    "anthropic-messages": "conformance.dialects.anthropic_messages:AnthropicMessages",
    "gemini": "conformance.dialects.gemini:Gemini",
    "bedrock-converse": "conformance.dialects.bedrock_converse:BedrockConverse",
}
_LOADED: dict[str, Dialect] = {}

__all__ = ["Dialect", "DialectError", "detect", "dialect_for", "supported_apis"]


def _load(api: str) -> Dialect:
    if api not in _LOADED:
        module_name, _, attribute = _REGISTRY[api].partition(":")
        _LOADED[api] = getattr(importlib.import_module(module_name), attribute)()
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
