"""Transports, one per wire family, looked up by API name: how each API travels over HTTP.

See `conformance.replay.transports.base` for the contract. Modules load on first use.
"""

from __future__ import annotations

from collections.abc import Callable

from conformance.replay.transports.base import Transport


def _chat(
    api: str, owner: str, *hosts: str, whole_calls: bool = False, usage_apart: bool = False
) -> Callable[[], Transport]:
    def make() -> Transport:
        from conformance.replay.transports.chat_completions import ChatCompletions

        return ChatCompletions(api, owner, hosts, whole_calls=whole_calls, usage_apart=usage_apart)

    return make


def _responses(api: str, *hosts: str) -> Callable[[], Transport]:
    def make() -> Transport:
        from conformance.replay.transports.responses import Responses

        return Responses(api, hosts)

    return make


def _anthropic() -> Transport:
    from conformance.replay.transports.anthropic import Anthropic

    return Anthropic()


def _gemini() -> Transport:
    from conformance.replay.transports.gemini import Gemini

    return Gemini()


def _gemini_interactions() -> Transport:
    from conformance.replay.transports.gemini_interactions import GeminiInteractions

    return GeminiInteractions()


def _bedrock() -> Transport:
    from conformance.replay.transports.bedrock import Bedrock

    return Bedrock()


def _ollama() -> Transport:
    from conformance.replay.transports.ollama import Ollama

    return Ollama()


def _ollama_messages() -> Transport:
    from conformance.replay.transports.ollama_messages import OllamaMessages

    return OllamaMessages()


def _cohere() -> Transport:
    from conformance.replay.transports.cohere import Cohere

    return Cohere()


_REGISTRY: dict[str, Callable[[], Transport]] = {
    # The hosts where the provider itself serves the API: only recordings made there are answered with
    # the provider's own error texts (a compatible server may accept what the provider rejects).
    "openai-chat": _chat("openai-chat", "openai", "api.openai.com", usage_apart=True),
    "mistral-chat": _chat("mistral-chat", "mistralai", "api.mistral.ai", whole_calls=True),
    "kimi-chat": _chat("kimi-chat", "moonshot", "api.moonshot.ai", "api.moonshot.cn"),
    "openai-responses": _responses("openai-responses", "api.openai.com"),
    "azure-foundry": _responses(
        "azure-foundry", ".services.ai.azure.com", ".openai.azure.com", ".cognitiveservices.azure.com"
    ),
    "openresponses": _responses("openresponses"),
    "mistral-responses": _responses("mistral-responses", "api.mistral.ai"),
    "ollama-responses": _responses("ollama-responses", "ollama.com"),
    "anthropic-messages": _anthropic,
    "ollama-messages": _ollama_messages,
    "gemini": _gemini,
    "gemini-interactions": _gemini_interactions,
    "bedrock-converse": _bedrock,
    "ollama-chat": _ollama,
    "cohere-v2": _cohere,
}
_LOADED: dict[str, Transport] = {}


def transport_for(api: str) -> Transport:
    if api not in _REGISTRY:
        raise KeyError(f"no transport for API {api!r}; known: {', '.join(sorted(_REGISTRY))}")
    if api not in _LOADED:
        _LOADED[api] = _REGISTRY[api]()
    return _LOADED[api]


def supported_apis() -> tuple[str, ...]:
    return tuple(sorted(_REGISTRY))
