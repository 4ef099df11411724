"""The Haystack client adapter (an `Agent` over each chat generator) on recorded cassettes: scenarios it passes,
and each confirmed finding with its violation codes (haystack-ai 3.4.1 and its integrations)."""

from __future__ import annotations

import frameworks
import pytest

from conformance.clients.haystack import ADAPTER
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import run_scenario

frameworks.importorskip("haystack", reason="the Haystack client adapter drives haystack-ai")

GEMINI = "haystack_integrations.components.generators.google_genai"
ANTHROPIC = "haystack_integrations.components.generators.anthropic"

PASSING = [
    ("openai-chat/parallel-results-reversed", "haystack.components.generators.chat"),
    ("openai-responses/one-call", "haystack.components.generators.chat"),
    ("anthropic-messages/parallel-same-tool", ANTHROPIC),
    ("bedrock-converse/three-turn-chain", "haystack_integrations.components.generators.amazon_bedrock"),
    ("mistral-chat/streamed-parallel-calls", "haystack_integrations.components.generators.mistral"),
    ("gemini/parallel-different-tools", GEMINI),
]


def _run(corpus: Corpus, scenario_id: str, module: str) -> CaseResult:
    frameworks.importorskip(module)
    return run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)


@pytest.mark.parametrize(("scenario_id", "module"), PASSING, ids=[p[0] for p in PASSING])
def test_the_agent_loop_passes(corpus: Corpus, scenario_id: str, module: str) -> None:
    result = _run(corpus, scenario_id, module)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.errors])
    assert not result.errors


@pytest.mark.parametrize("scenario_id", ["cohere-v2/parallel-same-tool", "cohere-v2/three-turn-chain"])
def test_cohere_results_wrapped_in_json_pass(corpus: Corpus, scenario_id: str) -> None:
    """cohere-haystack sends each tool output as `json.dumps({"result": output})`
    (`haystack_integrations/components/generators/cohere/chat/chat_generator.py:95`); the output is still
    the canned one, inside a JSON string, so the output check accepts it."""
    result = _run(corpus, scenario_id, "haystack_integrations.components.generators.cohere")
    assert result.outcome == "pass", (result.summary, [v.code for v in result.errors])


def test_gemini_stream_restarts_the_call_index_in_every_chunk(corpus: Corpus) -> None:
    """Gemini 3 streams each parallel call in a chunk of its own; every chunk numbers its calls from 0
    (`google_genai/chat/utils.py:659,677-681`), the shared aggregator merges deltas by index
    (`haystack/components/generators/utils.py:143-153`), the joined arguments do not parse and the call is
    skipped with a warning (`:159-170`): both calls are gone, no tool runs, and the Agent sends the history
    again with a model turn holding only the first part's thought signature."""
    result = _run(corpus, "gemini/streamed-sse-parallel-calls", GEMINI)
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {"roundtrip/call-lost"}
    assert {v.expected for v in result.errors} == {"ujzde8gx", "d6ncf10e"}


def test_gemini_model_turn_rebuilt_from_thought_signatures_drops_unsigned_calls(corpus: Corpus) -> None:
    """A model turn with thought signatures is rebuilt from the signature list alone
    (`google_genai/chat/utils.py:263-300`): Gemini signs only the first call of a parallel turn, so the second
    call is left out while its function response is sent. Each response also goes in a content of its own
    (`google_genai/chat/chat_generator.py:496-498`): the shape Gemini 3 Pro refused (eino-ext #571), not one
    the scenario's gemini-3-flash-preview is reported to refuse, so no split-turn count mismatch."""
    result = _run(corpus, "gemini/ids-results-reversed", GEMINI)
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {"pairing/call-dropped", "roundtrip/call-lost"}
    (lost,) = [v for v in result.errors if v.code == "roundtrip/call-lost"]
    assert lost.expected == "eh60kvj5"


def test_gemini_agent_calls_again_after_an_empty_answer(corpus: Corpus) -> None:
    """The recorded final answer is an empty text with `finishReason: STOP`; the Agent exits only on text
    (`haystack/components/agents/agent.py:165-194`) and asks the model again, a request the recording
    does not hold. The case is judged on what was recorded, and says the client asked again."""
    result = _run(corpus, "gemini/recorded/crewai-tool-returning-float", GEMINI)
    assert result.outcome == "pass", result.summary
    assert "the recording ends on a blank answer (response[1]) and the client asked again" in result.summary


def test_openai_stream_overwrites_an_id_with_a_later_empty_one(corpus: Corpus) -> None:
    """The stream aggregator keeps the last id of an index whenever it is not None
    (`haystack/components/generators/utils.py:146-148`): the `"id": ""` of later deltas replaces the
    provider's id, and calls and results go back with empty ids."""
    result = _run(corpus, "openai-chat/streamed-empty-ids-after-first", "haystack.components.generators.chat")
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {"roundtrip/empty-id", "pairing/orphan-result", "pairing/missing-result"}
    assert {v.expected for v in result.errors if v.code == "roundtrip/empty-id"} == {
        "call_a1ad8367bde7444f82142e8e",
        "call_5c0f2e91d7b84a6e9f13c2b7",
    }


