"""A Responses turn re-framed as a stream names each call's argument events by the call's item id.

Mistral's Responses API may serve function calls without an item `id` (only `call_id`). Streamed as
they are, every `response.function_call_arguments.*` event would carry `item_id: null`, a stream no
server sends, and a client that matches argument events to calls by `item_id` (as the event type asks)
would give one call the other's arguments. Such a turn is declared unservable as a stream instead.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.replay.transports import transport_for
from conformance.replay.transports.base import ReframeError


def _response(*ids: str | None) -> dict[str, Any]:
    calls = [
        {"type": "function_call", "call_id": f"c{k}", "name": "get_weather", "arguments": "{}", "status": "completed"}
        | ({"id": item} if item is not None else {})
        for k, item in enumerate(ids)
    ]
    return {"id": "resp_1", "object": "response", "status": "completed", "output": calls}


def test_calls_with_their_own_item_ids_stream_their_arguments_under_them() -> None:
    events = transport_for("mistral-responses").events_of(_response("fc_a", "fc_b"))
    named = [e.data["item_id"] for e in events if e.name == "response.function_call_arguments.done"]
    assert named == ["fc_a", "fc_b"]


@pytest.mark.parametrize("ids", [(None, None), ("fc_a", "fc_a")], ids=["no-ids", "same-id"])
def test_calls_that_share_an_item_id_have_no_stream_form(ids: tuple[str | None, ...]) -> None:
    with pytest.raises(ReframeError, match="argument events cannot be told apart"):
        transport_for("mistral-responses").events_of(_response(*ids))


def test_one_call_without_an_item_id_still_streams() -> None:
    events = transport_for("mistral-responses").events_of(_response(None))
    assert [e.data["item_id"] for e in events if e.name == "response.function_call_arguments.done"] == [None]
