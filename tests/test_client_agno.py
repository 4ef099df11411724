"""Agno as a client adapter: scenarios it passes, and its confirmed findings (agno 3.1.10)."""

from __future__ import annotations

import frameworks
import pytest

from conformance.clients.agno import ADAPTER
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import run_scenario

frameworks.importorskip("agno", reason="the Agno client adapter drives agno")


def _run(corpus: Corpus, scenario_id: str) -> CaseResult:
    return run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)


@pytest.mark.parametrize(
    ("scenario_id", "sdk"),
    [
        ("openai-chat/parallel-results-reversed", "openai"),  # OpenAIChat, not streamed
        ("anthropic-messages/web-search-beside-client-call", "anthropic"),  # a built-in tool passed as a dict
        ("openai-responses/streamed-reasoning-then-parallel-calls", "openai"),
        ("bedrock-converse/parallel-same-tool", "boto3"),
        ("cohere-v2/parallel-same-tool", "cohere"),
    ],
)
def test_agno_passes(corpus: Corpus, scenario_id: str, sdk: str) -> None:
    frameworks.importorskip(sdk)
    result = _run(corpus, scenario_id)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.errors])
    assert result.errors == []


def test_kimi_ids_are_rewritten_to_call_ids(corpus: Corpus) -> None:
    """Every id that does not start with `call_` is replaced before an OpenAI-style request is sent.

    `agno/utils/message.py:174-179` (`PROVIDER_TOOL_ID_CONFIG["openai_chat"]`: prefix `call_`, at most 40
    characters) and `:244-257` (`reformat_tool_call_ids`: `needs_reformat = not old_id.startswith(prefix)`,
    `new_id = f"{prefix}{counter:0{id_digits}x}"`), called for every request by `OpenAIChat._format_all_messages`
    (`agno/models/openai/chat.py:389`), which `MoonShot` inherits. Kimi's `functions.get_weather:0` goes back
    as `call_` and 35 zeros, on the call and its result alike: paired, but not the id Kimi issued.
    """
    frameworks.importorskip("openai")
    result = _run(corpus, "kimi-chat/one-call")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"roundtrip/id-altered"}
    assert {(v.expected, v.received) for v in result.errors} == {("functions.get_weather:0", "call_" + "0" * 35)}


def test_responses_call_ids_of_other_servers_are_rewritten(corpus: Corpus) -> None:
    """The Responses formatter rewrites each item id that does not start with `fc_` and, with it, each
    `call_id` that does not start with `call_` (`agno/utils/message.py:180-184`, `:264-273`, called at
    `agno/models/openai/responses.py:685`): Mistral's `D681PevKs` goes back as `call_00000000`."""
    frameworks.importorskip("openai")
    result = _run(corpus, "mistral-responses/one-call")
    assert result.outcome == "fail", result.summary
    assert {(v.code, v.expected, v.received) for v in result.errors} == {
        ("roundtrip/id-altered", "D681PevKs", "call_00000000")
    }


def test_bedrock_reasoning_before_a_call_is_never_asked_for_nor_served(generated_corpus: Corpus) -> None:
    """A7 (generated): AwsBedrock reads a stream's `text` and `toolUse` deltas only
    (agno/models/aws/bedrock.py:858-865) and writes an assistant turn back as its toolUse blocks or text
    (:391-402): the reasoningContent before the call is not sent back."""
    result = _run(generated_corpus, "bedrock-converse/generated-6b96da511a")
    # Nor can the library turn thinking on: its request asks for none, so it is served the turn without the
    # thinking, as the provider would answer it, and judged on that.
    assert result.outcome == "pass", result.summary
    assert "without the thinking the request did not ask for" in result.summary


def test_ollama_ids_are_dropped_when_a_response_is_parsed(corpus: Corpus) -> None:
    """`agno/models/ollama/chat.py:379-388` keeps each served call's name and arguments only; the id is
    never read, so the call goes back with `"id": None` (`:179`)."""
    frameworks.importorskip("ollama")
    result = _run(corpus, "ollama-chat/one-call")
    assert result.outcome == "fail", result.summary
    assert [(v.code, v.location) for v in result.errors] == [
        ("roundtrip/empty-id", "request[1].messages[1].tool_calls[0].id")
    ]


