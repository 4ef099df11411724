"""What a failure shows of the requests: a diff lined up by message, and formatting told from change."""

from __future__ import annotations

from typing import Any

from conformance.engine.dialects import dialect_for
from conformance.engine.diffing import aligned, request_diff
from conformance.engine.exchange import Exchange, Turn
from conformance.engine.requests_view import FORMATTING, requests_text
from conformance.engine.wire import Served

CALL = {"id": "call_A1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
RECORDED: dict[str, Any] = {
    "model": "m",
    "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "call_A1", "content": "21"},
    ],
}


def _exchange(sent: dict[str, Any]) -> Exchange:
    served = Served(stream=False, calls=(), text="", payload={})
    return Exchange(api="openai-chat", turns=(Turn(index=1, request=sent, served=served, expected_request=RECORDED),))


def test_an_extra_empty_assistant_message_reads_as_one_message_added() -> None:
    """Genkit Go 0.6 to 1.0 send an empty assistant message before the tool message."""
    messages = RECORDED["messages"]
    sent = {**RECORDED, "messages": [*messages[:2], {"role": "assistant", "content": ""}, messages[2]]}
    diff = request_diff(_exchange(sent), dialect_for("openai-chat"))
    assert diff is not None
    assert "sent 2 (not recorded)" in diff
    assert "role" not in diff.replace("'role'", "")  # no role reported changed
    assert "calls" not in diff and "results" not in diff, diff


def test_a_dropped_message_is_one_message_not_sent() -> None:
    left, right, places = aligned([{"role": "user"}, {"role": "assistant"}, {"role": "tool"}], [{"role": "user"}])
    assert places == [0, "1 (not sent)", "2 (not sent)"]
    assert right == [{"role": "user"}, None, None] and len(left) == 3


def test_whitespace_inside_arguments_is_marked_as_formatting() -> None:
    respaced = {**CALL, "function": {**CALL["function"], "arguments": '{"city":"Paris"}'}}
    messages = RECORDED["messages"]
    sent = {**RECORDED, "messages": [messages[0], {"role": "assistant", "tool_calls": [respaced]}, messages[2]]}
    text = requests_text([{"turn": 1, "sent": sent, "recorded": RECORDED}])
    assert FORMATTING in text
    assert not any(line.lstrip().startswith(("-", "+")) and "arguments" in line for line in text.splitlines())
    changed = {**CALL, "function": {**CALL["function"], "arguments": '{"city":"Lyon"}'}}
    sent = {**RECORDED, "messages": [messages[0], {"role": "assistant", "tool_calls": [changed]}, messages[2]]}
    text = requests_text([{"turn": 1, "sent": sent, "recorded": RECORDED}])
    assert FORMATTING not in text and "Lyon" in text
