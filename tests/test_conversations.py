"""Splitting a cassette into conversations, and lint checking each on its own."""

from __future__ import annotations

import copy
import json
from typing import Any

import yaml
from interactions import bundled_interactions, request_body, with_request_body

from conformance.corpus.loading import Corpus
from conformance.engine.conversations import split
from conformance.lint import lint
from conformance.recordings.cassette import parse_cassette


def _cassette(interactions: list[dict[str, Any]]) -> Any:
    return parse_cassette(yaml.safe_dump({"interactions": interactions, "version": 1}), "test.yaml")


def test_two_tests_in_one_cassette_are_two_conversations(corpus: Corpus) -> None:
    one = bundled_interactions("openai-chat/one-call.yaml")
    chain = bundled_interactions("openai-chat/three-turn-chain.yaml")
    cassette = _cassette([one[0], chain[0], one[1], chain[1], chain[2]])
    assert [c.indices for c in split(cassette).conversations] == [[0, 2], [1, 3, 4]]
    report = lint(cassette, corpus)
    assert report.conversations == 2 and report.checked == {"openai-chat": 5}
    assert report.violations == []


def test_one_exchange_per_api_would_have_reported_the_other_test_calls_lost(corpus: Corpus) -> None:
    # The fault the split removes: the second test's requests never carry the first test's calls.
    one = bundled_interactions("openai-chat/one-call.yaml")
    cassette = _cassette([*one, *one])
    assert [c.indices for c in split(cassette).conversations] == [[0, 1], [2, 3]]
    assert lint(cassette, corpus).errors == []


def test_a_retried_request_branches_from_the_turn_it_continues() -> None:
    one = bundled_interactions("openai-chat/one-call.yaml")
    assert [c.indices for c in split(_cassette([one[0], one[1], one[1]])).conversations] == [[0, 1], [0, 2]]


def test_a_client_that_replaces_the_ids_still_continues_and_is_reported(corpus: Corpus) -> None:
    one = bundled_interactions("openai-chat/one-call.yaml")
    body = request_body(one[1])
    body["messages"][1]["tool_calls"][0]["id"] = "000000000"
    body["messages"][2]["tool_call_id"] = "000000000"
    cassette = _cassette([one[0], with_request_body(one[1], body)])
    assert [c.indices for c in split(cassette).conversations] == [[0, 1]]
    assert {v.code for _, v in lint(cassette, corpus).errors} == {"roundtrip/id-altered"}


def test_a_new_user_question_after_a_final_text_continues_the_conversation() -> None:
    chain = bundled_interactions("anthropic-messages/one-call.yaml")
    follow = request_body(chain[1])
    answer = (
        parse_cassette(yaml.safe_dump({"interactions": chain, "version": 1}), "x.yaml").interactions[1].response.json()
    )
    text = next(b["text"] for b in answer["content"] if b["type"] == "text")
    follow["messages"] += [
        {"role": "assistant", "content": [{"type": "text", "text": text}]},
        {"role": "user", "content": "And tomorrow?"},
    ]
    cassette = _cassette([chain[0], chain[1], with_request_body(chain[1], follow)])
    assert [c.indices for c in split(cassette).conversations] == [[0, 1, 2]]


def test_a_stored_responses_conversation_continues_by_its_response_id() -> None:
    first, second = bundled_interactions("openai-responses/one-call.yaml")
    served = json.loads(first["response"]["body"]["string"])
    body = request_body(second)
    outputs = [item for item in body["input"] if item.get("type") == "function_call_output"]
    body = {**body, "input": outputs, "previous_response_id": served["id"]}
    cassette = _cassette([first, with_request_body(second, body)])
    assert [c.indices for c in split(cassette).conversations] == [[0, 1]]
    other = {**body, "previous_response_id": "resp_unknown"}
    assert [c.indices for c in split(_cassette([first, with_request_body(second, other)])).conversations] == [[0], [1]]


def test_requests_no_dialect_reads_are_listed_not_checked(corpus: Corpus) -> None:
    one = bundled_interactions("openai-chat/one-call.yaml")
    telemetry = copy.deepcopy(one[0])
    telemetry["request"]["uri"] = "https://telemetry.example.com/v1/traces"
    report = lint(_cassette([telemetry, *one]), corpus)
    assert report.unchecked == ["interaction[0]: no dialect for POST telemetry.example.com/v1/traces"]
    assert report.checked == {"openai-chat": 2}


def test_gemini_reads_consecutive_contents_of_one_role_as_one_turn(corpus: Corpus) -> None:
    # Gemini answered 200 to a model turn of three calls followed by three user contents with one
    # functionResponse each, and to two model contents answered by one user content.
    first, second = bundled_interactions("gemini/parallel-different-tools.yaml")
    body = request_body(second)
    model, answers = body["contents"][1], body["contents"][2]
    split_model = [{"role": "model", "parts": [part]} for part in model["parts"]]
    split_user = [{"role": "user", "parts": [part]} for part in answers["parts"]]
    for contents in ([body["contents"][0], model, *split_user], [body["contents"][0], *split_model, answers]):
        cassette = _cassette([first, with_request_body(second, {**body, "contents": contents})])
        assert lint(cassette, corpus).errors == [], contents


def _renamed_newest_turn() -> list[dict[str, Any]]:
    """The three-turn chain, its last request sending the second turn's call back under another id
    (on the call and on its result) while the first turn goes back unchanged."""
    chain = bundled_interactions("openai-chat/three-turn-chain.yaml")
    body = request_body(chain[2])
    calling = [m for m in body["messages"] if m.get("tool_calls")]
    newest = calling[-1]["tool_calls"][0]
    old = newest["id"]
    newest["id"] = "call_" + "R" * 24
    for message in body["messages"]:
        if message.get("tool_call_id") == old:
            message["tool_call_id"] = newest["id"]
    return [chain[0], chain[1], with_request_body(chain[2], body)]


def test_the_newest_turn_sent_back_under_other_ids_continues_and_is_reported(corpus: Corpus) -> None:
    cassette = _cassette(_renamed_newest_turn())
    assert [c.indices for c in split(cassette).conversations] == [[0, 1, 2]]
    codes = [v.code for _, v in lint(cassette, corpus).errors]
    assert codes and set(codes) == {"roundtrip/id-altered"}, codes


def test_a_retry_of_an_earlier_turn_still_branches_from_it() -> None:
    chain = bundled_interactions("openai-chat/three-turn-chain.yaml")
    cassette = _cassette([chain[0], chain[1], chain[2], chain[1]])
    assert [c.indices for c in split(cassette).conversations] == [[0, 1, 2], [0, 3]]
