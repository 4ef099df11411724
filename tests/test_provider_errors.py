"""The error a replay serves for a request the provider would reject, in each provider's own shape."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.corpus.loading import Corpus
from conformance.engine.provider_errors import BEDROCK_ERROR_TYPE, error_response, mistral_error_type
from conformance.running.runner import run_scenario


def _body(api: str, message: str) -> Any:
    return json.loads(error_response(api, message)["body"]["string"])


@pytest.mark.parametrize(
    ("message", "kind", "code"),
    [
        (
            "Tool call id was toolu_01VpEm654HvfMoRcrE3Hgdc6 but must be a-z, A-Z, 0-9, with a length of 9.",
            "invalid_function_call",
            "3280",
        ),
        ("Tool call id has to be defined in serving mode.", "invalid_function_call", "3280"),
        ("Unexpected tool call id pR1CHbWdz in tool results", "invalid_request_message_order", "3230"),
        ("Not the same number of function calls and responses", "invalid_request_message_order", "3230"),
        ("Duplicate tool call id {id} in tool results", "invalid_request_message_order", "3230"),
        ("Tool call id has to be defined.", "invalid_request_error", None),
    ],
)
def test_mistral_types_an_error_by_the_check_that_raised_it(message: str, kind: str, code: str | None) -> None:
    assert mistral_error_type(message) == (kind, code)
    assert _body("mistral-chat", message) == {
        "object": "error",
        "message": message,
        "type": kind,
        "param": None,
        "code": code,
    }


def test_every_mistral_error_text_in_the_cases_gets_its_checks_type(corpus: Corpus) -> None:
    # The texts the rules quote are what the replay serves. Only the tool message's missing id is raised
    # by a check (InvalidRequestException) whose current hosted type no report shows.
    texts = {e.text for w in corpus.wire_types.values() if w.api == "mistral-chat" for e in w.error_texts}
    general = {t for t in texts if mistral_error_type(t)[0] == "invalid_request_error"}
    assert len(texts) > 5 and general == {"Tool call id has to be defined."}


def test_anthropic_tool_id_errors_are_served_without_an_error_code(corpus: Corpus) -> None:
    """Anthropic's SDK reads a cause from `error.details.error_code`; the tool-id errors the cases quote carry
    none in the bodies reported, and the served body reads the same through the SDK's own parser."""
    pytest.importorskip("anthropic")
    from anthropic._exceptions import extract_error_code

    texts = {e.text for w in corpus.wire_types.values() if w.api == "anthropic-messages" for e in w.error_texts}
    assert len(texts) > 3
    for text in texts:
        body = _body("anthropic-messages", text)
        assert body == {"type": "error", "error": {"type": "invalid_request_error", "message": text}}
        assert extract_error_code(body) is None


def test_bedrock_names_the_whole_error_type() -> None:
    response = error_response(
        "bedrock-converse", "Value at 'messages.1.member.content.1.member.toolUse.toolUseId' failed"
    )
    assert response["headers"]["x-amzn-errortype"] == [BEDROCK_ERROR_TYPE]
    assert BEDROCK_ERROR_TYPE.endswith("/coral/com.amazon.bedrock/")


def test_a_client_replay_serves_mistrals_current_error_shape(corpus: Corpus) -> None:
    """A client replays another provider's id to Mistral; the replay answers with invalid_function_call, 3280."""
    openai = pytest.importorskip("openai", reason="drives the official openai SDK against the Mistral replay")
    seen: list[Any] = []

    def foreign_id(loop: ToolLoop) -> None:
        client = openai.OpenAI(base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
        tools: Any = [
            {"type": "function", "function": {"name": t["name"], "parameters": t["parameters"]}} for t in loop.tools
        ]
        messages: list[Any] = [{"role": "user", "content": loop.prompt}]
        message = client.chat.completions.create(model=loop.model, messages=messages, tools=tools).choices[0].message
        calls = message.tool_calls or []
        foreign = "toolu_01VpEm654HvfMoRcrE3Hgdc6"  # an Anthropic id, as zed#53034 sent
        messages.append(
            {
                "role": "assistant",
                "tool_calls": [{"id": foreign, "type": "function", "function": c.function.model_dump()} for c in calls],
            }
        )
        for call in calls:
            output = loop.call_tool(call.function.name, json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": foreign, "content": output})
        try:
            client.chat.completions.create(model=loop.model, messages=messages, tools=tools)
        except openai.BadRequestError as exc:
            seen.append(exc)
            raise

    adapter = ClientAdapter(name="foreign-id", version="0", clients={"mistral-chat": foreign_id})
    result = run_scenario(adapter, corpus.scenarios["mistral-chat/one-call"], corpus)
    assert result.outcome == "fail"
    assert "format/id-pattern" in {v.code for v in result.errors}
    assert seen and seen[0].status_code == 400
    body = seen[0].body
    assert (body["type"], body["code"]) == ("invalid_function_call", "3280")
    assert body["message"].startswith("Tool call id was ")
