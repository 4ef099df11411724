"""The Responses-family dialects: item tables that agree with the cases, history runs, stream
reassembly and its notes, and the real recordings they read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.corpus.loading import Corpus
from conformance.engine.dialects import detect, dialect_for
from conformance.engine.dialects.openai_responses import ResponsesItems
from conformance.lint import lint_path
from conformance.recordings.cassette import HttpRequest, HttpResponse
from conformance.reference import ADAPTER as REFERENCE

APIS = ("openai-responses", "azure-foundry", "openresponses")
REAL = Path(__file__).resolve().parents[2] / "shared" / "real-traffic"
# Self-contained output items: nothing answers them, so they are read as provider-run items.
SELF_CONTAINED = {"azure-foundry/WorkflowActionOutputItem", "azure-foundry/OAuthConsentRequestOutputItem"}


def _dialect(api: str) -> ResponsesItems:
    dialect = dialect_for(api)
    assert isinstance(dialect, ResponsesItems)
    return dialect


@pytest.mark.parametrize("api", APIS)
def test_every_wire_type_has_an_item_kind_with_the_fields_its_case_names(api: str, corpus: Corpus) -> None:
    items = _dialect(api).items
    for case in (c for c in corpus.wire_types.values() if c.api == api):
        value = case.data["discriminator"]["value"]
        kind = items[value]
        assert kind.wire_type == case.id
        fields = {f.field for f in case.id_fields}
        assert kind.id_field in fields and (kind.item_field is None or kind.item_field in fields), case.id
        expected_role = "call" if case.role != "output" or case.id in SELF_CONTAINED else "output"
        assert kind.role == expected_role, case.id
        target = case.data.get("references", {}).get("target", "").split(".")[0]
        if target and kind.role == "call":
            assert _dialect(api).result_type(case.id) == target
        if kind.role == "output":
            assert case.data["references"]["field"] == kind.id_field


@pytest.mark.parametrize("api", APIS)
def test_the_reference_codec_reads_the_same_items(api: str) -> None:
    codec = REFERENCE.codec(api)
    dialect_items = {t: k.wire_type for t, k in _dialect(api).items.items()}
    codec_items = {t: k.wire_type for t, k in codec.items.items()}  # type: ignore[union-attr]
    assert codec_items == dialect_items


def _request(host: str, path: str = "/v1/responses", method: str = "POST") -> HttpRequest:
    return HttpRequest(method=method, uri=f"https://{host}{path}", headers={}, body=b"{}")


@pytest.mark.parametrize(
    ("host", "path", "api"),
    [
        ("api.openai.com", "/v1/responses", "openai-responses"),
        ("localhost", "/v1/responses", "openai-responses"),
        ("contoso.services.ai.azure.com", "/api/projects/p/openai/v1/responses", "azure-foundry"),
        ("contoso.openai.azure.com", "/openai/responses", "azure-foundry"),
        ("ai-gateway.vercel.sh", "/v1/responses", "openresponses"),
    ],
)
def test_requests_go_to_their_dialect(host: str, path: str, api: str) -> None:
    found = detect(_request(host, path))
    assert found is not None and found.api == api


def test_a_response_read_back_by_id_is_not_a_create_call() -> None:
    assert not _dialect("openai-responses").handles(_request("api.openai.com", "/v1/responses/resp_1", "GET"))


def test_history_reads_runs_of_model_items_and_client_outputs() -> None:
    body = {
        "input": [
            {"role": "user", "content": "hi"},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search"}},
            {"role": "assistant", "content": "Searching done."},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "1"},
            {"type": "local_shell_call", "id": "lsh_1", "call_id": "call_2", "action": {}, "status": "completed"},
            {"type": "local_shell_call_output", "call_id": "call_2", "output": "ok"},
        ]
    }
    history = _dialect("openai-responses").history(body)
    assert [(m.role, len(m.calls), len(m.results)) for m in history.messages] == [
        ("user", 0, 0),
        ("assistant", 1, 0),  # the text ends the turn that searched
        ("assistant", 1, 0),
        ("tool", 0, 1),
        ("assistant", 1, 0),
        ("tool", 0, 1),
    ]
    search, call, shell = history.calls()
    assert (search.call_id, search.item_id, search.provider_executed) == ("ws_1", None, True)
    assert (call.call_id, call.item_id, call.id_path) == ("call_1", "fc_1", "request.input[4].call_id")
    # Clients send the local shell output's reference in call_id; the spec puts it in id.
    assert history.results()[1].id_path == "request.input[7].call_id"
    assert shell.call_id == history.results()[1].call_id


def _stream(events: list[dict[str, object]]) -> HttpResponse:
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return HttpResponse(status=200, headers={"content-type": ("text/event-stream",)}, body=body.encode())


def test_stream_ids_come_from_output_item_added_and_oddities_are_noted() -> None:
    added = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": ""}
    served = _dialect("openai-responses").served(
        _stream(
            [
                {"type": "response.output_item.added", "output_index": 0, "item": added},
                {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": "{}"},
                {"type": "response.function_call_arguments.delta", "item_id": "fc_9", "output_index": 3, "delta": "x"},
                {"type": "response.output_item.done", "output_index": 0, "item": {**added, "call_id": "call_X"}},
            ]
        )
    )
    (call,) = served.calls
    assert (call.call_id, call.item_id, call.path) == ("call_1", "fc_1", "response.events[0].item")
    assert len(served.notes) == 2
    assert "output_index 3" in served.notes[0] and "call_X" in served.notes[1]


def test_a_provider_output_served_beside_its_call_marks_the_call_provider_run() -> None:
    body = {
        "output": [
            {
                "type": "bing_grounding_call",
                "id": "bg_1",
                "call_id": "call_1",
                "arguments": "{}",
                "status": "completed",
            },
            {"type": "bing_grounding_call_output", "id": "bgo_1", "call_id": "call_1", "status": "completed"},
        ]
    }
    response = HttpResponse(status=200, headers={"content-type": ("application/json",)}, body=json.dumps(body).encode())
    served = _dialect("azure-foundry").served(response)
    assert [(c.call_id, c.item_id, c.provider_executed) for c in served.calls] == [("call_1", "bg_1", True)]
    assert [(r.call_id, r.provider_executed) for r in served.results] == [("call_1", True)]


@pytest.mark.parametrize(
    "recording",
    ["llm/test_responses_tool_use_streaming.yaml", "pydantic-ai/test_openai_responses_model_mcp_server_tool.yaml"],
)
def test_the_real_responses_recordings_lint_clean(recording: str, corpus: Corpus) -> None:
    path = REAL / recording
    if not path.is_file():
        pytest.skip(f"{path} is not available")
    report = lint_path(path, corpus)
    assert report.checked == {"openai-responses": 2}
    assert report.violations == [] and report.unchecked == [] and report.notes == []


def test_a_request_continuing_a_stored_response_sends_only_new_items(corpus: Corpus) -> None:
    from conformance.engine.exchange import Exchange, Turn
    from conformance.engine.rules import CheckContext, check

    dialect = _dialect("openai-responses")
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{}"}
    response = HttpResponse(200, {"content-type": ("application/json",)}, json.dumps({"output": [call]}).encode())
    first = {"model": "gpt-4.1", "input": "hi", "store": True}
    output = {"type": "function_call_output", "call_id": "call_1", "output": "1"}
    then = {"model": "gpt-4.1", "previous_response_id": "resp_1", "input": [output], "store": True}
    assert dialect.history(then).continues == "resp_1"
    turns = (Turn(0, first, dialect.served(response, "response[0]")), Turn(1, then, dialect.served(response)))
    assert check(Exchange("openai-responses", turns), CheckContext(corpus=corpus, dialect=dialect)) == []
    # Without the stored response, the same output answers nothing the body holds.
    alone = {**then, "previous_response_id": None}
    turns = (turns[0], Turn(1, alone, dialect.served(response)))
    codes = {v.code for v in check(Exchange("openai-responses", turns), CheckContext(corpus=corpus, dialect=dialect))}
    assert codes == {"pairing/call-dropped", "roundtrip/call-lost"}


@pytest.mark.parametrize(
    ("item", "arguments"),
    [
        ({"action": {"type": "click", "x": 1, "y": 2}}, {"type": "click", "x": 1, "y": 2}),  # the preview tool
        ({"actions": [{"type": "click", "x": 1, "y": 2}]}, {"type": "click", "x": 1, "y": 2}),  # GA, one action
        ({"actions": [{"type": "screenshot"}, {"type": "wait"}]}, [{"type": "screenshot"}, {"type": "wait"}]),
    ],
    ids=["action", "actions-of-one", "actions-batched"],
)
def test_a_computer_call_reads_the_same_whichever_tool_version_wrote_it(item: dict[str, Any], arguments: Any) -> None:
    body = {"input": [{"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed", **item}]}
    (call,) = _dialect("openai-responses").history(body).calls()
    assert call.arguments == arguments


@pytest.mark.parametrize(
    ("action", "altered"),
    [
        ({"type": "search", "query": "Paris weather"}, False),  # the sources the provider added left out
        ({"type": "search", "query": "Paris weather", "sources": [{"type": "url", "url": "https://a.example"}]}, False),
        ({"type": "search", "query": "Lyon weather"}, True),  # what was asked, changed
    ],
    ids=["without-sources", "as-served", "other-query"],
)
def test_only_the_request_part_of_a_hosted_action_is_its_arguments(
    action: dict[str, Any], altered: bool, corpus: Corpus
) -> None:
    from conformance.engine.exchange import Exchange, Turn
    from conformance.engine.rules import CheckContext, check

    dialect = _dialect("openai-responses")
    served_action = {
        "type": "search",
        "query": "Paris weather",
        "sources": [{"type": "url", "url": "https://a.example"}],
    }
    search = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": served_action}
    response = HttpResponse(200, {"content-type": ("application/json",)}, json.dumps({"output": [search]}).encode())
    first = {"model": "gpt-5.1", "input": "weather?", "tools": [{"type": "web_search"}]}
    then = {**first, "input": [{"role": "user", "content": "weather?"}, {**search, "action": action}]}
    turns = (Turn(0, first, dialect.served(response, "response[0]")), Turn(1, then, dialect.served(response)))
    codes = {v.code for v in check(Exchange("openai-responses", turns), CheckContext(corpus=corpus, dialect=dialect))}
    assert ("roundtrip/arguments-altered" in codes) is altered, codes
