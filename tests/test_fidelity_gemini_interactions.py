"""Gemini Interactions: the constructed cassettes in the shapes of google-genai 3.6.1's models (the
Interaction, each step by its type, the stream's events and deltas, the create request), and what a
client must keep: call ids, server steps with their signatures, arguments joined across deltas."""

from __future__ import annotations

from typing import Any

import pytest
from test_fidelity_openai_responses import scenarios_of

from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus, Scenario
from conformance.engine.neutral import Conversation, Message, Part, ToolCallPart
from conformance.recordings.cassette import load_cassette
from conformance.recordings.sse import parse_events
from conformance.reference.gemini_interactions import GeminiInteractionsCodec
from conformance.running.runner import run_scenario

pytest.importorskip("google.genai", reason="the fidelity tests need the official google-genai SDK")

API = "gemini-interactions"
SCENARIOS = scenarios_of(API)

_STEPS = {
    "function_call": "FunctionCallStep",
    "function_result": "FunctionResultStep",
    "user_input": "UserInputStep",
    "model_output": "ModelOutputStep",
    "thought": "ThoughtStep",
    **{
        f"{tool}_{end}": f"{stem}{end.capitalize()}Step"
        for tool, stem in (
            ("code_execution", "CodeExecution"),
            ("url_context", "URLContext"),
            ("google_search", "GoogleSearch"),
            ("google_maps", "GoogleMaps"),
            ("file_search", "FileSearch"),
            ("mcp_server_tool", "MCPServerTool"),
            ("tool_search", "ToolSearch"),
            ("retrieval", "Retrieval"),
            ("processing", "Processing"),
        )
        for end in ("call", "result")
    },
}
_EVENTS = {
    "interaction.created": "InteractionCreatedEvent",
    "interaction.completed": "InteractionCompletedEvent",
    "step.start": "StepStart",
    "step.delta": "StepDelta",
    "step.stop": "StepStop",
}
_DELTAS = {
    "arguments_delta": "ArgumentsDelta",
    "text": "TextDelta",
    "thought_signature": "ThoughtSignatureDelta",
    # a server step's own delta: GoogleSearchCallStep is filled by GoogleSearchCallDelta
    **{kind: model.replace("Step", "Delta") for kind, model in _STEPS.items() if kind.endswith(("_call", "_result"))},
}
_DELTAS.pop("function_call")  # a function call's arguments come as arguments_delta


def _model(name: str) -> Any:
    from google.genai import interactions

    return getattr(interactions, name)


def _step(step: Any) -> None:
    """A step against the model its type names: the Step union keeps unknown steps as they are."""
    assert isinstance(step, dict) and step.get("type") in _STEPS, step
    _model(_STEPS[step["type"]]).model_validate(step)


def _event(data: Any, name: str | None) -> None:
    assert isinstance(data, dict) and data.get("event_type") in _EVENTS, data
    assert name == data["event_type"]  # the SSE event name repeats the data's event_type
    _model(_EVENTS[data["event_type"]]).model_validate(data)
    _model("InteractionSSEStreamEvent").model_validate({"data": data})
    if data["event_type"] == "step.start":
        _step(data["step"])
    elif data["event_type"] == "step.delta":
        delta = data["delta"]
        assert delta.get("type") in _DELTAS, delta
        _model(_DELTAS[delta["type"]]).model_validate(delta)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_cassette_validates_against_google_genai(scenario: Scenario, corpus: Corpus) -> None:
    for interaction in load_cassette(corpus.cassette_path(scenario)):
        assert interaction.request.uri == "https://generativelanguage.googleapis.com/v1beta/interactions"
        body = interaction.request.json()
        _model("CreateModelInteraction").model_validate(body)
        for step in body["input"]:
            _step(step)
        response = interaction.response
        if response.is_event_stream:
            events = parse_events(response.body)
            assert [e.data["event_type"] for e in events][:: len(events) - 1] == [
                "interaction.created",
                "interaction.completed",
            ]
            for event in events:
                _event(event.data, event.event)
        else:
            served = response.json()
            _model("Interaction").model_validate(served)
            for step in served["steps"]:
                _step(step)


