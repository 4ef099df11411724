"""Arguments, names and outputs, on every API: a call keeps the arguments and the name the provider served (decoded,
reassembled from a stream, sent back), and each result carries its own call's output.

The buggy codecs are mutants of the neutral model (tests/buggy.py) wrapped around each API's
reference codec, so one family of bugs is checked on every wire at once.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from buggy import (
    ArgumentsEmptied,
    ArgumentsSwapped,
    EmptyOutputs,
    FragmentsMisjoined,
    HistoryArgumentsDropped,
    NamesEmptied,
    OutputsInJsonText,
    OutputsQuotesStripped,
    OutputsRotated,
    PlaceholderInJsonText,
    PlaceholderOutputs,
    Wrapped,
)

from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus
from conformance.engine.neutral import ToolResultPart
from conformance.engine.rules.outputs import mentions
from conformance.reference import ADAPTER as REFERENCE
from conformance.reference.gemini import GeminiCodec
from conformance.running.runner import run_scenario

# Per API: a scenario with one client call, one with two parallel calls (non-streamed), one streamed.
SCENARIOS: dict[str, tuple[str, str, str]] = {
    "openai-chat": ("one-call", "parallel-results-reversed", "streamed-parallel-calls"),
    "openai-responses": ("one-call", "parallel-results-reversed", "streamed-function-and-custom"),
    "azure-foundry": ("function-call", "parallel-function-calls", "streamed-parallel-function-calls"),
    "openresponses": ("one-call", "parallel-results-reversed", "streamed-parallel-calls"),
    "anthropic-messages": ("one-call", "parallel-different-tools", "streamed-parallel-calls"),
    "gemini": ("one-call", "ids-results-reversed", "streamed-sse-parallel-calls"),
    "bedrock-converse": ("one-call", "parallel-results-reversed", "streamed-parallel-calls"),
    "mistral-chat": ("one-call", "parallel-results-reversed", "streamed-parallel-calls"),
    "kimi-chat": ("one-call", "parallel-same-tool", "streamed-parallel-calls"),
    "ollama-chat": ("one-call", "parallel-same-tool", "streamed-parallel-calls"),
    "cohere-v2": ("one-call", "parallel-results-reversed", "streamed-parallel-calls"),
}


def _mutant(kind: type[Wrapped], api: str) -> Wrapped:
    return kind(REFERENCE.codec(api))


def _family() -> list[tuple[str, Any, str]]:
    cases: list[tuple[str, Any, str]] = []
    for api, (one, parallel, streamed) in SCENARIOS.items():
        cases += [
            ("pairing/output-lost", _mutant(PlaceholderOutputs, api), f"{api}/{one}"),
            ("pairing/output-lost", _mutant(EmptyOutputs, api), f"{api}/{one}"),
            ("pairing/output-reformatted", _mutant(OutputsQuotesStripped, api), f"{api}/{one}"),
            ("pairing/by-position", _mutant(OutputsRotated, api), f"{api}/{parallel}"),
            ("decode/arguments-mismatch", _mutant(ArgumentsEmptied, api), f"{api}/{one}"),
            ("decode/arguments-mismatch", _mutant(ArgumentsSwapped, api), f"{api}/{parallel}"),
            ("roundtrip/arguments-altered", _mutant(ArgumentsEmptied, api), f"{api}/{one}"),
            ("roundtrip/arguments-altered", _mutant(HistoryArgumentsDropped, api), f"{api}/{one}"),
            ("stream/arguments-garbled", _mutant(FragmentsMisjoined, api), f"{api}/{streamed}"),
            ("roundtrip/name-altered", _mutant(NamesEmptied, api), f"{api}/{streamed}"),
        ]
    return cases


class ResponseIdNotEchoed(GeminiCodec):
    """The functionResponse goes back with `"id": ""` though Gemini issued the call an id."""

    def result_id(self, part: ToolResultPart, sent: str | None) -> str | None:
        return ""


CASES = [
    *_family(),
    # Ids present or not: results without ids pair by name and order, and still must carry their
    # own call's output.
    ("pairing/by-position", _mutant(OutputsRotated, "gemini"), "gemini/parallel-same-tool-idless"),
    ("pairing/by-position", _mutant(OutputsRotated, "ollama-chat"), "ollama-chat/id-less-parallel-same-tool"),
    ("pairing/by-position", _mutant(OutputsRotated, "anthropic-messages"), "anthropic-messages/parallel-same-tool"),
    ("roundtrip/empty-id", ResponseIdNotEchoed(), "gemini/ids-results-reversed"),
]


def _adapter(codec: Any, api: str) -> CodecAdapter:
    return CodecAdapter(name="buggy", version="0", codecs={api: codec})


@pytest.mark.parametrize(
    ("code", "codec", "scenario_id"), CASES, ids=[f"{c[0]}-{type(c[1]).__name__}-{c[2]}" for c in CASES]
)
def test_buggy_codec_trips_rule_and_reference_does_not(code: str, codec: Any, scenario_id: str, corpus: Corpus) -> None:
    scenario = corpus.scenarios[scenario_id]
    buggy = run_scenario(_adapter(codec, scenario.api), scenario, corpus)
    assert code in {v.code for v in buggy.violations}, buggy.violations
    reference = run_scenario(REFERENCE, scenario, corpus, profile="strict")
    assert reference.outcome == "pass"
    assert reference.violations == []


@pytest.mark.parametrize("api", sorted(SCENARIOS))
def test_an_output_altered_in_form_is_a_warning_not_a_lost_output(api: str, corpus: Corpus) -> None:
    scenario = corpus.scenarios[f"{api}/{SCENARIOS[api][0]}"]
    result = run_scenario(_adapter(_mutant(OutputsQuotesStripped, api), api), scenario, corpus)
    assert "pairing/output-lost" not in {v.code for v in result.violations}
    assert {v.severity for v in result.violations if v.code == "pairing/output-reformatted"} == {"warning"}
    assert result.outcome == "pass", result.summary


def test_a_placeholder_is_reported_once_per_result_not_as_another_calls_output(corpus: Corpus) -> None:
    scenario = corpus.scenarios["openai-chat/parallel-results-reversed"]
    result = run_scenario(_adapter(_mutant(PlaceholderOutputs, "openai-chat"), "openai-chat"), scenario, corpus)
    lost = [v for v in result.violations if v.code == "pairing/output-lost"]
    assert len(lost) == 2 and all(v.received == "No result provided" for v in lost)
    assert "pairing/by-position" not in {v.code for v in result.violations}


def test_swapped_outputs_name_the_call_whose_output_was_sent(corpus: Corpus) -> None:
    scenario = corpus.scenarios["gemini/parallel-same-tool-idless"]
    result = run_scenario(_adapter(_mutant(OutputsRotated, "gemini"), "gemini"), scenario, corpus)
    swapped = [v for v in result.violations if v.code == "pairing/by-position"]
    assert len(swapped) == 2
    assert {"Paris", "Tokyo"} <= {word for v in swapped for word in v.message.replace("'", " ").split()}


def test_a_stream_glued_into_one_call_says_what_the_fragments_join_into(corpus: Corpus) -> None:
    scenario = corpus.scenarios["openai-chat/streamed-parallel-calls"]
    result = run_scenario(_adapter(_mutant(FragmentsMisjoined, "openai-chat"), "openai-chat"), scenario, corpus)
    garbled = [v for v in result.violations if v.code == "stream/arguments-garbled"]
    assert {str(v.received) for v in garbled} == {"{}", '{"city": "Paris"}{"timezone": "Europe/Paris"}'}


def test_an_empty_output_is_not_in_every_text() -> None:
    assert not mentions("21 degrees", "")
    assert mentions("", "")
    assert mentions([{"type": "text", "text": ""}], "")
    # A result wrapped with its tool's name (the AI SDK's Gemini functionResponse) carries an empty output.
    assert mentions({"name": "get_weather", "content": ""}, "")
    assert not mentions({"name": "get_weather", "content": "No result provided"}, "")
    # A client that encodes every output as JSON sends the empty text as the JSON text '""'.
    assert mentions('""', "")
    assert mentions([{"type": "text", "text": '""'}], "")
    assert not mentions('"No result provided"', "")


def test_outputs_are_found_whatever_the_wire_wraps_them_in() -> None:
    output = '{"city":"Paris","temp_c":21}'
    assert mentions('{"city": "Paris", "temp_c": 21}', output)  # re-spaced JSON text
    assert mentions({"city": "Paris", "temp_c": 21}, output)  # Gemini's response object
    assert mentions([{"type": "text", "text": output}], output)  # Anthropic's blocks
    assert mentions([{"json": {"temp_c": 21, "city": "Paris"}}], output)  # Bedrock's json block
    assert mentions({"output": "21 °C"}, "21 °C")
    assert not mentions({"city": "Paris", "temp_c": 22}, output)


def _client(answer: Any) -> Any:
    """The openai SDK's Chat Completions loop, with the tools answered by `answer(loop, name, arguments)`."""
    from conformance.clients.openai_sdk import chat_tool_loop

    def client(loop: Any) -> str:
        real = loop.call_tool
        loop.call_tool = lambda name, arguments: answer(real, name, arguments)
        return chat_tool_loop(loop)

    return client


