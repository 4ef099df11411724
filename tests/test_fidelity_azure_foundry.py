"""The azure-foundry cassettes against azure-ai-agentserver-responses: response bodies and stream
events against its generated types (pydantic validates the TypedDicts), and recorded requests
against its request validator, which is also what shows Foundry's tool items are not request input.
"""

from __future__ import annotations

import typing
from functools import cache
from typing import Any

import pytest
from test_fidelity_openai_responses import bodies, by_type, scenarios_of

from conformance.corpus.loading import Scenario, load_corpus
from conformance.recordings.cassette import load_cassette

SCENARIOS = scenarios_of("azure-foundry")
# azure-ai-agentserver-responses 2.3.0 has no model for these preview items (see their wire-type case).
NO_AZURE_MODEL = ("memory_command_preview_call", "memory_command_preview_call_output")
_corpus = load_corpus()


def _azure() -> Any:
    return pytest.importorskip(
        "azure.ai.agentserver.responses.models", reason="the Foundry fidelity tests need azure-ai-agentserver-responses"
    )


@cache
def _azure_adapters() -> tuple[Any, dict[str, Any]]:
    from pydantic import TypeAdapter

    models = _azure()
    events = by_type(typing.get_args(models.ResponseStreamEvent), lambda m: typing.get_type_hints(m).get("type"))
    return TypeAdapter(models.ResponseObject), {k: TypeAdapter(v) for k, v in events.items()}


def _modelled(data: Any) -> Any:
    """The body without the items the library has no model for."""
    if isinstance(data, dict) and isinstance(data.get("output"), list):
        return {**data, "output": [i for i in data["output"] if i.get("type") not in NO_AZURE_MODEL]}
    return data


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_bodies_validate_against_the_agent_server_types(scenario: Scenario) -> None:
    response, events = _azure_adapters()
    for is_event, data in bodies(scenario):
        if not is_event:
            response.validate_python(_modelled(data))
        elif (data.get("item") or {}).get("type") not in NO_AZURE_MODEL:
            events[data["type"]].validate_python(
                {**data, "response": _modelled(data["response"])} if "response" in data else data
            )


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_requests_pass_the_agent_server_request_validator(scenario: Scenario) -> None:
    _azure()
    from azure.ai.agentserver.responses.models._validators import validate_create_response_payload

    for interaction in load_cassette(_corpus.cassette_path(scenario)):
        assert validate_create_response_payload(interaction.request.json()) == []


def test_foundry_tool_items_are_not_request_input() -> None:
    """What the cases' request_input: false rests on: the validator rejects the items as input."""
    _azure()
    from azure.ai.agentserver.responses.models._validators import validate_create_response_payload

    item = {"type": "bing_grounding_call", "id": "bg_1", "call_id": "call_1", "arguments": "{}", "status": "completed"}
    errors = validate_create_response_payload({"model": "gpt-4.1", "input": [item]})
    assert any("bing_grounding_call" in e["message"] for e in errors)


def test_a_prefix_the_corpus_calls_type_specific_is_minted_for_one_item_type_only() -> None:
    """The agent-server library's IdGenerator mints each item type's ids; a wire-type case that says
    the library gives its type a prefix of its own must name a prefix no other of its minters uses
    (StructuredOutputsOutputItem's fco_ is also function_call_output's)."""
    generator = pytest.importorskip(
        "azure.ai.agentserver.responses._id_generator", reason="needs azure-ai-agentserver-responses"
    ).IdGenerator
    minters: dict[str, set[str]] = {}
    for name in dir(generator):
        if name.startswith("new_") and name.endswith("_item_id") and name != "new_item_id":
            minters.setdefault(getattr(generator, name)().split("_", 1)[0] + "_", set()).add(name)
    claimed = [
        w
        for w in _corpus.wire_types.values()
        if w.api == "azure-foundry" and "type-specific prefix" in " ".join(w.path.read_text(encoding="utf-8").split())
    ]
    assert claimed
    for wire_type in claimed:
        for prefix in (p for f in wire_type.id_fields if f.field == "id" for p in f.prefixes):
            assert len(minters.get(prefix, ())) <= 1, (wire_type.id, prefix, sorted(minters[prefix]))
