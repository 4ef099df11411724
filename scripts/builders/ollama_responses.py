"""Ollama's OpenAI-compatible Responses endpoint (openai/responses.go, middleware/openai.go at
fb30760): response ids `resp_<0..999998>`, function_call item ids `fc_<response id>_<index>` in a
whole response and `fc_<0..999998>_<index>` in a stream, call ids `call_` and eight characters."""

from __future__ import annotations

from typing import Any

from builders import responses_common
from builders.responses_common import Flavor, digest
from conformance.corpus.loading import Scenario

API = "ollama-responses"


def _response_id(scenario: Scenario, index: int) -> str:
    """The turn's response id: the one its first call's item id names (`fc_resp_N_0`), else one
    minted the way Ollama mints them."""
    turn = scenario.turns[index] if index < len(scenario.turns) else None
    for call in turn.calls if turn else ():
        if call.item_id and call.item_id.startswith("fc_resp_"):
            return call.item_id[len("fc_") :].rsplit("_", 1)[0]
    return f"resp_{int.from_bytes(digest(scenario.id, index, 'response')[:4], 'big') % 999999}"


FLAVOR = Flavor(
    api=API,
    uri="http://localhost:11434/v1/responses",
    types={"function_call": f"{API}/FunctionCall"},
    model_version=lambda model: model,
    response_ids=_response_id,
)


def build(scenario: Scenario) -> list[dict[str, Any]]:
    return responses_common.build(FLAVOR, scenario)
