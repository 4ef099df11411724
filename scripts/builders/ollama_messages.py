"""Ollama's Anthropic-compatible Messages endpoint: the Anthropic builder's bodies (Ollama serves the
same blocks and events: anthropic/anthropic.go at fb30760), sent to an Ollama server."""

from __future__ import annotations

from typing import Any

from builders import anthropic_messages
from conformance.corpus.loading import Scenario

URI = "http://localhost:11434/v1/messages"


def build(scenario: Scenario) -> list[dict[str, Any]]:
    interactions = anthropic_messages.build(scenario)
    for entry in interactions:
        request = entry["request"]
        request["uri"] = URI
        request["headers"]["host"] = [URI.split("/")[2]]
    return interactions
