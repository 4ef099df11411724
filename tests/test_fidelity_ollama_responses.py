"""The ollama-responses cassettes against openai-python (Ollama's endpoint speaks OpenAI's Responses
shapes and publishes no SDK of its own), and the item ids Ollama repeats across responses."""

from __future__ import annotations

from typing import Any

import pytest
from buggy import Wrapped, client_calls
from test_fidelity_openai_responses import scenarios_of, validate_with_openai_python

from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus, Scenario
from conformance.engine.neutral import Conversation
from conformance.reference.ollama_responses import OllamaResponsesCodec
from conformance.running.runner import run_scenario

SCENARIOS = scenarios_of("ollama-responses")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_bodies_validate_against_openai_python(scenario: Scenario) -> None:
    validate_with_openai_python(scenario)


class KeyedByItemId(Wrapped):
    """Keeps one call per item id, as a client that indexes calls by `id` does: a later call under an
    item id already seen replaces nothing and is dropped, with its output."""

    def given(self, conversation: Conversation) -> Conversation:
        seen: set[str] = set()
        dropped: set[str] = set()
        for message in conversation["messages"]:
            for part in client_calls(message):
                item_id = str((part.get("extra") or {}).get("item_id", ""))
                if item_id and item_id in seen:
                    dropped.add(str(part["call_id"]))
                seen.add(item_id)
            message["parts"] = [p for p in message["parts"] if str(p.get("call_id")) not in dropped]
        conversation["messages"] = [m for m in conversation["messages"] if m["parts"]]
        return conversation


def _run(codec: Any, scenario: str, corpus: Corpus) -> Any:
    adapter = CodecAdapter(name="buggy", version="0", codecs={"ollama-responses": codec})
    return run_scenario(adapter, corpus.scenarios[scenario], corpus)


def test_the_reference_passes_every_scenario(corpus: Corpus) -> None:
    assert len(SCENARIOS) >= 5
    for scenario in SCENARIOS:
        result = _run(OllamaResponsesCodec(), scenario.id, corpus)
        assert result.outcome == "pass", (scenario.id, result.summary)


def test_keying_calls_by_item_id_loses_the_second_call(corpus: Corpus) -> None:
    scenario = "ollama-responses/item-ids-repeat-across-responses"
    result = _run(KeyedByItemId(OllamaResponsesCodec()), scenario, corpus)
    assert result.outcome == "fail"
    assert "roundtrip/call-lost" in {v.code for v in result.violations}, [v.code for v in result.violations]
    # Where item ids never repeat, the same client passes.
    assert _run(KeyedByItemId(OllamaResponsesCodec()), "ollama-responses/three-turn-chain", corpus).outcome == "pass"
