"""The Bedrock Converse dialect on shapes the constructed scenarios do not carry, and on real traffic."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import REAL_TRAFFIC

from conformance.corpus.loading import Corpus
from conformance.engine.dialects import detect, dialect_for
from conformance.engine.dialects.base import DialectError
from conformance.engine.exchange import Exchange, Turn
from conformance.engine.rules import CheckContext, check
from conformance.lint import lint_path
from conformance.recordings.cassette import HttpRequest, HttpResponse
from conformance.recordings.eventstream import encode
from conformance.reference.bedrock_converse import BedrockConverseCodec

DIALECT = dialect_for("bedrock-converse")
RECORDING = REAL_TRAFFIC / "pydantic-ai" / "test_bedrock_mixed_strict_tool_run.yaml"


def _request(uri: str) -> HttpRequest:
    return HttpRequest(method="POST", uri=uri, headers={}, body=b"{}")


def _stream(*events: tuple[str, dict[str, Any]], message_type: str = "event") -> HttpResponse:
    body = b"".join(
        encode(
            {":event-type": name, ":content-type": "application/json", ":message-type": message_type},
            json.dumps(data).encode(),
        )
        for name, data in events
    )
    return HttpResponse(status=200, headers={"content-type": ("application/vnd.amazon.eventstream",)}, body=body)


@pytest.mark.parametrize(
    "uri",
    [
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse",
        "https://bedrock-runtime.eu-west-3.amazonaws.com/model/amazon.nova-lite-v1:0/converse-stream",
        "https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aus-gov-west-1%3A1%3Aprompt%2FX/converse",
    ],
)
def test_converse_requests_are_detected(uri: str) -> None:
    assert DIALECT.handles(_request(uri))
    assert detect(_request(uri)) is DIALECT


@pytest.mark.parametrize(
    "uri",
    [
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku/invoke",
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku/invoke-with-response-stream",
        "https://api.openai.com/v1/chat/completions",
    ],
)
def test_other_bedrock_operations_are_not_converse(uri: str) -> None:
    assert not DIALECT.handles(_request(uri))


def test_a_server_tool_and_its_result_in_the_assistant_turn_need_no_client_result(corpus: Corpus) -> None:
    body = {
        "messages": [
            {"role": "user", "content": [{"text": "Search."}]},
            {
                "role": "assistant",
                "content": [
                    {
                        "toolUse": {
                            "toolUseId": "tooluse_srv1",
                            "name": "web_grounding",
                            "input": {},
                            "type": "server_tool_use",
                        }
                    },
                    {"toolResult": {"toolUseId": "tooluse_srv1", "content": [{"text": "found"}]}},
                    {"toolUse": {"toolUseId": "tooluse_fn1", "name": "get_weather", "input": {"city": "Paris"}}},
                ],
            },
            {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_fn1", "content": [{"text": "21"}]}}]},
        ],
        "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": {"type": "object"}}}}]},
    }
    history = DIALECT.history(body)
    server, plain = history.messages[1].calls
    assert server.provider_executed and not plain.provider_executed
    assert history.messages[1].results[0].provider_executed
    assert server.id_path == "request.messages[1].content[0].toolUse.toolUseId"
    exchange = Exchange(api="bedrock-converse", turns=(Turn(index=0, request=body, served=_empty()),))
    assert check(exchange, CheckContext(corpus=corpus, dialect=DIALECT)) == []


def _empty() -> Any:
    return DIALECT.served(
        HttpResponse(status=200, headers={}, body=b'{"output":{"message":{"role":"assistant","content":[]}}}'),
        "response[0]",
    )


def test_the_reference_decodes_a_streamed_server_tool_as_provider_executed() -> None:
    response = _stream(
        ("messageStart", {"role": "assistant"}),
        (
            "contentBlockStart",
            {
                "contentBlockIndex": 0,
                "start": {"toolUse": {"toolUseId": "tooluse_s", "name": "web", "type": "server_tool_use"}},
            },
        ),
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{}"}}}),
        ("contentBlockStop", {"contentBlockIndex": 0}),
        (
            "contentBlockStart",
            {"contentBlockIndex": 1, "start": {"toolResult": {"toolUseId": "tooluse_s", "status": "success"}}},
        ),
        ("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolResult": [{"text": "found"}]}}),
        ("contentBlockStop", {"contentBlockIndex": 1}),
        ("messageStop", {"stopReason": "end_turn"}),
    )
    served = DIALECT.served(response)
    assert served.calls[0].provider_executed and served.results[0].call_id == "tooluse_s"
    message = BedrockConverseCodec().decode(served.payload)
    call, result = message["parts"]
    assert call.get("provider_executed") and result.get("provider_executed")
    assert result["type"] == "tool_result" and result["output"] == [{"text": "found"}]


def test_stream_oddities_become_notes() -> None:
    response = _stream(
        ("messageStart", {"role": "assistant"}),
        ("contentBlockDelta", {"contentBlockIndex": 3, "delta": {"toolUse": {"input": "{}"}}}),
        ("contentBlockStart", {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "tooluse_a", "name": "f"}}}),
    )
    notes = "\n".join(DIALECT.served(response).notes)
    assert "contentBlockIndex 3, which no start opened" in notes
    assert "ends before contentBlockStop for index 1" in notes
    assert "without messageStop" in notes


def test_an_exception_frame_is_a_note_not_an_event_to_reassemble() -> None:
    response = _stream(("modelStreamErrorException", {"message": "the model failed"}), message_type="exception")
    served = DIALECT.served(response)
    assert served.calls == () and any("the model failed" in n for n in served.notes)


def test_a_corrupt_stream_is_a_dialect_error_with_its_event() -> None:
    good = _stream(("messageStart", {"role": "assistant"}), ("messageStop", {"stopReason": "end_turn"}))
    broken = bytearray(good.body)
    broken[-1] ^= 0xFF
    with pytest.raises(DialectError, match=r"response\.events\[1\]"):
        DIALECT.served(HttpResponse(status=200, headers=good.headers, body=bytes(broken)), "response")


def test_the_reference_merges_roles_and_keeps_results_first() -> None:
    body = BedrockConverseCodec().encode(
        {
            "api": "bedrock-converse",
            "model": "m",
            "stream": False,
            "tools": [],
            "messages": [
                {"role": "system", "parts": [{"type": "text", "text": "Be brief."}]},
                {"role": "user", "parts": [{"type": "text", "text": "Go."}]},
                {
                    "role": "assistant",
                    "parts": [
                        {
                            "type": "tool_call",
                            "call_id": None,
                            "name": "f",
                            "arguments": {},
                            "wire_type": "gemini/FunctionCall",
                        }
                    ],
                },
                {"role": "tool", "parts": [{"type": "tool_result", "call_id": None, "name": "f", "output": "[1, 2]"}]},
                {"role": "user", "parts": [{"type": "text", "text": "And now?"}]},
            ],
        }
    )
    assert body["system"] == [{"text": "Be brief."}]
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    minted = body["messages"][1]["content"][0]["toolUse"]["toolUseId"]
    result, text = body["messages"][2]["content"]
    assert result["toolResult"]["toolUseId"] == minted and minted.startswith("tooluse_")
    assert result["toolResult"]["content"] == [{"text": "[1, 2]"}]  # json blocks take objects only
    assert text == {"text": "And now?"}


@pytest.mark.skipif(not RECORDING.is_file(), reason="the real Bedrock recording is not available")
def test_the_real_recording_reads_and_lints_clean(corpus: Corpus) -> None:
    report = lint_path(RECORDING, corpus)
    assert report.checked == {"bedrock-converse": 3}
    assert report.violations == [] and report.unchecked == []


def test_another_providers_server_tool_is_not_replayed_to_bedrock() -> None:
    body = BedrockConverseCodec().encode(
        {
            "api": "bedrock-converse",
            "model": "m",
            "stream": False,
            "tools": [],
            "messages": [
                {"role": "user", "parts": [{"type": "text", "text": "Search, then fetch."}]},
                {
                    "role": "assistant",
                    "parts": [
                        {
                            "type": "tool_call",
                            "call_id": "srvtoolu_01A",
                            "name": "web_search",
                            "arguments": {"query": "x"},
                            "wire_type": "anthropic-messages/ServerToolUseBlock",
                            "provider_executed": True,
                        },
                        {
                            "type": "tool_result",
                            "call_id": "srvtoolu_01A",
                            "output": [{"type": "web_search_result"}],
                            "wire_type": "anthropic-messages/WebSearchToolResultBlock",
                            "provider_executed": True,
                        },
                        {"type": "text", "text": "Found it."},
                    ],
                },
            ],
        }
    )
    assert body["messages"][1] == {"role": "assistant", "content": [{"text": "Found it."}]}
