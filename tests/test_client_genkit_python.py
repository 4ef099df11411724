"""The Genkit for Python client adapter on recorded cassettes: cases it passes, and its confirmed findings.

Skipped unless the `genkit` extra is installed (`python -m pip install '.[genkit]'`).
"""

from __future__ import annotations

import frameworks
import pytest

from conformance.clients.genkit_python import ADAPTER
from conformance.corpus.loading import Corpus
from conformance.running.runner import run_scenario

frameworks.importorskip("genkit", reason="python -m pip install '.[genkit]'")

PASSING = [
    ("openai-chat/streamed-parallel-calls", "genkit_openai"),
    ("gemini/parallel-same-tool-idless", "genkit_google_genai"),
    ("anthropic-messages/streamed-parallel-calls", "genkit_anthropic"),
    ("bedrock-converse/parallel-same-tool", "genkit_amazon_bedrock"),
    ("ollama-messages/streamed-parallel-calls", "genkit_anthropic"),  # genkit-anthropic at Ollama's /v1/messages
]


@pytest.mark.parametrize(("scenario_id", "plugin"), PASSING, ids=[p[0] for p in PASSING])
def test_the_framework_tool_loop_passes(corpus: Corpus, scenario_id: str, plugin: str) -> None:
    frameworks.importorskip(plugin)
    result = run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.violations])


def test_empty_served_ids_go_back_as_null(corpus: Corpus) -> None:
    """genkit-openai turns a served `""` id into `ref=None` (utils.py, tool_call_to_genkit) and writes
    `"id": null` / `"tool_call_id": null` back (MessageConverter.to_openai)."""
    frameworks.importorskip("genkit_openai")
    result = run_scenario(ADAPTER, corpus.scenarios["openai-chat/gemini-compat-empty-ids"], corpus)
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {"roundtrip/empty-id", "pairing/orphan-result", "pairing/missing-result"}


def test_ollama_history_loses_its_calls(corpus: Corpus) -> None:
    """genkit-ollama's build_chat_messages writes no tool_calls on the assistant turn and joins every
    result of a turn into one tool message without tool_name."""
    frameworks.importorskip("genkit_ollama")
    result = run_scenario(ADAPTER, corpus.scenarios["ollama-chat/parallel-same-tool"], corpus)
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {"roundtrip/call-lost", "pairing/orphan-result"}
    assert {v.expected for v in result.errors if v.code == "roundtrip/call-lost"} == {"call_7v1rj5zt", "call_w8e4n0hd"}


def test_a_failure_genkit_boxes_in_the_response_is_raised(corpus: Corpus) -> None:
    """Two whole calls streamed at index 0 are merged into one whose arguments do not parse; Genkit
    returns finish_reason `failed` instead of raising, and the adapter raises it."""
    frameworks.importorskip("genkit_openai")
    result = run_scenario(ADAPTER, corpus.scenarios["openai-chat/ollama-parallel-index-zero"], corpus)
    assert result.outcome == "error"
    assert "finish_reason failed" in result.summary


def test_calls_streamed_without_ids_go_back_as_null(corpus: Corpus) -> None:
    """No id on any delta: genkit-openai keeps `ref=None` and writes `"id": null` / `"tool_call_id": null` back."""
    frameworks.importorskip("genkit_openai")
    result = run_scenario(ADAPTER, corpus.scenarios["openai-chat/streamed-calls-without-ids"], corpus)
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {"roundtrip/empty-id", "pairing/orphan-result", "pairing/missing-result"}


def test_a_name_streamed_after_the_first_delta_is_dropped(corpus: Corpus) -> None:
    """The stream accumulator keeps the first delta of an index and only appends later arguments, so a name that
    arrives on the second delta is lost; Genkit fails the turn with `Tool  not found`."""
    frameworks.importorskip("genkit_openai")
    result = run_scenario(ADAPTER, corpus.scenarios["openai-chat/streamed-name-after-arguments"], corpus)
    assert result.outcome == "error"
    assert "NOT_FOUND: Tool  not found" in result.summary


