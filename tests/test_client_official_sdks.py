"""The official SDKs, each running its documented tool loop, against every scenario of every API.

Every scenario a client can be handed runs through `conformance.clients.official_sdks` in process
(vcrpy) and over the replay server, as recorded and forced to the other stream mode, and through
the alternatives SDKs offer: Responses after `previous_response_id`, the Anthropic tool runner over a
server-held thread, google-genai in either API version and with a model lookup, Ollama's `show`.

Each verdict is expected: `pass`, or one of the verdicts in `_expected`, each traced to what the
SDK sends (its installed source, file and line) or to the scenario itself. A verdict that changes
fails the test, whichever way.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

for _sdk in ("openai", "anthropic", "google.genai", "botocore", "mistralai", "cohere", "ollama"):
    pytest.importorskip(_sdk, reason="the official-SDK tests need the `sdk` extra")

from conformance.clients.official_sdks import ADAPTER, PACKAGES, Options, official_sdks  # noqa: E402
from conformance.connectors.client import ScenarioUnsupported, ToolLoop  # noqa: E402
from conformance.corpus.loading import Corpus, load_corpus  # noqa: E402
from conformance.engine.outcomes import CaseResult  # noqa: E402
from conformance.replay.session import ReplaySession  # noqa: E402
from conformance.replay.transports.base import Request  # noqa: E402
from conformance.running.runner import RunOptions, run_scenario  # noqa: E402

_CORPUS = load_corpus()
# Scenarios that begin with another API's history, and sessions of several runs, are for codec adapters only.
# Recorded scenarios end where their recording ended, which a generic tool loop may go past; the
# reference judges them (tests/test_recorded_corpus.py).
SCENARIOS = sorted(
    s.id for s in _CORPUS.scenarios.values() if s.history is None and "session" not in s.features and not s.recorded
)
REPLAYS = ("in-process", "server")
RESPONSES_APIS = ("openai-responses", "azure-foundry", "openresponses")


def _of(*apis: str) -> list[str]:
    return [i for i in SCENARIOS if _CORPUS.scenarios[i].api in apis]


@dataclass(frozen=True)
class Expected:
    outcome: str
    codes: frozenset[str] = frozenset()
    why: str = ""


PASS = Expected("pass")

# roundtrip/empty-id on every Ollama scenario whose server issued ids (v0.12.10 and later).
_OLLAMA_IDS = Expected(
    "fail",
    frozenset({"roundtrip/empty-id"}),
    "ollama-python 0.6.3 drops the tool call ids the server issues: ollama/_types.py:333-349, Message.ToolCall "
    "declares only `function`, so pydantic discards `id` when the response is parsed; and ollama/_client.py:1371-1375 "
    "(_copy_messages) validates every outgoing message through Message again, so even a `tool_call_id` an "
    "application adds is dropped. The calls go back without ids (ollama/ollama-python#667).",
)


def _expected(scenario_id: str, streams: bool, resends_history: bool = True) -> Expected:
    """The verdict of a run of the scenario by the official SDKs, streaming or not, resending the
    history or continuing a stored response."""
    if scenario_id == "openai-responses/namespaced-deferred-call" and not streams and resends_history:
        return Expected(
            "fail",
            frozenset({"roundtrip/opaque-dropped"}),
            "the guide's loop sends `response.output` back as input; openai-python validates the served item into "
            "ResponseFunctionToolCall, whose `async` is the field `async_` "
            "(openai/types/responses/response_function_tool_call.py:50), "
            "and dumps input models without aliases (openai/_utils/_transform.py:223, `model_dump(exclude_unset=True, "
            'mode="json")`), so the call goes back with `async_` and without `async`. Streamed, the item is built '
            "with `construct`, which keeps `async` as well, and the call goes back whole.",
        )
    if scenario_id == "openai-chat/gemini-compat-empty-ids":
        return Expected(
            "fail",
            frozenset({"roundtrip/empty-id", "pairing/orphan-result", "pairing/missing-result"}),
            'Gemini\'s OpenAI-compatible endpoint serves both calls with `"id": ""`; openai-python keeps it '
            "(openai/types/chat/chat_completion_message_function_tool_call.py:28, `id: str`) and the guide's loop "
            'sends the calls and both tool messages back with `""`, so neither result names its call.',
        )
    if scenario_id == "openai-chat/streamed-calls-without-ids":
        return Expected(
            "fail",
            frozenset({"roundtrip/empty-id", "pairing/orphan-result", "pairing/missing-result"}),
            "StepFun serves both calls without an id; openai-python keeps none (streamed: the accumulator at "
            'openai/lib/streaming/chat/_completions.py:447 leaves `id` unset; whole: `id: ""`), and the guide\'s loop '
            "sends the calls and their results back without ids, so neither result names its call.",
        )
    if scenario_id == "openai-chat/streamed-id-on-every-delta" and streams:
        return Expected(
            "fail",
            frozenset({"roundtrip/id-altered", "format/id-length"}),
            "DeepSeek repeats each call's id on every delta; openai-python's accumulator joins repeated strings "
            "(openai/lib/streaming/_deltas.py:33-34, `acc_value += delta_value`), so the ids go back repeated "
            "('call_00_...cEjcall_00_...cEj...'), too long for OpenAI's limit.",
        )
    if scenario_id == "openai-chat/streamed-indices-from-one" and streams:
        return Expected(
            "error",
            why="the gateway numbers the calls from index 1; openai-python's accumulator inserts the first at "
            "position 0 (openai/lib/streaming/_deltas.py:62-65, `acc_value.insert(index, ...)` on an empty list) and "
            "then reads `tool_calls[1]` (openai/lib/streaming/chat/_completions.py:447): IndexError.",
        )
    if scenario_id == "openai-chat/ollama-parallel-index-zero" and streams:
        return Expected(
            "fail",
            frozenset(
                {"roundtrip/call-lost", "roundtrip/id-altered", "roundtrip/arguments-altered", "roundtrip/name-altered"}
            ),
            "Ollama's OpenAI-compatible stream sends both calls at `index: 0`; openai-python's stream accumulator "
            "(openai/lib/streaming/chat/_completions.py:377) merges deltas by index and joins their strings "
            "(openai/lib/streaming/_deltas.py:33-34, `acc_value += delta_value`), so the two calls become one, "
            "id 'call_u4kq7zm2call_9xw3ptbd', name 'get_weatherget_weather', "
            'arguments \'{"city":"Paris"}{"city":"Tokyo"}\'.',
        )
    if scenario_id == "mistral-responses/parallel-results-reversed" and streams:
        return Expected(
            "skip",
            why="the recording's two Mistral calls have no item id; streamed, their argument events (which name "
            "their item by `item_id` alone) could not be told apart, so the replay cannot stream them",
        )
    if scenario_id == "openai-chat/custom-tool-call" and streams:
        return Expected(
            "skip",
            why="the recording's custom tool call has no Chat Completions stream form (openai-python's "
            "ChoiceDeltaToolCall has no custom variant), so the replay cannot stream it",
        )
    if scenario_id in (
        "ollama-chat/one-call",
        "ollama-chat/parallel-same-tool",
        "ollama-chat/streamed-parallel-calls",
        "ollama-chat/three-turn-chain",
    ):
        return _OLLAMA_IDS
    return PASS


def _streams(scenario_id: str, options: Options) -> bool:
    recorded = _CORPUS.scenarios[scenario_id].stream
    return recorded if options.stream is None else options.stream


def _run(corpus: Corpus, scenario_id: str, options: Options, replay: str) -> CaseResult:
    adapter = official_sdks(options) if options != Options() else ADAPTER
    run = RunOptions(timeout=60, replay=replay)  # type: ignore[arg-type]
    return run_scenario(adapter, corpus.scenarios[scenario_id], corpus, options=run)


def _check(result: CaseResult, expected: Expected) -> None:
    because = f" ({expected.why})" if expected.why else ""
    where = f"{result.case_id}: expected {expected.outcome}{because}; got {result.summary}\n{result.detail}"
    assert result.outcome == expected.outcome, where
    assert {v.code for v in result.errors} == set(expected.codes), where
    if expected.outcome == "pass":
        assert result.violations == [], where
    if expected.outcome == "skip":
        assert "cannot be served" in result.summary, where
    if expected.outcome == "fail" and not expected.codes:
        assert "never requested" in result.summary, where


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str, Any]]]:
    """Every request the replay receives, as (method, path, JSON body), whichever path it came by."""
    seen: list[tuple[str, str, Any]] = []
    handle = ReplaySession.handle

    def recording(self: ReplaySession, request: Request) -> Any:
        seen.append((request.method, request.path, request.json()))
        return handle(self, request)

    monkeypatch.setattr(ReplaySession, "handle", recording)
    yield seen


# --- every scenario, as the SDKs' guides run it ---------------------------------------------------


@pytest.mark.parametrize("replay", REPLAYS)
@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_every_scenario_as_recorded(corpus: Corpus, scenario_id: str, replay: str) -> None:
    options = Options()
    _check(_run(corpus, scenario_id, options, replay), _expected(scenario_id, _streams(scenario_id, options)))


@pytest.mark.parametrize("replay", REPLAYS)
@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_every_scenario_in_the_other_stream_mode(corpus: Corpus, scenario_id: str, replay: str) -> None:
    """Streaming against whole recorded responses, and whole requests against recorded streams."""
    options = Options(stream=not corpus.scenarios[scenario_id].stream)
    _check(_run(corpus, scenario_id, options, replay), _expected(scenario_id, _streams(scenario_id, options)))


# --- the alternatives the SDKs offer ---------------------------------------------------------------


@pytest.mark.parametrize("replay", REPLAYS)
@pytest.mark.parametrize("scenario_id", _of(*RESPONSES_APIS))
def test_responses_continue_after_previous_response_id(
    corpus: Corpus, scenario_id: str, replay: str, sent: list[tuple[str, str, Any]]
) -> None:
    options = Options(responses="previous-response-id")
    expected = _expected(scenario_id, _streams(scenario_id, options), resends_history=False)
    _check(_run(corpus, scenario_id, options, replay), expected)
    turns = [body for method, _, body in sent if method == "POST"]
    assert "previous_response_id" not in turns[0]
    for later in turns[1:]:
        # Only the new items after the stored response; or, after Foundry's OAuth consent, the same request again.
        assert later.get("previous_response_id") or later["input"] == turns[0]["input"], later
    assert all("store" not in body for body in turns)  # a response that is continued is stored, the default


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("replay", REPLAYS)
@pytest.mark.parametrize("scenario_id", _of("anthropic-messages"))
def test_the_anthropic_tool_runner_holds_the_history_in_a_thread(
    corpus: Corpus, scenario_id: str, replay: str, stream: bool, sent: list[tuple[str, str, Any]]
) -> None:
    options = Options(anthropic="tool-runner", stream=stream)
    _check(_run(corpus, scenario_id, options, replay), _expected(scenario_id, stream))
    turns = [body for method, _, body in sent if method == "POST"]
    assert turns[0]["thread"] == {"type": "create"}
    for later in turns[1:]:
        assert later["thread"]["type"] == "continue"
        assert "tools" not in later and len(later["messages"]) == 1  # only the new tool results


@pytest.mark.parametrize("version", ["v1", "v1beta"])
@pytest.mark.parametrize("scenario_id", _of("gemini"))
def test_google_genai_in_either_api_version_with_a_model_lookup(
    corpus: Corpus, scenario_id: str, version: str, sent: list[tuple[str, str, Any]]
) -> None:
    options = Options(gemini_api_version=version, gemini_model_lookup=True)
    for replay in REPLAYS:
        sent.clear()
        _check(_run(corpus, scenario_id, options, replay), _expected(scenario_id, _streams(scenario_id, options)))
        lookups = [path for method, path, _ in sent if method == "GET"]
        turns = [path for method, path, _ in sent if method == "POST"]
        assert len(lookups) == 1 and turns
        assert all(f"/{version}/models/" in path for path in lookups + turns)


@pytest.mark.parametrize("replay", REPLAYS)
@pytest.mark.parametrize("scenario_id", _of("gemini-interactions"))
def test_gemini_interactions_resend_the_steps_on_google_genais_default_version(
    corpus: Corpus, scenario_id: str, replay: str, sent: list[tuple[str, str, Any]]
) -> None:
    _check(_run(corpus, scenario_id, Options(), replay), _expected(scenario_id, _streams(scenario_id, Options())))
    turns = [(path, body) for method, path, body in sent if method == "POST"]
    assert len(turns) == len(corpus.scenarios[scenario_id].turns)
    for k, (path, body) in enumerate(turns):
        assert path == "/v1/interactions"  # google-genai 3.6.1's default API version
        assert body["store"] is False and "previous_interaction_id" not in body
        results = [s for s in body["input"] if s["type"] == "function_result"]
        assert len(results) == sum(len(t.client_calls) for t in corpus.scenarios[scenario_id].turns[:k])


@pytest.mark.parametrize("replay", REPLAYS)
@pytest.mark.parametrize("scenario_id", _of("gemini-interactions"))
def test_gemini_interactions_continue_after_previous_interaction_id(
    corpus: Corpus, scenario_id: str, replay: str, sent: list[tuple[str, str, Any]]
) -> None:
    options = Options(responses="previous-response-id", gemini_api_version="v1beta")
    _check(_run(corpus, scenario_id, options, replay), _expected(scenario_id, _streams(scenario_id, options)))
    turns = [(path, body) for method, path, body in sent if method == "POST"]
    assert all(path == "/v1beta/interactions" for path, _ in turns)
    assert "previous_interaction_id" not in turns[0][1]
    for _, later in turns[1:]:
        assert later["previous_interaction_id"].startswith("v1_")
        assert {s["type"] for s in later["input"]} == {"function_result"}  # only the new results


@pytest.mark.parametrize("replay", REPLAYS)
@pytest.mark.parametrize("scenario_id", _of("ollama-chat"))
def test_ollama_asks_show_before_chatting(
    corpus: Corpus, scenario_id: str, replay: str, sent: list[tuple[str, str, Any]]
) -> None:
    options = Options(ollama_show=True)
    _check(_run(corpus, scenario_id, options, replay), _expected(scenario_id, _streams(scenario_id, options)))
    assert sent[0][:2] == ("POST", "/api/show")


# --- the adapter itself ----------------------------------------------------------------------------


def test_the_adapter_names_each_sdks_installed_version() -> None:
    from importlib.metadata import version

    assert ADAPTER.name == "official-sdks"
    for package in PACKAGES:
        if package != "boto3":
            assert f"{package} {version(package)}" in ADAPTER.version
    assert set(ADAPTER.clients) == {s.api for s in _CORPUS.scenarios.values()}


@pytest.mark.parametrize(
    "api",
    [
        "anthropic-messages",
        "gemini",
        "gemini-interactions",
        "bedrock-converse",
        "mistral-chat",
        "cohere-v2",
        "ollama-chat",
    ],
)
def test_a_free_form_tool_the_api_lacks_is_declared_unsupported(api: str) -> None:
    loop = ToolLoop(
        api=api,
        model="m",
        prompt="p",
        stream=False,
        tools=[{"name": "apply_patch", "type": "custom", "description": "free-form input"}],
        base_url="http://127.0.0.1:9",  # never reached: the client declares the scenario unsupported first
    )
    with pytest.raises(ScenarioUnsupported, match="custom"):
        ADAPTER.clients[api](loop)


def test_a_mistral_stream_served_from_a_whole_response_carries_each_call_whole() -> None:
    """Mistral streams every call whole, and its SDK's chunk model requires a name on each call delta."""
    from mistralai.client.models import CompletionChunk

    from conformance.replay.transports import transport_for

    body = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "mistral-large-latest",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"id": "Qm7TzR2vX", "type": "function", "function": {"name": "a", "arguments": "{}"}},
                        {"id": "Pz8RtY3uW", "type": "function", "function": {"name": "b", "arguments": '{"x":1}'}},
                    ],
                },
            }
        ],
    }
    events = transport_for("mistral-chat").events_of(body)
    chunks = [CompletionChunk.model_validate(e.data) for e in events]
    deltas = [call for chunk in chunks for call in chunk.choices[0].delta.tool_calls or []]
    assert [(d.id, d.function.name, d.function.arguments) for d in deltas] == [
        ("Qm7TzR2vX", "a", "{}"),
        ("Pz8RtY3uW", "b", '{"x":1}'),
    ]
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    # OpenAI's own framing is unchanged: each call opened with its id and name, then its arguments.
    openai = [e.data["choices"][0]["delta"].get("tool_calls") for e in transport_for("openai-chat").events_of(body)]
    assert openai[1] == [
        {"index": 0, "id": "Qm7TzR2vX", "type": "function", "function": {"name": "a", "arguments": ""}}
    ]
    assert openai[2] == [{"index": 0, "function": {"arguments": "{}"}}]


@pytest.mark.parametrize("profile", ["default", "strict"])
def test_google_genai_declares_a_json_schema_its_openapi_subset_cannot_hold(corpus: Corpus, profile: str) -> None:
    # ADK Go declares an optional list as `type: ["null", "array"]`: google-genai's `parameters` (an
    # OpenAPI subset) cannot hold it, `parameters_json_schema` can, as the recording sent it.
    scenario = corpus.scenarios["gemini/recorded/adk-go-delegation-task-to-tool"]
    result = run_scenario(ADAPTER, scenario, corpus, profile)
    assert result.outcome == "pass", result.summary
