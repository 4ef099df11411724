"""Mistral Responses: the constructed cassettes in the shapes of the mistralai SDK's models, and the
fields a call must take back (item id, caller, namespace)."""

from __future__ import annotations

from typing import Any

import pytest
from buggy import Wrapped, client_calls
from test_fidelity_openai_responses import bodies, scenarios_of

from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus, Scenario
from conformance.engine.neutral import Conversation
from conformance.recordings.cassette import load_cassette
from conformance.reference.mistral_responses import MistralResponsesCodec
from conformance.running.runner import run_scenario

SCENARIOS = scenarios_of("mistral-responses")


def _items(scenario: Scenario, corpus: Corpus) -> list[dict[str, Any]]:
    """Every function item served (whole responses and output_item.done events) and sent."""
    found: list[dict[str, Any]] = []
    for stream, body in bodies(scenario):
        if stream:
            if body.get("type") == "response.output_item.done":
                found.append(body["item"])
        else:
            found.extend(body["output"])
    for interaction in load_cassette(corpus.cassette_path(scenario)):
        found.extend(i for i in interaction.request.json()["input"] if isinstance(i, dict))
    return [i for i in found if i.get("type") in ("function_call", "function_call_output")]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_function_items_validate_against_mistralai(scenario: Scenario, corpus: Corpus) -> None:
    from mistralai.client.models import ResponsesFunctionCallOutput, ResponsesFunctionToolCall

    items = _items(scenario, corpus)
    assert items
    for item in items:
        model = ResponsesFunctionToolCall if item["type"] == "function_call" else ResponsesFunctionCallOutput
        model.model_validate(item)


def test_the_api_has_five_scenarios_at_least(corpus: Corpus) -> None:
    assert len(SCENARIOS) >= 5


class OpaqueDropped(Wrapped):
    """Sends calls back without the fields they came with (a gateway that keeps only the OpenAI ones)."""

    def given(self, conversation: Conversation) -> Conversation:
        for message in conversation["messages"]:
            for part in client_calls(message):
                item = (part.get("extra") or {}).get("item")
                if isinstance(item, dict):
                    item.pop("namespace", None)
                    item.pop("caller", None)
        return conversation


def _run(codec: Any, scenario: str, corpus: Corpus) -> Any:
    adapter = CodecAdapter(name="buggy", version="0", codecs={"mistral-responses": codec})
    return run_scenario(adapter, corpus.scenarios[scenario], corpus)


def test_the_reference_passes_every_scenario(corpus: Corpus) -> None:
    for scenario in SCENARIOS:
        result = _run(MistralResponsesCodec(), scenario.id, corpus)
        assert result.outcome == "pass", (scenario.id, result.summary)


def test_dropping_namespace_and_caller_fails(corpus: Corpus) -> None:
    result = _run(OpaqueDropped(MistralResponsesCodec()), "mistral-responses/namespace-and-caller", corpus)
    assert result.outcome == "fail"
    found = {(v.code, v.location.rsplit(".", 1)[-1]) for v in result.violations}
    assert found == {("roundtrip/opaque-dropped", "caller"), ("roundtrip/opaque-dropped", "namespace")}
