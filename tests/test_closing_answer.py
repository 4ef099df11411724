"""The suite's closing answer: a recording that ends on the provider's calls is played to a real client,
the request carrying the results is judged, and the verdict says the last answer was the suite's.

For every API: a recording cut after its first response (calls for the client) is played to the
official SDKs, streaming as recorded and the other way, in process and over the replay server; a
correct client passes, one whose results request breaks the ids fails with the violation of what it
broke, located in that request. The corpus's own recordings that end on calls are played too.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

for _sdk in ("openai", "anthropic", "google.genai", "botocore", "mistralai", "cohere", "ollama"):
    pytest.importorskip(_sdk, reason="the closing-answer tests run the official SDKs (the `sdk` extra)")

from conformance.clients.official_sdks import ADAPTER, Options, official_sdks  # noqa: E402
from conformance.clients.official_sdks.common import chat_tool  # noqa: E402
from conformance.connectors.client import run_client  # noqa: E402
from conformance.corpus.loading import Corpus, Scenario, load_corpus  # noqa: E402
from conformance.engine.dialects import dialect_for  # noqa: E402
from conformance.engine.outcomes import CaseResult  # noqa: E402
from conformance.engine.requests_view import requests_text  # noqa: E402
from conformance.engine.rules import check  # noqa: E402
from conformance.recordings.cassette import load_cassette  # noqa: E402
from conformance.replay import closing  # noqa: E402
from conformance.replay.session import ClientRun, ReplaySession  # noqa: E402
from conformance.replay.transports import supported_apis, transport_for  # noqa: E402
from conformance.replay.transports.base import Request  # noqa: E402
from conformance.replay.verdicts import client_verdict, codec_only, scenario_context  # noqa: E402
from conformance.running.handover import client_run, client_run_data  # noqa: E402
from conformance.running.runner import RunOptions, run_scenario  # noqa: E402

# One scenario per API whose first response holds calls for the client, cut there: a recording that
# ends on the provider's calls. Each passes through the official SDKs when played whole.
CUT: dict[str, str] = {
    "openai-chat": "openai-chat/parallel-results-reversed",
    "openai-responses": "openai-responses/parallel-results-reversed",
    "azure-foundry": "azure-foundry/parallel-function-calls",
    "openresponses": "openresponses/streamed-parallel-calls",
    "mistral-responses": "mistral-responses/streamed-parallel-calls",
    "ollama-responses": "ollama-responses/parallel-results-reversed",
    "anthropic-messages": "anthropic-messages/parallel-different-tools",
    "ollama-messages": "ollama-messages/streamed-parallel-calls",
    "gemini": "gemini/streamed-sse-parallel-calls",
    "gemini-interactions": "gemini-interactions/parallel-results-reversed",
    "bedrock-converse": "bedrock-converse/streamed-parallel-calls",
    "mistral-chat": "mistral-chat/parallel-results-reversed",
    "kimi-chat": "kimi-chat/streamed-parallel-calls",
    "cohere-v2": "cohere-v2/streamed-parallel-calls",
    # ollama-python drops the ids Ollama serves (tests/test_client_official_sdks.py): a server without ids.
    "ollama-chat": "ollama-chat/id-less-parallel-same-tool",
}
REPLAYS = ("in-process", "server")


def test_every_api_has_a_closing_answer() -> None:
    assert set(CUT) == set(supported_apis()) == closing.shaped_apis()


@dataclasses.dataclass(frozen=True)
class Cut:
    scenario: Scenario
    path: Path


def _cut(corpus: Corpus, scenario_id: str, where: Path) -> Cut:
    """The scenario as a recording that ends after its first response."""
    scenario = corpus.scenarios[scenario_id]
    raw = yaml.safe_load(corpus.cassette_path(scenario).read_text(encoding="utf-8"))
    raw["interactions"] = raw["interactions"][:1]
    path = where / "cut.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return Cut(dataclasses.replace(scenario, turns=scenario.turns[:1]), path)


def _play(cut: Cut, corpus: Corpus, stream: bool, replay: str) -> tuple[ClientRun, CaseResult]:
    scenario = cut.scenario
    options = Options(stream=stream)
    fn = official_sdks(options).clients[scenario.api]
    dialect = dialect_for(scenario.api)
    ctx = scenario_context(corpus, scenario, "default")
    run = run_client(fn, scenario, cut.path, dialect, lambda exchange: check(exchange, ctx), replay=replay)  # type: ignore[arg-type]
    return run, client_verdict(scenario, run, ctx, dialect)


@pytest.fixture
def broken_results(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """A client whose request after the recording sends other ids than the ones served: each served
    call id in its body is replaced (an id-less call gets one the provider never issued). Yields the
    ids it replaced."""
    replaced: list[str] = []
    handle = ReplaySession.handle

    def breaking(self: ReplaySession, request: Request) -> Any:
        route = self.transport.route(request)
        if route is None or route.kind != "turn" or self.sent != len(self.recorded.interactions):
            return handle(self, request)
        body = request.body.decode()
        for call in self.served(self.sent - 1).calls:
            if call.call_id:
                replaced.append(call.call_id)
                body = body.replace(json.dumps(call.call_id), json.dumps(f"{call.call_id}x"))
        if not replaced:  # Ollama without ids: a result that names a call no response issued
            body = body.replace('"role":"tool"', '"role":"tool","tool_call_id":"call_forged"')
            body = body.replace('"role": "tool"', '"role": "tool", "tool_call_id": "call_forged"')
            replaced.append("(none)")
        return handle(self, dataclasses.replace(request, body=body.encode()))

    monkeypatch.setattr(ReplaySession, "handle", breaking)
    yield replaced


@pytest.mark.parametrize("replay", REPLAYS)
@pytest.mark.parametrize("api", sorted(CUT))
def test_a_correct_client_is_judged_on_the_results_it_sends_after_the_recording(
    corpus: Corpus, api: str, replay: str, tmp_path: Path
) -> None:
    cut = _cut(corpus, CUT[api], tmp_path)
    assert codec_only(cut.scenario) is None
    for stream in (cut.scenario.stream, not cut.scenario.stream):
        run, result = _play(cut, corpus, stream, replay)
        where = f"{api} streamed={stream}: {result.outcome}: {result.summary}\n{result.detail}"
        assert (run.recorded, run.closing, run.sent) == (1, 1, 2), where
        assert result.outcome == "pass", where
        assert result.violations == [], where
        assert result.suite_answered, where
        assert f"{closing.NOTE} (response[1])" in result.summary, where
        # The results request is judged: it is in the exchange, its answer the suite's text turn.
        final = run.exchange.turns[1]
        assert final.expected_request is None and final.served.calls == () and closing.TEXT in final.served.text


@pytest.mark.parametrize("api", sorted(CUT))
def test_a_client_that_breaks_the_ids_in_the_results_fails_there(
    corpus: Corpus, api: str, tmp_path: Path, broken_results: list[str]
) -> None:
    cut = _cut(corpus, CUT[api], tmp_path)
    run, result = _play(cut, corpus, cut.scenario.stream, "server")
    where = f"{api}: {result.outcome}: {result.summary}\n{result.detail}"
    assert broken_results, where
    assert result.outcome == "fail", where
    codes = {v.code for v in result.errors}
    expected = {"pairing/orphan-result"} if broken_results == ["(none)"] else {"roundtrip/id-altered"}
    assert expected <= codes, where
    assert all(v.location.startswith("request[1]") for v in result.errors), where
    assert result.suite_answered or run.refused, where  # answered by the suite, or with the provider's error


@pytest.mark.parametrize("api", ["openai-chat", "anthropic-messages", "bedrock-converse", "gemini"])
def test_the_closing_answer_has_the_recordings_envelope(corpus: Corpus, api: str) -> None:
    """Same status, headers and model; ids of the recorded form; streamed where the recording streamed."""
    scenario = corpus.scenarios[CUT[api]]
    recorded = load_cassette(corpus.cassette_path(scenario))
    cut = dataclasses.replace(recorded, interactions=recorded.interactions[:1])
    dialect, transport = dialect_for(api), transport_for(api)
    answer = closing.closing_interaction(scenario.id, cut, dialect, transport)
    assert answer is not None and answer.index == 1
    last = recorded.interactions[0].response
    assert answer.response.status == last.status
    assert answer.response.headers.get("content-type") == last.headers.get("content-type")
    served, before = dialect.served(answer.response, "response[1]"), dialect.served(last, "response[0]")
    assert served.stream == before.stream == scenario.stream
    body, first = transport.body_of(served.payload), transport.body_of(before.payload)
    for key in ("id", "model", "modelVersion", "responseId"):
        if key in first:
            assert isinstance(body.get(key), str) and len(body[key]) == len(first[key])
            same = key in ("model", "modelVersion")
            assert (body[key] == first[key]) == same, key
            prefix = re.match(r"^[a-z][a-z0-9]*[_-]", first[key])
            assert prefix is None or body[key].startswith(prefix.group(0)), key
    # A recording that ends on text (or on the provider's own tools) is played as it is.
    assert closing.closing_interaction(scenario.id, recorded, dialect, transport) is None


def test_ids_keep_their_form() -> None:
    mint = closing._minter("s")
    for recorded in (
        "chatcmpl-Dx0XpqH8w09uBXwq1zFGYdETjtnEl",
        "resp_0bedf6e1ffba28050069e2f401ae1c8196be360fd5993c96de",
        "msg_01LZDJCvBkpvzQxKUK1YXzwc",
        "e6d757a9-f0f3-40fe-9b8a-44cdc3bd18a7",
        "67000ff5fb1a4bbd85ae87223d1593b1",
    ):
        minted = mint(recorded)
        assert minted != recorded and len(minted) == len(recorded) and minted == mint(recorded)
        kinds = [(c.isdigit(), c.islower(), c.isupper()) if c.isalnum() else c for c in recorded]
        hexadecimal = all(c in "0123456789abcdef-_" for c in recorded.split("_")[-1].split("-", 1)[-1])
        if not hexadecimal:
            assert [(c.isdigit(), c.islower(), c.isupper()) if c.isalnum() else c for c in minted] == kinds
        assert minted.split("_")[0] == recorded.split("_")[0] or "_" not in recorded
    assert mint(None) is None and mint("") == ""


def test_a_client_that_never_sends_the_results_leaves_the_calls_unanswered(corpus: Corpus, tmp_path: Path) -> None:
    import openai

    cut = _cut(corpus, CUT["openai-chat"], tmp_path)

    def asks_once(loop: Any) -> None:
        client = openai.OpenAI(base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
        tools: Any = [chat_tool(t) for t in loop.tools]
        client.chat.completions.create(
            model=loop.model, messages=[{"role": "user", "content": loop.prompt}], tools=tools
        )

    ctx = scenario_context(corpus, cut.scenario, "default")
    dialect = dialect_for("openai-chat")
    run = run_client(asks_once, cut.scenario, cut.path, dialect, lambda exchange: check(exchange, ctx))
    result = client_verdict(cut.scenario, run, ctx, dialect)
    assert result.outcome == "fail" and not result.suite_answered
    assert [v.code for v in result.errors] == ["pairing/calls-unanswered"]
    assert "the client never sent the results of response[0]'s calls" in result.summary
    assert "not requested" not in result.errors[0].message


def test_the_mark_survives_the_worker_handover_and_the_results_file(corpus: Corpus, tmp_path: Path) -> None:
    """An isolated run rebuilds the exchange in the parent: the closing answer is made there again."""
    cut = _cut(corpus, CUT["anthropic-messages"], tmp_path)
    run, result = _play(cut, corpus, False, "in-process")
    scenario, dialect = cut.scenario, dialect_for("anthropic-messages")
    ctx = scenario_context(corpus, scenario, "default")
    handed = client_run(client_run_data(run), scenario, load_cassette(cut.path), dialect, ctx, replayed=True)
    assert handed.closing == 1 and len(handed.exchange.turns) == 2
    again = client_verdict(scenario, handed, ctx, dialect)
    assert (again.outcome, again.summary, again.suite_answered) == (result.outcome, result.summary, True)
    data = again.to_json()
    assert data["suite_answered"] is True
    assert CaseResult.from_json(data).suite_answered
    listing = requests_text(again.requests or [])
    assert "request[1] as recorded: none, the recording ends before it" in listing


# --- the corpus's own recordings that end on calls -------------------------------------------------

_CORPUS = load_corpus()
ENDS_ON_CALLS = sorted(
    s.id
    for s in _CORPUS.scenarios.values()
    if s.recorded and codec_only(s) is None and s.turns and any(not c.provider_executed for c in s.turns[-1].calls)
)
# ollama-python drops the ids the server issues (tests/test_client_official_sdks.py, _OLLAMA_IDS).
_DROPS_IDS = {
    "ollama-chat/recorded/openinference-chat-with-callable-tool",
    "ollama-chat/recorded/openinference-chat-with-tool-call",
}


@pytest.mark.parametrize("scenario_id", ENDS_ON_CALLS)
def test_every_recording_that_ends_on_calls_is_judged(corpus: Corpus, scenario_id: str) -> None:
    result = run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus, options=RunOptions(timeout=60))
    where = f"{scenario_id}: {result.outcome}: {result.summary}\n{result.detail}"
    expected = ("fail", {"roundtrip/empty-id"}) if scenario_id in _DROPS_IDS else ("pass", set())
    assert (result.outcome, {v.code for v in result.errors}) == expected, where
    # Either the results request was answered with the closing text, or it forced a tool call (the
    # recording's tool choice sent again), which the provider answers with another call, never text:
    # the replay then ends the conversation at that request, judged.
    assert result.suite_answered != ("forces a tool call" in result.summary), where


def test_the_corpus_holds_recordings_that_end_on_calls_on_many_apis() -> None:
    assert len({_CORPUS.scenarios[i].api for i in ENDS_ON_CALLS}) >= 8


def test_a_client_in_any_language_gets_the_closing_answer_over_http(corpus: Corpus, tmp_path: Path) -> None:
    """Over the replay server, as a harness or curl reaches it: the listing counts the closing turn, and
    the results request (here the constructed scenario's own, recorded before its second response) is
    answered by it, streamed as the request asks."""
    import urllib.request

    from conformance.replay.serve_listing import scenario_entry
    from conformance.replay.server import ReplayServer

    scenario_id = CUT["openai-chat"]
    cut = _cut(corpus, scenario_id, tmp_path)
    ctx = scenario_context(corpus, cut.scenario, "default")
    session = ReplaySession.of(cut.scenario, load_cassette(cut.path), lambda exchange: check(exchange, ctx))
    whole = load_cassette(corpus.cassette_path(corpus.scenarios[scenario_id]))
    with ReplayServer() as server:
        base = server.add(session, "/v1")
        entry = scenario_entry(session, server.url, base, server.tools_url(scenario_id))
        assert (entry["turns"], entry["closing"]) == (2, True)
        for k, interaction in enumerate(whole.interactions[:2]):
            body = json.loads(interaction.request.body)
            body["stream"] = k == 1  # the closing answer streamed, though the recording was not
            request = urllib.request.Request(f"{base}/chat/completions", data=json.dumps(body).encode(), method="POST")
            with urllib.request.urlopen(request, timeout=10) as response:
                text = response.read().decode()
                kind = response.headers["content-type"]
        assert kind.startswith("text/event-stream") and text.rstrip().endswith("data: [DONE]")
        chunks = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]
        assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]) == closing.TEXT
        assert [c for c in chunks if c["choices"]][-1]["choices"][0]["finish_reason"] == "stop"
        assert {c["model"] for c in chunks} == {json.loads(whole.interactions[0].response.body)["model"]}
        run = session.finish()
    result = client_verdict(cut.scenario, run, ctx, dialect_for("openai-chat"))
    assert (result.outcome, result.suite_answered) == ("pass", True), result.summary


def _insists_on_calls(force: bool) -> Callable[[Any], None]:
    """A loop that, like the AI SDK, raises when an answer holds no call though it asked for one."""
    import openai

    def loop(tool_loop: Any) -> None:
        client = openai.OpenAI(base_url=tool_loop.base_url, api_key=tool_loop.api_key, max_retries=0)
        tools: Any = [
            {"type": "function", "function": {"name": t["name"], "parameters": t["parameters"]}}
            for t in tool_loop.tools
        ]
        messages: list[Any] = [{"role": "user", "content": tool_loop.prompt}]
        choice: Any = "required" if force else "auto"
        while True:
            message = (
                client.chat.completions.create(
                    model=tool_loop.model, messages=messages, tools=tools, tool_choice=choice
                )
                .choices[0]
                .message
            )
            if not message.tool_calls:
                raise RuntimeError("the answer holds no tool call")
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                output = tool_loop.call_tool(call.function.name, json.loads(call.function.arguments))
                messages.append({"role": "tool", "tool_call_id": call.id, "content": output})

    return loop


@pytest.mark.parametrize("force", [True, False], ids=["forced", "free"])
def test_a_client_that_forces_a_call_is_not_answered_with_the_closing_text(
    corpus: Corpus, tmp_path: Path, force: bool
) -> None:
    cut = _cut(corpus, CUT["openai-chat"], tmp_path)
    ctx = scenario_context(corpus, cut.scenario, "default")
    dialect = dialect_for("openai-chat")
    run = run_client(_insists_on_calls(force), cut.scenario, cut.path, dialect, lambda exchange: check(exchange, ctx))
    result = client_verdict(cut.scenario, run, ctx, dialect)
    assert run.sent == 2 and run.fault is not None
    if force:  # the provider answers a forced request with a call: the replay ends the conversation there
        assert (result.outcome, result.violations) == ("pass", []), result.summary
        assert 'forces a tool call (tool_choice "required")' in result.summary
    else:  # a client that raises on a text answer it allowed is an error, as ever
        assert result.outcome == "error" and "the answer holds no tool call" in result.summary


def test_an_openai_stream_carries_its_usage_in_a_chunk_of_its_own(corpus: Corpus) -> None:
    """OpenAI streams usage after the finish, in a chunk whose `choices` is empty (stream_options.include_usage),
    as the recordings show; openai-java's accumulator takes any chunk with usage for that one, so usage on the
    finish chunk (the suite's earlier closing stream) lost the finish and the text with it."""
    scenario = corpus.scenarios["openai-chat/recorded/crewai-azure-streaming-tool-call-events"]
    recorded = load_cassette(corpus.cassette_path(scenario))
    answer = closing.closing_interaction(
        scenario.id, recorded, dialect_for("openai-chat"), transport_for("openai-chat")
    )
    assert answer is not None
    chunks = [
        json.loads(line[5:])
        for line in answer.response.body.decode().splitlines()
        if line.startswith("data:") and line[5:].strip() != "[DONE]"
    ]
    with_usage = [c for c in chunks if c.get("usage")]
    assert len(with_usage) == 1 and with_usage[0]["choices"] == [] and with_usage[0] is chunks[-1]
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