def test_the_api_has_its_scenarios_and_every_server_step_pair(corpus: Corpus) -> None:
    assert len(SCENARIOS) >= 5
    carried = {w for s in SCENARIOS for w in s.wire_types}
    assert {f"{API}/{name}" for name in _STEPS.values() if name.endswith(("CallStep", "ResultStep"))} <= carried


def _run(codec: Any, scenario: str, corpus: Corpus) -> Any:
    adapter = CodecAdapter(name="buggy", version="0", codecs={API: codec})
    return run_scenario(adapter, corpus.scenarios[scenario], corpus)


def test_the_reference_passes_every_scenario(corpus: Corpus) -> None:
    for scenario in SCENARIOS:
        result = _run(GeminiInteractionsCodec(), scenario.id, corpus)
        assert result.outcome == "pass", (scenario.id, result.summary)


class SignatureDropped(GeminiInteractionsCodec):
    """Replays server steps without their signature (a client that keeps only the fields it models)."""

    def server_step(self, part: Any) -> dict[str, Any]:
        return {k: v for k, v in super().server_step(part).items() if k != "signature"}


class ServerStepsDropped(GeminiInteractionsCodec):
    """Leaves the provider's steps out of the history, keeping only its function calls."""

    def server_step(self, part: Any) -> dict[str, Any]:
        return {}

    def encode_model(self, message: Message) -> list[dict[str, Any]]:
        return [s for s in super().encode_model(message) if s]


class ResultsByPosition(GeminiInteractionsCodec):
    """Gives each result the id of the call at its position (pairing by order, not by call_id)."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        body = super().encode(conversation)
        calls = [s["id"] for s in body["input"] if s["type"] == "function_call"]
        results = [s for s in body["input"] if s["type"] == "function_result"]
        for call_id, result in zip(calls, results, strict=False):
            result["call_id"] = call_id
        return body


class NameAsId(GeminiInteractionsCodec):
    def call_id(self, part: ToolCallPart) -> str:
        return part["name"]

    def result_id(self, part: Any) -> str | None:
        return str(part.get("name"))


class LastArgumentsPieceOnly(GeminiInteractionsCodec):
    """Reassembles a streamed call from its last arguments_delta only (a reader that overwrites)."""

    def decode(self, response: dict[str, Any]) -> Message:
        if response.get("stream"):
            events = []
            seen: set[int] = set()
            for event in reversed(response["events"]):
                data = event.get("data") or {}
                delta = data.get("delta") or {}
                if delta.get("type") == "arguments_delta":
                    if data["index"] in seen:
                        continue
                    seen.add(data["index"])
                events.append(event)
            response = {**response, "events": list(reversed(events))}
        return super().decode(response)


def _codes(result: Any) -> set[tuple[str, str]]:
    return {(v.code, v.location.rsplit(".", 1)[-1]) for v in result.violations}


def test_dropping_server_step_signatures_fails(corpus: Corpus) -> None:
    result = _run(SignatureDropped(), f"{API}/server-steps-beside-call", corpus)
    assert result.outcome == "fail"
    dropped = [v for v in result.violations if v.code == "roundtrip/opaque-dropped"]
    assert {v.location.rsplit(".", 1)[-1] for v in dropped} == {"signature"}
    assert len({v.location for v in dropped}) == 3  # google_search, url_context, code_execution; MCP has none


def test_dropping_server_steps_fails(corpus: Corpus) -> None:
    result = _run(ServerStepsDropped(), f"{API}/grounding-steps-beside-call", corpus)
    assert result.outcome == "fail", result.summary


def test_pairing_results_by_position_fails(corpus: Corpus) -> None:
    result = _run(ResultsByPosition(), f"{API}/parallel-results-reversed", corpus)
    assert result.outcome == "fail"
    assert any(code == "pairing/by-position" for code, _ in _codes(result)), _codes(result)


def test_the_name_as_call_id_fails(corpus: Corpus) -> None:
    result = _run(NameAsId(), f"{API}/one-call", corpus)
    assert result.outcome == "fail"
    assert any(code == "roundtrip/id-altered" for code, _ in _codes(result)), _codes(result)


def test_arguments_must_be_joined_across_deltas(corpus: Corpus) -> None:
    result = _run(LastArgumentsPieceOnly(), f"{API}/streamed-parallel-calls", corpus)
    assert result.outcome == "fail", result.summary


def test_a_continuation_by_previous_interaction_id_is_read_as_the_stored_history() -> None:
    from conformance.engine.dialects import dialect_for
    from conformance.replay.transports import transport_for
    from conformance.replay.transports.base import Earlier

    first = {"model": "m", "input": "What is the weather in Paris?", "tools": []}
    served = {"id": "v1_a", "status": "requires_action", "steps": [_call("k4m9x2qa")]}
    follow = {
        "model": "m",
        "previous_interaction_id": "v1_a",
        "input": [{"type": "function_result", "call_id": "k4m9x2qa", "name": "get_weather", "result": "21"}],
    }
    history = dialect_for(API).history(follow)
    assert history.continues == "v1_a" and not history.calls()
    full = transport_for(API).reconstruct(follow, [Earlier(first, served, first)])
    whole = dialect_for(API).history(full)
    assert whole.continues is None
    assert [c.call_id for c in whole.calls()] == ["k4m9x2qa"]
    assert [r.call_id for r in whole.results()] == ["k4m9x2qa"]


def _call(call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "id": call_id, "name": "get_weather", "arguments": {"city": "Paris"}}


def test_the_neutral_view_of_a_server_step_keeps_the_whole_step() -> None:
    step = {"type": "google_search_call", "id": "gs8n2vqe", "arguments": {"queries": ["q"]}, "signature": "c2ln"}
    message = GeminiInteractionsCodec().decode({"stream": False, "body": {"steps": [step]}})
    part: Part = message["parts"][0]
    assert part["type"] == "tool_call" and part.get("provider_executed")
    assert part.get("extra") == {"step": step}


class ContinuesWithoutResults(GeminiInteractionsCodec):
    """Continues the stored interaction but leaves the results of its calls out."""

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        body = super().encode(conversation)
        if "previous_interaction_id" in body:
            body["input"] = [s for s in body["input"] if s["type"] != "function_result"]
        return body


def test_a_continuation_that_answers_none_of_the_stored_calls_fails(corpus: Corpus) -> None:
    scenario = f"{API}/session-previous-interaction-id"
    assert _run(GeminiInteractionsCodec(), scenario, corpus).outcome == "pass"
    result = _run(ContinuesWithoutResults(), scenario, corpus)
    assert result.outcome == "fail"
    assert "pairing/missing-result" in {code for code, _ in _codes(result)}, _codes(result)
    assert any("(previous_interaction_id 'v1_" in v.message for v in result.violations)


class CallSignatureDropped(GeminiInteractionsCodec):
    """Sends function calls back with the fields of google-genai 3.6.1's FunctionCallStep only."""

    def encode_call(self, part: ToolCallPart) -> dict[str, Any]:
        return {k: v for k, v in super().encode_call(part).items() if k != "signature"}


