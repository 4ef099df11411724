"""OpenAI Responses responses and requests, in the shapes of the API reference and openai-python."""

from __future__ import annotations

import dataclasses
from typing import Any

from builders import responses_common
from builders.responses_common import OPENAI_TYPES, Flavor
from conformance.corpus.loading import Scenario

API = "openai-responses"

FLAVOR = Flavor(
    api=API,
    uri="https://api.openai.com/v1/responses",
    types={item_type: f"{API}/{name}" for item_type, name in OPENAI_TYPES.items()},
    model_version=lambda model: {"gpt-5.1": "gpt-5.1-2025-11-13", "gpt-4.1": "gpt-4.1-2025-04-14"}.get(model, model),
)


# Scenarios served by an OpenAI-compatible gateway rather than api.openai.com, by scenario id.
GATEWAYS = {"openai-responses/gateway-nameless-call": "https://llm-gateway.example.com/v1/responses"}


def build(scenario: Scenario) -> list[dict[str, Any]]:
    flavor = dataclasses.replace(FLAVOR, uri=GATEWAYS[scenario.id]) if scenario.id in GATEWAYS else FLAVOR
    return responses_common.build(flavor, scenario)
