"""The reference adapter: codecs that translate every API correctly, sharing one neutral model.

Codecs are imported on first use, so a run over one API loads one codec.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from conformance.connectors.contract import Codec, CodecAdapter

_REGISTRY: dict[str, str] = {
    "openai-chat": "conformance.reference.openai_chat:OpenAIChatCodec",
    "openai-responses": "conformance.reference.openai_responses:OpenAIResponsesCodec",
    "azure-foundry": "conformance.reference.azure_foundry:AzureFoundryCodec",
    "openresponses": "conformance.reference.openresponses:OpenResponsesCodec",
    "mistral-responses": "conformance.reference.mistral_responses:MistralResponsesCodec",
    "ollama-responses": "conformance.reference.ollama_responses:OllamaResponsesCodec",
    "ollama-messages": "conformance.reference.ollama_messages:OllamaMessagesCodec",
    "anthropic-messages": "conformance.reference.anthropic_messages:AnthropicMessagesCodec",
    "gemini": "conformance.reference.gemini:GeminiCodec",
    "gemini-interactions": "conformance.reference.gemini_interactions:GeminiInteractionsCodec",
    "bedrock-converse": "conformance.reference.bedrock_converse:BedrockConverseCodec",
    "mistral-chat": "conformance.reference.mistral_chat:MistralChatCodec",
    "kimi-chat": "conformance.reference.kimi_chat:KimiChatCodec",
    "ollama-chat": "conformance.reference.ollama_chat:OllamaChatCodec",
    "cohere-v2": "conformance.reference.cohere_v2:CohereV2Codec",
}


class _LazyCodecs(Mapping[str, Codec]):
    def __init__(self, registry: Mapping[str, str]) -> None:
        self._registry = registry
        self._loaded: dict[str, Codec] = {}

    def __getitem__(self, api: str) -> Codec:
        if api not in self._loaded:
            module_name, _, attribute = self._registry[api].partition(":")  # KeyError: no codec
            self._loaded[api] = getattr(importlib.import_module(module_name), attribute)()
        return self._loaded[api]

    def __iter__(self) -> Iterator[str]:
        return iter(self._registry)

    def __len__(self) -> int:
        return len(self._registry)


ADAPTER = CodecAdapter(
    name="reference",
    version="0.1.0",
    codecs=_LazyCodecs(_REGISTRY),
    notes="Bundled with the suite; passes every scenario.",
)

__all__ = ["ADAPTER"]
