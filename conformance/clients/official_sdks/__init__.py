"""Each provider's official Python SDK, run the way its own documentation runs a tool loop, on every API.

| API | SDK | how |
|---|---|---|
| `openai-chat`, `kimi-chat` | `openai` | `chat.completions.create` / `.stream` |
| `openai-responses`, `azure-foundry`, `openresponses` | `openai` | `responses.create` / `.stream`, resending |
|  |  | the items or after `previous_response_id` |
| `mistral-responses`, `ollama-responses` | `openai` | the same, pointed at Mistral's or Ollama's `/v1` |
| `anthropic-messages` | `anthropic` | `messages.create` / `.stream`, or the beta tool runner over a message thread |
| `ollama-messages` | `anthropic` | the same, pointed at an Ollama server |
| `gemini` | `google-genai` | `models.generate_content` / `_stream`, automatic function calling off |
| `gemini-interactions` | `google-genai` | `interactions.create`, resending the steps or after |
|  |  | `previous_interaction_id` |
| `bedrock-converse` | `boto3` (or `botocore`) | `converse` / `converse_stream` |
| `mistral-chat` | `mistralai` | `chat.complete` / `chat.stream` |
| `cohere-v2` | `cohere` | `ClientV2.chat` / `chat_stream` |
| `ollama-chat` | `ollama` | `Client.chat`, streamed or not |

`ADAPTER` is the plain documented loop of each SDK; `official_sdks(Options(...))` builds the same
adapter talking another way (forced streaming on or off, Responses `previous_response_id`, the
Anthropic tool runner, another google-genai API version, the model lookups and `show` requests
applications make). Retries are off everywhere. Install the SDKs with the `sdk` extra.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from conformance.clients.official_sdks.common import Options
from conformance.connectors.client import ClientAdapter, ToolLoop

__all__ = ["ADAPTER", "PACKAGES", "Options", "official_sdks", "sdk_versions"]

# The distributions whose versions name the adapter's version, in the order of the table above.
PACKAGES = ("openai", "anthropic", "google-genai", "boto3", "botocore", "mistralai", "cohere", "ollama")


def sdk_versions() -> str:
    found = []
    for package in PACKAGES:
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            if package != "boto3":  # optional: botocore alone runs Bedrock
                found.append(f"{package} not installed")
    return ", ".join(found)


def _clients() -> dict[str, Callable[[ToolLoop, Options], Any]]:
    from conformance.clients.official_sdks import (
        anthropic_sdk,
        bedrock_sdk,
        cohere_sdk,
        gemini_interactions_sdk,
        gemini_sdk,
        mistral_sdk,
        ollama_sdk,
        openai_family,
    )

    return {
        **openai_family.CLIENTS,
        "anthropic-messages": anthropic_sdk.anthropic_messages,
        "ollama-messages": anthropic_sdk.anthropic_messages,  # Ollama serves Anthropic's wire
        "gemini": gemini_sdk.gemini,
        "gemini-interactions": gemini_interactions_sdk.gemini_interactions,
        "bedrock-converse": bedrock_sdk.bedrock_converse,
        "mistral-chat": mistral_sdk.mistral_chat,
        "cohere-v2": cohere_sdk.cohere_v2,
        "ollama-chat": ollama_sdk.ollama_chat,
    }


def _bound(fn: Callable[[ToolLoop, Options], Any], options: Options) -> Callable[[ToolLoop], Any]:
    def run(loop: ToolLoop) -> Any:
        return fn(loop, options)

    return run


def official_sdks(options: Options | None = None) -> ClientAdapter:
    """The adapter, talking the way `options` say (the documented plain loops by default)."""
    chosen = options or Options()
    label = chosen.label()
    return ClientAdapter(
        name=f"official-sdks[{label}]" if label else "official-sdks",
        version=sdk_versions(),
        clients={api: _bound(fn, chosen) for api, fn in _clients().items()},
        continues=frozenset({"history", "sessions"}),
        homepage="https://github.com/toolcall-conformance/toolcall-conformance/blob/main/docs/adapters.md",
    )


ADAPTER = official_sdks()
