"""The client connector: real clients against replayed cassettes, provider errors, recording, faults."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.connectors.client import ClientAdapter, ToolLoop, base_url_of
from conformance.corpus.loading import Corpus, load_corpus
from conformance.lint import lint_path
from conformance.recordings.cassette import load_cassette
from conformance.running.runner import RunOptions, run_scenario

openai = pytest.importorskip("openai", reason="the client connector tests drive the official openai SDK")

from conformance.clients.openai_sdk import ADAPTER as OPENAI_SDK  # noqa: E402
from conformance.clients.openai_sdk import chat_tool_loop  # noqa: E402


def _client(fn: Any, name: str = "test-client") -> ClientAdapter:
    return ClientAdapter(name=name, version="0", clients={"openai-chat": fn})


@pytest.mark.parametrize(
    "scenario_id",
    ["openai-chat/one-call", "openai-chat/parallel-results-reversed", "openai-chat/streamed-parallel-calls"],
)
def test_the_openai_sdk_passes_through_a_replayed_cassette(scenario_id: str, corpus: Corpus) -> None:
    result = run_scenario(OPENAI_SDK, corpus.scenarios[scenario_id], corpus)
    assert result.outcome == "pass", result.summary
    assert result.violations == []


def test_a_request_the_provider_rejects_gets_the_providers_error(corpus: Corpus) -> None:
    """The client sends the tool's name as the call's id and its output as the tool message's (Genkit Go
    before PR #3501); the replay answers with OpenAI's 400 for a tool message that answers no call."""
    seen: list[BaseException] = []

    def name_as_id(loop: ToolLoop) -> None:
        client = openai.OpenAI(base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
        tools: Any = [
            {"type": "function", "function": {"name": t["name"], "parameters": t["parameters"]}} for t in loop.tools
        ]
        messages: list[Any] = [{"role": "user", "content": loop.prompt}]
        message = client.chat.completions.create(model=loop.model, messages=messages, tools=tools).choices[0].message
        calls = message.tool_calls or []
        messages.append(
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": c.function.name, "type": "function", "function": c.function.model_dump()} for c in calls
                ],
            }
        )
        for call in calls:
            output = loop.call_tool(call.function.name, json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": output, "content": call.function.name})
        try:
            client.chat.completions.create(model=loop.model, messages=messages, tools=tools)
        except openai.BadRequestError as exc:
            seen.append(exc)
            raise

    result = run_scenario(_client(name_as_id), corpus.scenarios["openai-chat/one-call"], corpus)
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {
        "roundtrip/id-altered",
        "pairing/orphan-result",
        "pairing/missing-result",
    }
    assert "provider's error" in result.summary
    assert seen and seen[0].status_code == 400
    provider_error = result.errors[0].provider_error
    assert provider_error and provider_error in str(seen[0])


def test_unplayed_interactions_are_reported(corpus: Corpus) -> None:
    def stops_after_the_first_response(loop: ToolLoop) -> None:
        client = openai.OpenAI(base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
        tools: Any = [
            {"type": "function", "function": {"name": t["name"], "parameters": t["parameters"]}} for t in loop.tools
        ]
        messages: Any = [{"role": "user", "content": loop.prompt}]
        client.chat.completions.create(model=loop.model, messages=messages, tools=tools)

    result = run_scenario(_client(stops_after_the_first_response), corpus.scenarios["openai-chat/one-call"], corpus)
    assert result.outcome == "fail"
    assert "1 of 2 recorded interaction(s) were never requested" in result.summary
    [stopped] = [v for v in result.violations if v.code == "pairing/calls-unanswered"]
    assert stopped.location == "response[0]"
    assert "call_Vq3XbR0LkS8mJ2tN6yPw4cDe (get_weather)" in stopped.message


def test_a_session_that_aborts_on_a_provider_reused_id_leaves_the_calls_unanswered(corpus: Corpus) -> None:
    # The provider serves call_0 in both turns: sent back as served, each in its own turn, it is right.
    from conformance.reproductions.orca_agent import ORCA_AGENT_67

    scenario = corpus.scenarios["openai-chat/provider-reuses-id-across-turns"]
    aborted = run_scenario(ORCA_AGENT_67, scenario, corpus)
    assert [v.code for v in aborted.violations] == ["pairing/calls-unanswered"]
    assert aborted.violations[0].location == "response[1]"
    assert run_scenario(OPENAI_SDK, scenario, corpus).outcome == "pass"


def test_a_client_that_raises_is_an_error_with_its_traceback(corpus: Corpus) -> None:
    def broken(loop: ToolLoop) -> None:
        raise RuntimeError("the framework fell over")

    result = run_scenario(_client(broken), corpus.scenarios["openai-chat/one-call"], corpus)
    assert result.outcome == "error"
    assert "RuntimeError: the framework fell over" in result.summary
    assert "Traceback" in result.detail


def test_a_client_that_hangs_times_out_and_the_run_goes_on(corpus: Corpus) -> None:
    def hangs(loop: ToolLoop) -> None:
        time.sleep(30)

    adapter = ClientAdapter(name="hangs", version="0", clients={"openai-chat": hangs})
    started = time.perf_counter()
    options = RunOptions(timeout=0.5)
    first = run_scenario(adapter, corpus.scenarios["openai-chat/one-call"], corpus, options=options)
    assert first.outcome == "timeout"
    assert "0.5 s" in first.summary
    assert time.perf_counter() - started < 5
    # The next case runs normally; its own limit is generous, as a first SDK run on a loaded machine
    # (two workers on two cores) takes longer than the hung case's half second.
    after = run_scenario(OPENAI_SDK, corpus.scenarios["openai-chat/one-call"], corpus, options=RunOptions(timeout=30))
    assert after.outcome == "pass"


def test_a_client_that_hangs_is_judged_on_what_it_sent_before(corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent / "adapters"))
    from hostile import NAME_AS_ID_THEN_HANG  # type: ignore[import-not-found]

    options = RunOptions(timeout=5, show_requests=True)
    result = run_scenario(NAME_AS_ID_THEN_HANG, corpus.scenarios["openai-chat/one-call"], corpus, options=options)
    assert result.outcome == "timeout", result.summary
    assert "by then it had sent 2 of the 2 request(s) the replay holds" in result.summary
    assert {v.code for v in result.errors} == {"roundtrip/id-altered"}
    assert result.requests is not None and len(result.requests) == 2
    silent = run_scenario(
        ClientAdapter(name="hangs", version="0", clients={"openai-chat": lambda loop: time.sleep(30)}),
        corpus.scenarios["openai-chat/one-call"],
        corpus,
        options=RunOptions(timeout=0.5),
    )
    assert silent.summary.endswith("it had sent no request by then")


def test_a_codec_that_hangs_times_out(corpus: Corpus) -> None:
    from conformance.connectors.contract import CodecAdapter

    class Hangs:
        def decode(self, response: dict[str, Any]) -> Any:
            time.sleep(30)

        def encode(self, conversation: Any) -> dict[str, Any]:
            return {"model": "m", "messages": []}

    adapter = CodecAdapter(name="hangs", version="0", codecs={"openai-chat": Hangs()})
    result = run_scenario(adapter, corpus.scenarios["openai-chat/one-call"], corpus, options=RunOptions(timeout=0.5))
    assert result.outcome == "timeout"


def test_the_base_url_comes_from_the_recorded_uri() -> None:
    assert base_url_of("https://api.openai.com/v1/chat/completions", "openai-chat") == "https://api.openai.com/v1"
    gemini = "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions"
    assert base_url_of(gemini, "openai-chat") == "https://generativelanguage.googleapis.com/v1beta/openai"
    assert base_url_of("https://api.anthropic.com/v1/messages", "anthropic-messages") == "https://api.anthropic.com"


# --- recording against a local server -------------------------------------------------------

SECRET = "sk-live-SECRET-0123456789"


class _FakeOpenAI(BaseHTTPRequestHandler):
    """Serves a tool call, then a final answer, as OpenAI Chat Completions would."""

    turn = 0

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        if type(self).turn == 0:
            message: dict[str, Any] = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_RecordedLocally0001",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                    }
                ],
            }
            finish = "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": "It is 18 °C in Paris."}, "stop"
        type(self).turn += 1
        body = json.dumps(
            {
                "id": f"chatcmpl-local{type(self).turn}",
                "object": "chat.completion",
                "created": 1767225600,
                "model": "gpt-4o-mini",
                "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
            }
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("set-cookie", f"session={SECRET}; Path=/")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def local_server() -> Iterator[str]:
    _FakeOpenAI.turn = 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


SCENARIO = {
    "id": "openai-chat/recorded-locally",
    "kind": "scenario",
    "api": "openai-chat",
    "description": "A tool loop recorded against a local server",
    "cassette": "openai-chat/recorded-locally.yaml",
    "provenance": "recorded",
    "wire_types": ["openai-chat/ChatCompletionMessageToolCall", "openai-chat/ChatCompletionRequestToolMessage"],
    "features": ["single-call"],
    "model": "gpt-4o-mini",
    "prompt": "What is the weather in Paris?",
    "tools": [
        {
            "name": "get_weather",
            "description": "Current weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        }
    ],
    "turns": [
        {
            "calls": [
                {
                    "id": "call_RecordedLocally0001",
                    "name": "get_weather",
                    "arguments": {"city": "Paris"},
                    "output": '{"temp_c":18}',
                }
            ]
        },
        {"text": "It is 18 °C in Paris."},
    ],
}


def test_record_once_writes_a_scrubbed_cassette_that_replays_and_lints(
    tmp_path: Path, local_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = tmp_path / "cases" / "scenarios" / "openai-chat"
    cases.mkdir(parents=True)
    (cases / "recorded-locally.yaml").write_text(yaml.safe_dump(SCENARIO, sort_keys=False))
    cassettes = tmp_path / "cassettes"
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    corpus = load_corpus([tmp_path / "cases"], [cassettes])
    scenario = corpus.scenarios["openai-chat/recorded-locally"]

    recorded = run_scenario(OPENAI_SDK, scenario, corpus, options=RunOptions(record_mode="once", base_url=local_server))
    assert recorded.outcome == "pass", recorded.summary
    path = cassettes / "openai-chat" / "recorded-locally.yaml"
    text = path.read_text()
    assert SECRET not in text
    assert "<scrubbed>" in text
    assert len(load_cassette(path)) == 2

    # The recording replays (no server needed now) and lints clean.
    monkeypatch.delenv("OPENAI_API_KEY")
    replayed = run_scenario(OPENAI_SDK, scenario, corpus, options=RunOptions(base_url=local_server))
    assert replayed.outcome == "pass", replayed.summary
    assert _FakeOpenAI.turn == 2  # the replay did not reach the server
    report = lint_path(path, corpus)
    assert report.checked == {"openai-chat": 2}
    assert report.violations == []


def test_every_secret_header_and_key_parameter_is_scrubbed(tmp_path: Path, local_server: str) -> None:
    import httpx
    import vcr  # type: ignore[import-untyped]

    from conformance.recordings.recording import SECRET_HEADERS, vcr_settings

    settings = vcr_settings("once", {"filter_headers": ["x-custom-token"]})
    path = tmp_path / "secrets.yaml"
    headers = {name: SECRET for name in SECRET_HEADERS} | {"x-custom-token": SECRET}
    with vcr.VCR(**settings["vcr"]).use_cassette(str(path), **settings["cassette"]):
        httpx.post(f"{local_server}/chat/completions?key={SECRET}&api_key={SECRET}", json={}, headers=headers)
    text = path.read_text()
    assert SECRET not in text
    assert text.count("<scrubbed>") == len(SECRET_HEADERS) + 2  # every header, the user's, the cookie
    assert "api_key=%3Cscrubbed%3E" in text and "key=%3Cscrubbed%3E" in text


def test_a_users_vcr_config_cannot_switch_scrubbing_off() -> None:
    from conformance.recordings.recording import vcr_settings

    settings = vcr_settings("none", {"filter_headers": [], "match_on": ["body"], "record_mode": "all"})
    names = {h for h, _ in settings["vcr"]["filter_headers"]}
    assert {"authorization", "x-api-key", "x-goog-api-key", "api-key", "cookie"} <= names
    assert settings["vcr"]["match_on"] == ("method", "path")
    assert settings["vcr"]["record_mode"] == "none"


def test_plugin_runs_a_client_adapter_with_pytest_recording_settings(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
import pytest

@pytest.fixture
def vcr_config():
    return {"filter_headers": ["x-team-token"]}
"""
    )
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=conformance.clients.openai_sdk:ADAPTER",
        "--conformance-api=openai-chat",
        "-k",
        "one-call or parallel-different-tools",
        "--record-mode=none",
        "-p",
        "no:randomly",
    )
    result.assert_outcomes(passed=2)


def test_chat_tool_loop_is_importable_without_running(corpus: Corpus) -> None:
    assert callable(chat_tool_loop)
    assert OPENAI_SDK.identity()["connector"] == "client"


def test_a_tool_that_names_its_call_gets_that_call_s_output_in_any_order() -> None:
    """Genkit Go runs parallel calls concurrently: two identical calls of one tool ask for their outputs in
    either order. Looked up by name and arguments alone, the first to ask got the first output, and a
    library that sends each result under its own call's id was told it paired them by position."""
    from conformance.connectors.client import ToolLoop

    def loop() -> ToolLoop:
        return ToolLoop(
            api="kimi-chat",
            model="m",
            prompt="p",
            stream=False,
            tools=[],
            base_url="http://127.0.0.1:1",
            outputs=[("get_weather", {}, "first"), ("get_weather", {}, "second")],
            output_ids=["functions.get_weather:0", "functions.get_weather:1"],
        )

    reversed_order = loop()
    assert reversed_order.call_tool("get_weather", {}, "functions.get_weather:1") == "second"
    assert reversed_order.call_tool("get_weather", {}, "functions.get_weather:0") == "first"
    unknown = loop()  # an id the library made up: by name and arguments, in order
    assert unknown.call_tool("get_weather", {}, "mine-7") == "first"
    assert unknown.call_tool("get_weather", {}) == "second"
