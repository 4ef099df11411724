"""OpenResponses responses and requests (the Vercel AI Gateway), in the shapes of the OpenResponses
specification (schema/items.tsp, the specification's examples)."""

from __future__ import annotations

from typing import Any

from builders import responses_common
from builders.responses_common import Flavor
from conformance.corpus.loading import Scenario

API = "openresponses"

FLAVOR = Flavor(
    api=API,
    uri="https://ai-gateway.vercel.sh/v1/responses",
    types={"function_call": f"{API}/FunctionCall"},
    model_version=lambda model: model,
)


def build(scenario: Scenario) -> list[dict[str, Any]]:
    return responses_common.build(FLAVOR, scenario)
