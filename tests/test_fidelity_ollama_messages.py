"""The ollama-messages cassettes against the anthropic SDK's models (Ollama serves Anthropic's
blocks and events), and Ollama's one check on ids: a tool_use block must have one."""

from __future__ import annotations

from typing import Any

import pytest
from test_fidelity_anthropic_messages import _validate_request, _validate_response

from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus, Scenario, load_corpus
from conformance.engine.neutral import ToolCallPart, ToolResultPart
from conformance.recordings.cassette import load_cassette
from conformance.reference.ollama_messages import OllamaMessagesCodec
from conformance.running.runner import run_scenario

API = "ollama-messages"
_corpus = load_corpus()
SCENARIOS = sorted((s for s in _corpus.scenarios.values() if s.api == API and not s.recorded), key=lambda s: s.id)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_cassette_validates_against_the_anthropic_sdk(scenario: Scenario) -> None:
    for interaction in load_cassette(_corpus.cassette_path(scenario)):
        assert interaction.request.uri.startswith("http://localhost:11434/v1/messages")
        _validate_response(interaction)
        _validate_request(interaction)


class EmptyIds(OllamaMessagesCodec):
    def call_id(self, part: ToolCallPart) -> str | None:
        return ""

    def result_id(self, part: ToolResultPart) -> str | None:
        return ""


def _run(codec: Any, scenario: str, corpus: Corpus) -> Any:
    adapter = CodecAdapter(name="buggy", version="0", codecs={API: codec})
    return run_scenario(adapter, corpus.scenarios[scenario], corpus)


def test_the_reference_passes_every_scenario(corpus: Corpus) -> None:
    assert len(SCENARIOS) >= 5
    for scenario in SCENARIOS:
        result = _run(OllamaMessagesCodec(), scenario.id, corpus)
        assert result.outcome == "pass", (scenario.id, result.summary)


def test_an_empty_tool_use_id_quotes_ollamas_error(corpus: Corpus) -> None:
    result = _run(EmptyIds(), "ollama-messages/one-call", corpus)
    assert result.outcome == "fail"
    empty = [v for v in result.violations if v.code == "roundtrip/empty-id"]
    assert empty and any(v.provider_error == "tool_use block missing required 'id' field" for v in empty)
