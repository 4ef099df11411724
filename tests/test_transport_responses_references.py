"""A Responses request may send a stored output item back by its id alone (`item_reference`), as
AI SDK 5 does whenever `store` is on; the server reads the item it stored. The replay resolves such
references against the responses it served, unless a response was served with `store: false`, which
leaves nothing to refer to (the server answers with an error; the rules see the call missing).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.corpus.loading import Corpus
from conformance.engine.dialects import dialect_for
from conformance.engine.exchange import Exchange, Turn
from conformance.engine.rules import CheckContext, check
from conformance.recordings.cassette import HttpResponse
from conformance.replay.transports import transport_for
from conformance.replay.transports.base import Earlier

API = "openai-responses"
CALL = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "f",
    "arguments": "{}",
    "status": "completed",
}
FIRST = {"model": "gpt-4.1", "input": "hi"}


def _response(store: bool) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "status": "completed", "store": store, "output": [CALL]}


def _then(reference: str) -> dict[str, Any]:
    return {
        "model": "gpt-4.1",
        "input": [
            {"role": "user", "content": "hi"},
            {"type": "item_reference", "id": reference},
            {"type": "function_call_output", "call_id": "call_1", "output": "1"},
        ],
    }


def _codes(request: dict[str, Any], response: dict[str, Any], corpus: Corpus) -> set[str]:
    dialect = dialect_for(API)
    full = transport_for(API).reconstruct(request, [Earlier(FIRST, response, FIRST)])
    served = dialect.served(HttpResponse(200, {"content-type": ("application/json",)}, json.dumps(response).encode()))
    turns = (Turn(0, FIRST, served), Turn(1, full, served))
    return {v.code for v in check(Exchange(API, turns), CheckContext(corpus=corpus, dialect=dialect))}


def test_a_reference_to_a_stored_call_is_read_as_the_call(corpus: Corpus) -> None:
    full = transport_for(API).reconstruct(_then("fc_1"), [Earlier(FIRST, _response(True), FIRST)])
    assert full["input"][1] == CALL
    assert _codes(_then("fc_1"), _response(True), corpus) == set()


@pytest.mark.parametrize(
    ("reference", "store"),
    [("fc_1", False), ("fc_unknown", True)],
    ids=["response-not-stored", "item-never-served"],
)
def test_a_reference_the_server_cannot_resolve_leaves_the_call_missing(
    reference: str, store: bool, corpus: Corpus
) -> None:
    full = transport_for(API).reconstruct(_then(reference), [Earlier(FIRST, _response(store), FIRST)])
    assert full["input"][1] == {"type": "item_reference", "id": reference}
    assert _codes(_then(reference), _response(store), corpus) == {"pairing/call-dropped", "roundtrip/call-lost"}


def test_a_request_without_references_is_returned_as_it_is() -> None:
    body = {"model": "gpt-4.1", "input": [CALL]}
    assert transport_for(API).reconstruct(body, [Earlier(FIRST, _response(True), FIRST)]) is body
