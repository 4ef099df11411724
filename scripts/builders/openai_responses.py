"""OpenAI Responses responses and requests, in the shapes of the API reference and openai-python."""

from __future__ import annotations

from typing import Any

from builders import responses_common
from builders.responses_common import OPENAI_TYPES, Flavor
from conformance.corpus import Scenario

API = "openai-responses"

FLAVOR = Flavor(
    api=API,
    uri="https://api.openai.com/v1/responses",
    types={item_type: f"{API}/{name}" for item_type, name in OPENAI_TYPES.items()},
    model_version=lambda model: {"gpt-5.1": "gpt-5.1-2025-11-13", "gpt-4.1": "gpt-4.1-2025-04-14"}.get(model, model),
)


def build(scenario: Scenario) -> list[dict[str, Any]]:
    return responses_common.build(FLAVOR, scenario)