def test_openai_calls_streamed_at_one_index_are_dropped(corpus: Corpus) -> None:
    """Two calls streamed at `index: 0` are merged into one (`haystack/components/generators/utils.py:143-153`),
    whose joined arguments do not parse, so it is skipped (`:159-170`): neither call reaches the history."""
    result = _run(corpus, "openai-chat/ollama-parallel-index-zero", "haystack.components.generators.chat")
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {"roundtrip/call-lost"}
    assert {v.expected for v in result.errors} == {"call_u4kq7zm2", "call_9xw3ptbd"}


@pytest.mark.parametrize(
    ("scenario_id", "reason"),
    [
        # Haystack writes a tool as ToolParam(name, description, input_schema) only. (Served, the second turn
        # lost its `caller`: finding H4, out of reach while Haystack cannot declare callers.)
        ("anthropic-messages/programmatic-tool-calling", "cannot declare allowed_callers on the tool 'query_sales'"),
        ("anthropic-messages/mcp-tool-listing", "ALLOWED_PARAMS, which has no mcp_servers"),
    ],
)
def test_what_anthropic_chat_generator_cannot_send_is_declared_unsupported(
    corpus: Corpus, scenario_id: str, reason: str
) -> None:
    result = _run(corpus, scenario_id, ANTHROPIC)
    assert result.outcome == "skip", result.summary
    assert result.summary.startswith("the client declares: ")
    assert reason in result.summary


@pytest.mark.parametrize(
    ("scenario_id", "module"),
    [
        ("openai-responses/recorded/mirascope-web-search-tool", "haystack.components.generators.chat"),
        ("openai-responses/recorded/logfire-openai-agents-file-search", "haystack.components.generators.chat"),
        ("gemini/recorded/openinference-adk-code-execution", GEMINI),
    ],
)
def test_server_tools_without_function_tools_are_the_generators_own(
    corpus: Corpus, scenario_id: str, module: str
) -> None:
    """With no function tool beside them, the recorded server tools are the generator's `tools` (a list of
    OpenAI tool definitions) or its generation_kwargs' Gemini `tools`, and the case is judged."""
    result = _run(corpus, scenario_id, module)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.errors])


def test_ollama_ids_are_not_sent_back(corpus: Corpus) -> None:
    """`OllamaChatGenerator` leaves the id out of every call it sends back
    (`ollama/chat/chat_generator.py:101-106`, "Ollama does not support tool call id")."""
    result = _run(corpus, "ollama-chat/parallel-same-tool", "haystack_integrations.components.generators.ollama")
    assert result.outcome == "fail"
    assert {v.code for v in result.errors} == {"roundtrip/empty-id"}


def test_gemini_server_tools_are_declared_unsupported(corpus: Corpus) -> None:
    result = _run(corpus, "gemini/code-execution-beside-call", GEMINI)
    assert result.outcome == "skip"
    assert "GoogleGenAIChatGenerator" in result.summary


def test_custom_tools_are_declared_unsupported(corpus: Corpus) -> None:
    result = _run(corpus, "openai-responses/streamed-function-and-custom", "haystack.components.generators.chat")
    assert result.outcome == "skip"
    assert "custom tool" in result.summary


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # a restored history as the run's messages
        "openai-chat/from-anthropic",  # a Claude history as ChatMessages, continued on OpenAIChatGenerator
        "openai-chat/session-memory-window",  # three runs, each on the messages the one before returned
    ],
)
def test_haystack_continues_conversations(corpus: Corpus, scenario_id: str) -> None:
    result = _run(corpus, scenario_id, "openai")
    assert result.outcome == "pass", result.summary


def test_haystack_responses_sends_another_generators_calls_without_call_id(corpus: Corpus) -> None:
    """OpenAIResponsesChatGenerator sends a ToolCall's `id` as the item id and `extra["call_id"]` as its call_id
    (haystack/components/generators/chat/openai_responses.py:1043-1050, results :1015): a call another generator
    read (an OpenAI Chat history) goes out as `id: call_...` with `call_id: ""`, and its result under `""`."""
    result = _run(corpus, "openai-responses/from-chat-history", "openai")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"format/id-pattern", "pairing/missing-result", "pairing/orphan-result"}


def test_haystack_cannot_continue_a_gemini_conversation_on_openai(corpus: Corpus) -> None:
    """Haystack's Gemini generator keeps a call without an id as `id=None`
    (haystack_integrations/components/generators/google_genai/chat/utils.py:548-552), which OpenAI's
    conversion refuses (haystack/dataclasses/chat_message.py:768)."""
    result = _run(corpus, "openai-chat/recorded/mirascope-resume-from-gemini", "openai")
    assert result.outcome == "error", result.summary
    assert "must have a non-null `id` attribute to be used with OpenAI" in result.summary