def test_dropping_a_function_calls_signature_fails(corpus: Corpus) -> None:
    result = _run(CallSignatureDropped(), f"{API}/server-steps-beside-call", corpus)
    assert result.outcome == "fail"
    dropped = {(v.code, v.location) for v in result.violations}
    assert dropped == {("roundtrip/opaque-dropped", "request[1].input[9].signature")}, dropped


class ServerDeltasIgnored(GeminiInteractionsCodec):
    """Keeps a streamed server step as step.start opened it, ignoring the deltas of its own type."""

    def decode(self, response: dict[str, Any]) -> Message:
        if response.get("stream"):
            kept = [
                e
                for e in response["events"]
                if not str(((e.get("data") or {}).get("delta") or {}).get("type", "")).endswith(("_call", "_result"))
            ]
            response = {**response, "events": kept}
        return super().decode(response)


def test_server_steps_filled_by_their_deltas_go_back_whole(corpus: Corpus) -> None:
    scenario = f"{API}/streamed-server-step-deltas"
    assert _run(GeminiInteractionsCodec(), scenario, corpus).outcome == "pass"
    result = _run(ServerDeltasIgnored(), scenario, corpus)
    assert result.outcome == "fail"
    assert {v.code for v in result.violations} >= {"roundtrip/opaque-dropped"}, _codes(result)
    assert {v.location.rsplit(".", 1)[-1] for v in result.violations if v.code == "roundtrip/opaque-dropped"} == {
        "signature"
    }
