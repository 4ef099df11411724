"""The AutoGen client adapter (`AssistantAgent` over autogen-ext's model clients) on recorded cassettes:
scenarios it passes, and each confirmed finding with its violation codes (autogen-agentchat and
autogen-ext 0.7.5)."""

from __future__ import annotations

import frameworks
import pytest

from conformance.clients.autogen import ADAPTER
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import run_scenario

frameworks.importorskip("autogen_agentchat", reason="the AutoGen client adapter drives autogen-agentchat")

OPENAI = "autogen_ext.models.openai"
OLLAMA = "autogen_ext.models.ollama"
ANTHROPIC = "autogen_ext.models.anthropic"

PASSING = [
    ("openai-chat/parallel-results-reversed", OPENAI),
    ("openai-chat/streamed-parallel-calls", OPENAI),
    ("openai-chat/streamed-empty-ids-after-first", OPENAI),  # an empty id appended to a string changes nothing
    ("kimi-chat/index-continues-across-turns", OPENAI),
    ("mistral-chat/three-turn-chain", OPENAI),
    ("ollama-chat/id-less-parallel-same-tool", OLLAMA),
]


def _run(corpus: Corpus, scenario_id: str, module: str) -> CaseResult:
    frameworks.importorskip(module)
    return run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)


@pytest.mark.parametrize(("scenario_id", "module"), PASSING, ids=[p[0] for p in PASSING])
def test_the_assistant_agent_loop_passes(corpus: Corpus, scenario_id: str, module: str) -> None:
    result = _run(corpus, scenario_id, module)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.errors])
    assert not result.errors


def test_streamed_ids_are_concatenated(corpus: Corpus) -> None:
    """`create_stream` appends every delta's id to the call's id
    (`autogen_ext/models/openai/_openai_client.py:986-987`, `full_tool_calls[idx].id += tool_call_chunk.id`):
    a server that repeats the id on every fragment gets back the id once per fragment, past the 64-character
    limit."""
    result = _run(corpus, "openai-chat/streamed-id-on-every-delta", OPENAI)
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {"roundtrip/id-altered", "format/id-length"}
    received = {v.received for v in result.errors if v.location == "request[1].messages[1].tool_calls[0].id"}
    assert all(isinstance(r, str) and r.startswith("call_00_Vd3pK8sQw2LmN7xR4tYb6cEjcall_00_") for r in received)


def test_calls_streamed_at_one_index_are_merged(corpus: Corpus) -> None:
    """The stream is reassembled by `index` alone (`_openai_client.py:981-993`): two calls both at `index: 0`
    become one call `get_weatherget_weather`, with both ids joined and both argument objects joined."""
    result = _run(corpus, "openai-chat/ollama-parallel-index-zero", OPENAI)
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {
        "roundtrip/call-lost",
        "roundtrip/arguments-altered",
        "roundtrip/id-altered",
        "roundtrip/name-altered",
    }
    (renamed,) = [v for v in result.errors if v.code == "roundtrip/name-altered"]
    assert renamed.received == "get_weatherget_weather"
    assert "call_u4kq7zm2call_9xw3ptbd" in {v.received for v in result.errors if v.code == "roundtrip/id-altered"}


def test_empty_ids_are_passed_through(corpus: Corpus) -> None:
    """A call served with `"id": ""` keeps it (`_openai_client.py:767-772`, `id=tool_call.id`) and its result
    goes back under `tool_call_id: ""`: neither result names its call."""
    result = _run(corpus, "openai-chat/gemini-compat-empty-ids", OPENAI)
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {"roundtrip/empty-id", "pairing/orphan-result", "pairing/missing-result"}


def test_ollama_ids_are_not_sent_back(corpus: Corpus) -> None:
    """The Ollama client names each call `str(self._tool_id)`, one number shared by every call of a response
    (`autogen_ext/models/ollama/_ollama_client.py:679-688`), but sends none of them: `func_call_to_ollama`
    builds `Message.ToolCall` without an id (`:202-208`) and `tool_message_to_ollama` sends the result
    with neither id nor tool name (`:211-214`). The server's ids are lost."""
    result = _run(corpus, "ollama-chat/parallel-same-tool", OLLAMA)
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {"roundtrip/empty-id"}
    assert {v.location for v in result.errors} == {
        "request[1].messages[1].tool_calls[0].id",
        "request[1].messages[1].tool_calls[1].id",
    }