@pytest.mark.parametrize(
    ("answer", "lost"),
    [
        (lambda real, name, arguments: real(name, arguments), False),  # the tool's own output
        (lambda real, name, arguments: (real(name, arguments), "No result provided")[1], True),  # ran, then dropped
        (lambda real, name, arguments: f"Error: {name} is not a tool here", False),  # never ran: nothing to lose
    ],
    ids=["output-sent", "ran-output-replaced", "never-ran"],
)
def test_a_client_owes_a_tools_output_only_when_the_tool_ran(answer: Any, lost: bool, corpus: Corpus) -> None:
    from conformance.connectors.client import ClientAdapter

    adapter = ClientAdapter(name="client", version="0", clients={"openai-chat": _client(answer)})
    result = run_scenario(adapter, corpus.scenarios["openai-chat/parallel-results-reversed"], corpus)
    codes = [v.code for v in result.violations]
    assert (codes.count("pairing/output-lost") == 2) is lost, result.violations
    assert result.outcome == ("fail" if lost else "pass"), result.summary


def test_an_object_output_sent_in_another_shape_is_carried() -> None:
    url = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ"
    screenshot = json.dumps({"type": "computer_screenshot", "image_url": url})
    assert mentions({"type": "input_image", "image_url": url}, screenshot)
    assert not mentions({"type": "input_image", "image_url": url[:-4]}, screenshot)
    # Short or numeric values are held to the JSON value: "C" is in too many texts.
    assert not mentions("21 C", json.dumps({"unit": "C", "city": "Paris"}))
    sunny = "a sunny afternoon in Paris"
    assert not mentions({"temperature": 22, "detail": sunny}, json.dumps({"temperature": 21, "detail": sunny}))


