"""What the replay serves besides the body: the content type and the headers of a recorded response."""

from __future__ import annotations

import json
import urllib.request
from email.message import Message as HTTPMessage

from conformance.connectors.serving import ScenarioServer
from conformance.corpus.loading import Corpus
from conformance.engine.dialects import dialect_for
from conformance.recordings.cassette import HttpResponse, load_cassette
from conformance.replay.render import kept_headers, render
from conformance.replay.transports import transport_for
from conformance.replay.transports.base import Route

_CHUNK = {
    "id": "chatcmpl-1",
    "object": "chat.completion.chunk",
    "created": 1,
    "model": "m",
    "choices": [{"index": 0, "delta": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],
}
_STREAM = f"data: {json.dumps(_CHUNK)}\n\ndata: [DONE]\n\n".encode()


def _served_as(headers: dict[str, tuple[str, ...]], route: Route) -> tuple[str, bytes, dict[str, str]]:
    recorded = HttpResponse(200, headers, _STREAM)
    served = dialect_for("openai-chat").served(recorded)
    answer = render(transport_for("openai-chat"), recorded, served, route)
    return answer.headers["content-type"], answer.body, dict(answer.headers)


def test_a_stream_recorded_without_headers_goes_out_as_an_event_stream() -> None:
    # A recorder that kept no headers: a client that asked for a stream checks the content type
    # before it reads an event, and refuses an `application/json` one.
    content_type, body, _ = _served_as({}, Route("turn", stream=True, framing="sse"))
    assert content_type.startswith("text/event-stream")
    assert body == _STREAM  # the recorded bytes, unchanged


def test_a_stream_recorded_without_headers_goes_out_whole_as_json_when_asked_so() -> None:
    content_type, body, _ = _served_as({}, Route("turn", stream=False, framing="json"))
    assert content_type == "application/json"
    assert json.loads(body)["choices"][0]["message"]["content"] == "hi"


def test_the_recorded_content_type_is_kept_when_there_is_one() -> None:
    recorded_type = ("text/event-stream; charset=utf-8",)
    content_type, _, _ = _served_as({"content-type": recorded_type}, Route("turn", stream=True, framing="sse"))
    assert content_type == recorded_type[0]


def test_scrubbed_headers_are_not_served() -> None:
    # `set-cookie: <scrubbed>` is a cookie without a name; Reactor Netty (Spring AI) fails the request.
    headers = {
        "set-cookie": ("<scrubbed>", "<scrubbed>"),
        "openai-organization": ("<scrubbed>",),
        "x-request-id": ("req_1",),
        "content-length": ("12",),
    }
    assert kept_headers(headers) == {"x-request-id": "req_1"}
    _, _, served = _served_as(headers, Route("turn", stream=True, framing="sse"))
    assert "set-cookie" not in served and served["x-request-id"] == "req_1"


def _first_answer(corpus: Corpus, scenario_id: str) -> HTTPMessage:
    scenario = corpus.scenarios[scenario_id]
    request = load_cassette(corpus.cassette_path(scenario)).interactions[0].request
    with ScenarioServer(corpus) as server:
        base = server.add(scenario).base_url
        sent = urllib.request.Request(
            base + "/chat/completions",
            data=request.body,
            headers={"content-type": "application/json", "authorization": "Bearer conformance"},
            method="POST",
        )
        with urllib.request.urlopen(sent, timeout=30) as answer:
            headers: HTTPMessage = answer.headers
            return headers


def test_the_replay_server_sends_one_date_the_recorded_one(corpus: Corpus) -> None:
    # http.server adds a Date of its own; beside the recorded one a client reads the two joined, which
    # is no date (the AI SDK's Bedrock provider threw "Invalid time value").
    headers = _first_answer(corpus, "openai-chat/recorded/openllmetry-agno-streaming-with-tools")
    assert headers.get_all("date") == ["Sun, 30 Nov 2025 10:55:41 GMT"]
    assert headers.get_all("set-cookie") is None  # recorded as <scrubbed>
    assert headers.get_content_type() == "text/event-stream"


def test_the_replay_server_dates_an_answer_recorded_without_one(corpus: Corpus) -> None:
    headers = _first_answer(corpus, "openai-chat/one-call")
    assert len(headers.get_all("date") or []) == 1
