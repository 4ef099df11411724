"""Ollama's Anthropic-compatible Messages endpoint: Anthropic's paths, bodies and streams, served by
an Ollama server. Only ollama.com counts as the provider's own host for its error texts."""

from __future__ import annotations

from conformance.replay.transports.anthropic import Anthropic


class OllamaMessages(Anthropic):
    api = "ollama-messages"
    provider_hosts: tuple[str, ...] = ("ollama.com",)