def test_a_plugin_is_set_up_once_for_the_cases_that_share_its_settings(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """genkit-openai built an action (with its JSON schemas) for every model it knows, for every case:
    87% of the column's time. Two runs of a case against one server now build one model action in all,
    the one the case uses, with the same verdict; a case against another server gets a plugin of its own."""
    openai = frameworks.importorskip("genkit_openai")
    from conformance.clients import genkit_python

    monkeypatch.setattr(genkit_python, "_PLUGINS", {}, raising=False)
    built = []
    original = openai.OpenAI._create_model_action

    def counted(self: object, name: str) -> object:
        built.append(name)
        return original(self, name)

    monkeypatch.setattr(openai.OpenAI, "_create_model_action", counted)
    scenario = corpus.scenarios["openai-chat/streamed-parallel-calls"]
    first, second = run_scenario(ADAPTER, scenario, corpus), run_scenario(ADAPTER, scenario, corpus)
    assert (first.outcome, second.outcome) == ("pass", "pass")
    assert len(built) == 1, built
    assert len(genkit_python._PLUGINS) == 1
    elsewhere = genkit_python._plugin(("openai", "key", "http://127.0.0.1:1/v1"), lambda: openai.OpenAI(api_key="k"))
    assert len(genkit_python._PLUGINS) == 2 and elsewhere is not next(iter(genkit_python._PLUGINS.values()))


@pytest.mark.parametrize(
    ("scenario_id", "plugin"),
    [
        ("openai-chat/recorded/openllmetry-chat-tool-calls-history", "genkit_openai"),  # `messages` restored
        ("gemini/cross-provider-from-openai-chat", "genkit_google_genai"),  # an OpenAI history continued on Gemini
        ("openai-chat/session-memory-window", "genkit_openai"),  # three runs, each on the messages returned before
    ],
)
def test_genkit_continues_conversations(corpus: Corpus, scenario_id: str, plugin: str) -> None:
    frameworks.importorskip(plugin)
    result = run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)
    assert result.outcome == "pass", result.summary


def test_a_gemini_conversation_goes_on_with_null_ids(corpus: Corpus) -> None:
    """genkit-google-genai reads a call without an id as `ref=None` (genkit_google_genai/models/utils.py:341),
    and genkit-openai writes the ref as the call's and the result's id (genkit_openai/models/utils.py:470, :482)
    with nothing minted: both go out `null`, and the result answers no call."""
    frameworks.importorskip("genkit_openai")
    result = run_scenario(ADAPTER, corpus.scenarios["openai-chat/recorded/mirascope-resume-from-gemini"], corpus)
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"pairing/orphan-result", "pairing/missing-result"}


def test_a_run_left_on_a_tool_interrupt_goes_on_with_the_call_unanswered(corpus: Corpus) -> None:
    """The cut-off tool raises Genkit's `Interrupt`: the generate returns `interrupted` with the pending request
    in its messages (genkit/_ai/_generate.py:1701-1715). The next run's generate, given those messages and a new
    prompt rather than a `resume`, sends the call as it is (genkit_anthropic/models.py:661) with no result."""
    frameworks.importorskip("genkit_anthropic")
    result = run_scenario(ADAPTER, corpus.scenarios["anthropic-messages/session-repair-interrupted"], corpus)
    assert result.outcome == "fail", result.summary
    assert {(v.code, v.location) for v in result.errors} == {
        ("pairing/missing-result", "request[1].messages[1].content[0].id")
    }


def test_anthropic_server_tools_without_function_tools_are_the_configs_own(corpus: Corpus) -> None:
    """With no Genkit tool, the config's passthrough `tools` reach the request as they are: the web search is
    declared and the recording served."""
    frameworks.importorskip("genkit_anthropic")
    result = run_scenario(ADAPTER, corpus.scenarios["anthropic-messages/recorded/mirascope-web-search-tool"], corpus)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.violations])


def test_anthropic_server_tools_beside_function_tools_are_declared_unsupported(corpus: Corpus) -> None:
    frameworks.importorskip("genkit_anthropic")
    result = run_scenario(ADAPTER, corpus.scenarios["anthropic-messages/code-execution-tools"], corpus)
    assert result.outcome == "skip"
    assert result.summary.startswith("the client declares: genkit-anthropic sets the request's tools")
    assert "code_execution_20250825" in result.summary