def test_gemini_ids_are_not_sent_back(corpus: Corpus) -> None:
    """The served id is kept (`agno/models/google/gemini.py:1318`) but the call goes back through
    `Part.from_function_call(name=..., args=...)` (`:829-832`) and its result through
    `Part.from_function_response(name=..., response=...)` (`:841-845`), neither with the id."""
    frameworks.importorskip("google.genai")
    result = _run(corpus, "gemini/ids-results-reversed")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"roundtrip/empty-id"}


def test_two_calls_streamed_at_one_index_become_one(corpus: Corpus) -> None:
    """`OpenAIChat.parse_tool_calls` keys the stream by `index` alone (`agno/models/openai/chat.py:762-770`);
    a second call at a known index appends its arguments and replaces the id (`:781-784`)."""
    frameworks.importorskip("openai")
    result = _run(corpus, "openai-chat/ollama-parallel-index-zero")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"roundtrip/call-lost", "roundtrip/arguments-altered"}
    (lost,) = [v for v in result.errors if v.code == "roundtrip/call-lost"]
    assert lost.expected == "call_u4kq7zm2"


def test_a_stream_that_starts_at_index_one_gains_an_empty_call(corpus: Corpus) -> None:
    """`parse_tool_calls` pads the list with `{}` up to the first index it sees (`agno/models/openai/chat.py:
    768-769`): the empty entry is sent back as a call with no type (and reported as invented), and every
    id is then rewritten to a `call_` id (`agno/utils/message.py:244-257`)."""
    frameworks.importorskip("openai")
    result = _run(corpus, "openai-chat/streamed-indices-from-one")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"roundtrip/id-altered", "format/item-invalid"}
    assert "roundtrip/call-invented" in {v.code for v in result.violations}


def test_responses_results_are_paired_by_item_id(corpus: Corpus) -> None:
    """Results find their `call_id` through a map keyed by the item id (`agno/models/openai/responses.py:
    652-660`, used at `:771-779`). Ollama draws the same `fc_` item id in two responses, so the later call
    takes the key and both outputs go back under its `call_id`."""
    frameworks.importorskip("openai")
    result = _run(corpus, "ollama-responses/item-ids-repeat-across-responses")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {
        "pairing/by-position",
        "pairing/duplicate-result",
        "pairing/missing-result",
        "pairing/not-adjacent",
    }


def test_tools_agno_cannot_declare_are_skips(corpus: Corpus) -> None:
    frameworks.importorskip("openai")
    assert "computer_use_preview" in _run(corpus, "openai-responses/computer-use").summary
    assert _run(corpus, "openai-chat/custom-tool-call").outcome == "skip"
    assert _run(corpus, "gemini/server-tool-beside-call").outcome == "skip"
    code = _run(corpus, "gemini/code-execution-beside-call")
    assert code.outcome == "skip" and "Agno's Gemini has no code execution tool" in code.summary
    callers = _run(corpus, "anthropic-messages/programmatic-tool-calling")
    assert callers.outcome == "skip" and "format_tools_for_model" in callers.summary


@pytest.mark.parametrize("scenario_id", ["anthropic-messages/mcp-tool-listing", "anthropic-messages/mcp-and-advisor"])
def test_the_recorded_mcp_servers_are_claudes_mcp_servers(corpus: Corpus, scenario_id: str) -> None:
    """Claude's `mcp_servers` (MCPServerConfiguration) declares the recorded server: served and judged."""
    frameworks.importorskip("anthropic")
    result = _run(corpus, scenario_id)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.violations])


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # a restored history as the run's input
        "anthropic-messages/from-gemini-idless",  # a Gemini history without ids, continued on Claude
        "openai-chat/session-memory-window",  # three runs in the Agent's session store
        "openai-responses/session-previous-response-id",
        # The cut-off run is cancelled and left out of the session's history: the next run is clean.
        "anthropic-messages/session-repair-interrupted",
    ],
)
def test_agno_continues_conversations(corpus: Corpus, scenario_id: str) -> None:
    frameworks.importorskip("anthropic")
    result = _run(corpus, scenario_id)
    assert result.outcome == "pass", result.summary


def test_agno_pairs_a_restored_historys_results_by_position_on_gemini(corpus: Corpus) -> None:
    """Agno's Gemini sends calls and results without ids (agno/models/google/gemini.py:829-832, :841-845) in
    the stored order: an OpenAI history whose results came in reverse gives Paris Tokyo's temperature."""
    frameworks.importorskip("google.genai")
    result = _run(corpus, "gemini/cross-provider-from-openai-chat")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"pairing/by-position"}