def test_claude_models_newer_than_its_table_are_read_as_claude_2(corpus: Corpus) -> None:
    """`get_info` matches a model by the prefix before its first `-2` (`autogen_ext/models/anthropic/
    _model_info.py:147-150`): for `claude-haiku-4-5-20251001` the first entry that matches is `claude-2.0`
    ("claude" is a prefix of every model), whose `function_calling` is False, so the AssistantAgent refuses its
    tools before any request (`autogen_agentchat/agents/_assistant_agent.py:774`)."""
    result = _run(corpus, "anthropic-messages/parallel-same-tool", ANTHROPIC)
    assert result.outcome == "error"
    assert "The model does not support function calling." in result.summary


def test_temperature_is_sent_to_an_sdk_without_it(corpus: Corpus) -> None:
    """Every Anthropic request carries `temperature` (`_anthropic_client.py:615-619`), and autogen-ext asks for
    `anthropic>=0.48` with no upper bound; the anthropic SDK's 2.x `messages.create` has no `temperature`
    parameter, so with it every request raises before it is sent."""
    anthropic = frameworks.importorskip("anthropic")
    if int(anthropic.__version__.split(".")[0]) < 2:
        pytest.skip("anthropic 1.x still takes temperature")
    result = _run(corpus, "anthropic-messages/one-call", ANTHROPIC)
    assert result.outcome == "error"
    assert "unexpected keyword argument 'temperature'" in result.summary


def test_custom_tools_are_declared_unsupported(corpus: Corpus) -> None:
    result = _run(corpus, "openai-chat/custom-tool-call", OPENAI)
    assert result.outcome == "skip"
    assert "custom tool" in result.summary


def test_anthropic_server_tools_are_declared_unsupported_naming_the_client(corpus: Corpus) -> None:
    frameworks.importorskip("autogen_ext.models.anthropic")
    result = run_scenario(ADAPTER, corpus.scenarios["anthropic-messages/web-search-beside-client-call"], corpus)
    assert result.outcome == "skip"
    assert "AnthropicChatCompletionClient.create" in result.summary and "web_search_20250305" in result.summary


def test_apis_without_a_model_client_are_skipped(corpus: Corpus) -> None:
    result = run_scenario(ADAPTER, corpus.scenarios["gemini/one-call"], corpus)
    assert result.outcome == "skip"
    assert "OpenAI-compatible" in result.summary


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # a restored history as the model context
        "openai-chat/from-anthropic",  # a Claude history as LLMMessages, continued on OpenAIChatCompletionClient
        "openai-chat/session-memory-window",  # three runs of the same agent
    ],
)
def test_autogen_continues_conversations(corpus: Corpus, scenario_id: str) -> None:
    result = _run(corpus, scenario_id, "openai")
    assert result.outcome == "pass", result.summary


def test_autogen_sends_another_providers_ids_to_mistral(corpus: Corpus) -> None:
    """A Claude history on Mistral: each FunctionCall's id goes out as it is
    (autogen_ext/models/openai/_message_transform.py:177, :444), `toolu_` ids Mistral refuses."""
    result = _run(corpus, "mistral-chat/from-anthropic", "openai")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"format/id-length", "format/id-pattern"}


def test_autogen_ollama_cannot_declare_a_tool_without_properties(corpus: Corpus) -> None:
    """`convert_tools` reads `parameters["properties"]` (autogen_ext/models/ollama/_ollama_client.py:317): a
    tool declared `{type: object}` raises before the restored history is sent."""
    result = _run(corpus, "ollama-chat/recorded/openllmetry-ollama-chat-tool-calls", "ollama")
    assert result.outcome == "error", result.summary
    assert "KeyError: 'properties'" in result.summary
