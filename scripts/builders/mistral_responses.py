"""Mistral Responses responses and requests (api.mistral.ai/v1/responses), in the shapes of the
mistralai SDK's models (ResponsesFunctionToolCall, ResponsesFunctionCallOutput, 3.4.0)."""

from __future__ import annotations

from typing import Any

from builders import responses_common
from builders.responses_common import Flavor
from conformance.corpus.loading import Scenario

API = "mistral-responses"

FLAVOR = Flavor(
    api=API,
    uri="https://api.mistral.ai/v1/responses",
    types={"function_call": f"{API}/FunctionCall"},
    model_version=lambda model: model,
)


def build(scenario: Scenario) -> list[dict[str, Any]]:
    return responses_common.build(FLAVOR, scenario)