def test_asking_for_a_tool_the_client_does_not_have_runs_nothing(corpus: Corpus) -> None:
    from dataclasses import replace

    from conformance.replay.verdicts import scenario_context

    scenario = corpus.scenarios["anthropic-messages/web-search-beside-client-call"]
    ctx = scenario_context(corpus, scenario, "default")
    server = next(c for c in scenario.all_calls() if c.provider_executed)
    client = next(c for c in scenario.all_calls() if not c.provider_executed)
    asked = replace(ctx, tools_ran=((server.name, dict(server.arguments)), (client.name, {})))
    assert not asked.tool_ran(server)  # a server tool's name: no client tool of it ran
    assert asked.tool_ran(client)  # ran, with other arguments: still owes its output
    assert ctx.tool_ran(server)  # codec runs: every output is known


@pytest.mark.parametrize("api", sorted(SCENARIOS))
def test_an_output_inside_a_json_text_of_the_clients_own_is_carried(api: str, corpus: Corpus) -> None:
    """`json.dumps({"result": output})` escapes the output's quotes: it is read, not compared whole."""
    scenario = corpus.scenarios[f"{api}/{SCENARIOS[api][1]}"]
    wrapped = run_scenario(_adapter(_mutant(OutputsInJsonText, api), api), scenario, corpus)
    assert wrapped.violations == [], wrapped.violations
    lost = run_scenario(_adapter(_mutant(PlaceholderInJsonText, api), api), scenario, corpus)
    assert "pairing/output-lost" in {v.code for v in lost.violations}, lost.violations


def test_outputs_are_found_inside_json_texts_however_deep() -> None:
    output = '{"city":"Paris","temp_c":21}'
    assert mentions(json.dumps({"result": output}), output)
    assert mentions(json.dumps({"result": json.dumps(output)}), output)  # encoded twice
    assert mentions(json.dumps({"result": 'line one\n"quoted"'}), 'line one\n"quoted"')
    assert mentions([{"type": "text", "text": json.dumps({"result": "Sunny, 21 °C"})}], "Sunny, 21 °C")
    assert not mentions(json.dumps({"result": '{"city":"Paris","temp_c":22}'}), output)
    assert not mentions(json.dumps({"result": "No result provided"}), "Sunny")
