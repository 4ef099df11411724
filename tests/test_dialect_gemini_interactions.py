"""The Gemini Interactions dialect: how requests, interactions and streams of steps read."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.corpus.loading import Corpus
from conformance.engine.dialects import DialectError, detect, dialect_for
from conformance.engine.returned import returned
from conformance.recordings.cassette import HttpRequest, HttpResponse

API = "gemini-interactions"
SSE = {"content-type": ("text/event-stream",)}


def _sse(*events: dict[str, Any]) -> HttpResponse:
    text = "".join(f"event: {e['event_type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return HttpResponse(200, SSE, text.encode())


def _json(body: Any) -> HttpResponse:
    return HttpResponse(200, {"content-type": ("application/json",)}, json.dumps(body).encode())


def test_requests_to_the_interactions_path_are_this_dialects() -> None:
    def request(path: str) -> HttpRequest:
        return HttpRequest("POST", f"https://generativelanguage.googleapis.com{path}", {}, b"{}")

    found = detect(request("/v1beta/interactions"))
    assert found is not None and found.api == API
    found = detect(request("/v1/interactions"))
    assert found is not None and found.api == API
    other = detect(request("/v1beta/models/gemini-3-flash-preview:generateContent"))
    assert other is not None and other.api == "gemini"


def test_a_string_or_a_list_of_contents_is_one_user_turn() -> None:
    dialect = dialect_for(API)
    for given in ("hi", {"type": "text", "text": "hi"}, [{"type": "text", "text": "hi"}]):
        history = dialect.history({"model": "m", "input": given})
        assert [m.role for m in history.messages] == ["user"]


def test_steps_read_as_turns_with_server_pairs_in_the_models_turn(corpus: Corpus) -> None:
    body = {
        "input": [
            {"type": "user_input", "content": [{"type": "text", "text": "q"}]},
            {"type": "thought", "signature": "c2ln"},
            {"type": "google_search_call", "id": "g1", "arguments": {"queries": ["x"]}, "signature": "c2ln"},
            {"type": "google_search_result", "call_id": "g1", "result": [{"search_suggestions": "s"}]},
            {"type": "function_call", "id": "f1", "name": "get_weather", "arguments": {"city": "Paris"}},
            {"type": "function_result", "call_id": "f1", "name": "get_weather", "result": "21"},
            {"type": "model_output", "content": [{"type": "text", "text": "It is 21."}]},
        ]
    }
    history = dialect_for(API).history(body)
    assert [m.role for m in history.messages] == ["user", "assistant", "tool", "assistant"]
    model = history.messages[1]
    assert [(c.call_id, c.name, c.provider_executed) for c in model.calls] == [
        ("g1", "google_search_call", True),
        ("f1", "get_weather", False),
    ]
    # The signature must come back: the wire-type cases' `returned_fields` say so.
    assert returned(corpus, model.calls[0]) == {"signature": "c2ln"} and returned(corpus, model.calls[1]) == {}
    assert [(r.call_id, r.provider_executed) for r in model.results] == [("g1", True)]
    assert [(r.call_id, r.id_path) for r in history.messages[2].results] == [("f1", "request.input[5].call_id")]


def test_an_interaction_skips_its_echoed_input() -> None:
    body = {
        "id": "v1_a",
        "status": "requires_action",
        "steps": [
            {"type": "user_input", "content": [{"type": "text", "text": "q"}]},
            {"type": "function_result", "call_id": "f0", "result": "old"},
            {"type": "function_call", "id": "f1", "name": "get_weather", "arguments": {}},
        ],
    }
    dialect = dialect_for(API)
    served = dialect.served(_json(body))
    assert [c.call_id for c in served.calls] == ["f1"] and served.results == ()
    assert dialect.response_id(served) == "v1_a"  # type: ignore[attr-defined]


def test_a_stream_joins_argument_pieces_by_step_index_and_merges_server_deltas(corpus: Corpus) -> None:
    served = dialect_for(API).served(
        _sse(
            {"event_type": "interaction.created", "interaction": {"id": "v1_s", "status": "in_progress"}},
            {"event_type": "step.start", "index": 0, "step": {"type": "code_execution_call", "id": "c1"}},
            {
                "event_type": "step.delta",
                "index": 0,
                "delta": {"type": "code_execution_call", "arguments": {"code": "print(1)"}, "signature": "c2ln"},
            },
            {"event_type": "step.stop", "index": 0},
            {
                "event_type": "step.start",
                "index": 1,
                "step": {"type": "function_call", "id": "f1", "name": "a", "arguments": {}},
            },
            {"event_type": "step.delta", "index": 1, "delta": {"type": "arguments_delta", "arguments": '{"ci'}},
            {"event_type": "step.delta", "index": 1, "delta": {"type": "arguments_delta", "arguments": 'ty":"Paris"}'}},
            {"event_type": "step.stop", "index": 1},
            {"event_type": "step.start", "index": 2, "step": {"type": "model_output", "content": []}},
            {"event_type": "step.delta", "index": 2, "delta": {"type": "text", "text": "done"}},
            {"event_type": "interaction.completed", "interaction": {"id": "v1_s", "status": "requires_action"}},
        )
    )
    assert [(c.call_id, c.arguments, returned(corpus, c)) for c in served.calls] == [
        ("c1", {"code": "print(1)"}, {"signature": "c2ln"}),
        ("f1", {"city": "Paris"}, {}),
    ]
    assert served.text == "done"
    assert dialect_for(API).response_id(served) == "v1_s"  # type: ignore[attr-defined]


def test_a_delta_for_a_step_never_started_is_noted() -> None:
    served = dialect_for(API).served(
        _sse({"event_type": "step.delta", "index": 3, "delta": {"type": "arguments_delta", "arguments": "{}"}})
    )
    assert served.calls == () and any("index 3" in n for n in served.notes)


def test_a_step_that_is_not_an_object_is_located() -> None:
    with pytest.raises(DialectError) as caught:
        dialect_for(API).history({"input": [{"type": "user_input"}, "function_call"]})
    assert caught.value.path == "request.input[1]"
