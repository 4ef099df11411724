"""A Mistral turn re-framed as a stream sends each tool call whole, as Mistral does.

Mistral's SDKs model a streamed tool-call delta with a required function name (@mistralai/mistralai's
chunk schema rejects a delta without one), so a stream that opens a call and then sends its
arguments in a nameless delta, as OpenAI does, is one Mistral never sends and its clients cannot read.
"""

from __future__ import annotations

from typing import Any

from conformance.replay.transports import transport_for

PARIS, TOKYO = '{"city": "Paris"}', '{"city": "Tokyo"}'
COMPLETION: dict[str, Any] = {
    "id": "cmpl-1",
    "object": "chat.completion",
    "model": "mistral-large-latest",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "D681PevKs", "type": "function", "function": {"name": "get_weather", "arguments": PARIS}},
                    {"id": "kTTkiOmBd", "type": "function", "function": {"name": "get_weather", "arguments": TOKYO}},
                ],
            },
        }
    ],
}


def _call_deltas(api: str) -> list[tuple[list[dict[str, Any]], Any]]:
    events = transport_for(api).events_of(COMPLETION)
    deltas = []
    for event in events:
        choice = event.data["choices"][0]
        if choice["delta"].get("tool_calls"):
            deltas.append((choice["delta"]["tool_calls"], choice.get("finish_reason")))
    return deltas


def test_mistral_streams_every_call_whole_in_the_finishing_chunk() -> None:
    [(calls, finish)] = _call_deltas("mistral-chat")
    assert finish == "tool_calls"
    assert [(c["id"], c["function"]["name"], c["function"]["arguments"], c["index"]) for c in calls] == [
        ("D681PevKs", "get_weather", PARIS, 0),
        ("kTTkiOmBd", "get_weather", TOKYO, 1),
    ]


def test_openai_still_opens_each_call_and_then_streams_its_arguments() -> None:
    deltas = _call_deltas("openai-chat")
    assert len(deltas) == 4
    opening, arguments = deltas[0][0][0], deltas[1][0][0]
    assert opening["id"] == "D681PevKs" and opening["function"]["name"] == "get_weather"
    assert "name" not in arguments["function"] and arguments["function"]["arguments"] == PARIS
