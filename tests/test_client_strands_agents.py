"""Strands Agents as a client adapter: scenarios it passes, and its confirmed findings (strands-agents 1.62.0)."""

from __future__ import annotations

import frameworks
import pytest

from conformance.clients.strands_agents import ADAPTER
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.runner import run_scenario

frameworks.importorskip("strands", reason="the Strands client adapter drives strands-agents")


def _run(corpus: Corpus, scenario_id: str) -> CaseResult:
    return run_scenario(ADAPTER, corpus.scenarios[scenario_id], corpus)


@pytest.mark.parametrize(
    ("scenario_id", "model_module"),
    [
        ("openai-chat/parallel-results-reversed", "strands.models.openai"),  # OpenAIModel, not streamed
        ("anthropic-messages/parallel-same-tool", "strands.models.anthropic"),
        ("bedrock-converse/three-turn-chain", "strands.models.bedrock"),
        ("openai-responses/streamed-reasoning-then-parallel-calls", "strands.models.openai_responses"),
        ("kimi-chat/streamed-parallel-calls", "strands.models.openai"),  # keeps `functions.get_weather:0` ids
    ],
)
def test_strands_passes(corpus: Corpus, scenario_id: str, model_module: str) -> None:
    frameworks.importorskip(model_module)
    result = _run(corpus, scenario_id)
    assert result.outcome == "pass", (result.summary, [v.code for v in result.errors])
    assert result.errors == []


@pytest.mark.parametrize(
    "scenario_id",
    ["openai-chat/gemini-compat-empty-ids", "openai-chat/streamed-calls-without-ids"],
)
def test_calls_without_an_id_are_dropped_silently(corpus: Corpus, scenario_id: str) -> None:
    """A call whose id is `""` or absent never runs and is left out of the history.

    `strands/event_loop/streaming.py:317-328` (`handle_content_block_stop`): `if not tool_use_id or not
    tool_use_name:` logs a warning and skips the block, "don't raise". The OpenAI provider passes the
    served id on as it is (`strands/models/openai.py:568-570`, `"toolUseId": event["data"].id`) and mints
    none, so Gemini-compat's `""` ids and a stream without ids lose every call.
    """
    frameworks.importorskip("strands.models.openai")
    result = _run(corpus, scenario_id)
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"roundtrip/call-lost"}


def test_a_call_whose_name_arrives_after_its_arguments_is_dropped(corpus: Corpus) -> None:
    """The call is opened from its first delta alone (`strands/models/openai.py:792-794`, `"data":
    tool_deltas[0]`); later deltas add arguments only (`:581`), so a name sent after the first delta never
    arrives and `streaming.py:320` drops the nameless call."""
    frameworks.importorskip("strands.models.openai")
    result = _run(corpus, "openai-chat/streamed-name-after-arguments")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"roundtrip/call-lost"}


def test_two_calls_streamed_at_one_index_become_one(corpus: Corpus) -> None:
    """Deltas are grouped by `index` alone (`strands/models/openai.py:783`, `tool_calls.setdefault(
    tool_call.index, [])`): Ollama's two whole calls at index 0 become one call with the first id and
    both argument texts, which do not parse and are sent back as `{}` (`streaming.py:306-315`)."""
    frameworks.importorskip("strands.models.openai")
    result = _run(corpus, "openai-chat/ollama-parallel-index-zero")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"roundtrip/call-lost", "roundtrip/arguments-altered"}
    (lost,) = [v for v in result.errors if v.code == "roundtrip/call-lost"]
    assert lost.expected == "call_9xw3ptbd"


def test_ollama_calls_go_back_without_ids(corpus: Corpus) -> None:
    """The Ollama provider mints its own `tooluse_<hex>` id per call (`strands/models/ollama.py:268`),
    no longer the tool's name (#2050 is fixed at 1.62), but sends the call back without any id
    (`ollama.py:136-148`) and its result as a bare `tool` message (`:151-161`)."""
    frameworks.importorskip("strands.models.ollama")
    result = _run(corpus, "ollama-chat/one-call")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"roundtrip/empty-id"}
    assert [v.location for v in result.errors] == ["request[1].messages[1].tool_calls[0].id"]


def test_anthropic_server_tool_blocks_are_dropped_from_the_history(corpus: Corpus) -> None:
    """`server_tool_use` and `web_search_tool_result` are in `_SERVER_TOOL_BLOCK_TYPES`
    (`strands/models/anthropic.py:51-66`), which the stream skips (`:1042-1044`): the web search the
    model ran is not sent back."""
    frameworks.importorskip("strands.models.anthropic")
    result = _run(corpus, "anthropic-messages/web-search-beside-client-call")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"roundtrip/call-lost"}


def test_the_recorded_mcp_servers_are_declared_and_their_blocks_dropped(corpus: Corpus) -> None:
    """The recorded `mcp_servers` reach the request through the model's `params` (the SDK's `extra_body`), so the
    MCP recording is served; its `mcp_tool_use` is in `_SERVER_TOOL_BLOCK_TYPES` and its `mcp_tool_listing` opens an
    empty block (`format_chunk`'s `content_block_start`, `strands/models/anthropic.py:815`): neither goes back."""
    frameworks.importorskip("strands.models.anthropic")
    result = _run(corpus, "anthropic-messages/mcp-tool-listing")
    assert result.outcome == "fail", result.summary
    assert {(v.code, v.expected) for v in result.errors} == {
        ("roundtrip/call-lost", "mcp_tool_listing"),
        ("roundtrip/call-lost", "mcptoolu_01KcT8wQe3Lr5Zn2Xv7YbH4m"),
    }


def test_gemini_server_tool_parts_are_dropped_from_the_history(corpus: Corpus) -> None:
    """The Gemini provider keeps function calls, text and thought signatures (`strands/models/gemini.py:
    660-700`); the server-side `toolCall`/`toolResponse` parts are not kept, so they are not sent back."""
    frameworks.importorskip("strands.models.gemini")
    result = _run(corpus, "gemini/server-tool-beside-call")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"roundtrip/call-lost"}


def test_tools_strands_cannot_declare_are_skips(corpus: Corpus) -> None:
    frameworks.importorskip("strands.models.openai_responses")
    assert _run(corpus, "openai-responses/computer-use").outcome == "skip"
    result = _run(corpus, "anthropic-messages/fetch-and-tool-search")
    assert result.outcome == "skip" and "defer_loading" in result.summary
    assert _run(corpus, "cohere-v2/one-call").outcome == "skip"


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # a restored history as the Agent's messages
        "openai-responses/from-gemini-idless",  # a Gemini history without ids, continued on the Responses API
        "openai-chat/session-memory-window",  # three runs, each a call on the same Agent
        "openai-responses/session-previous-response-id",
    ],
)
def test_strands_continues_conversations(corpus: Corpus, scenario_id: str) -> None:
    result = _run(corpus, scenario_id)
    assert result.outcome == "pass", result.summary


def test_strands_sends_another_providers_ids_as_they_are(corpus: Corpus) -> None:
    """A Kimi history on Anthropic: the toolUseIds go out unchanged (strands/models/anthropic.py:299, :317)."""
    result = _run(corpus, "anthropic-messages/from-kimi")
    assert result.outcome == "fail", result.summary
    assert {v.code for v in result.errors} == {"format/id-pattern"}


def test_strands_leaves_a_cancelled_tool_without_a_result(corpus: Corpus) -> None:
    """A run cancelled in a tool that never answered stores an empty user message after the toolUse
    (strands/event_loop/event_loop.py:958-961, :1000), so the next run's repair, which looks at the last
    message only (strands/agent/agent.py:1962), never runs and Anthropic is sent the call without a result."""
    result = _run(corpus, "anthropic-messages/session-repair-interrupted")
    assert result.outcome == "fail", result.summary
    assert {(v.code, v.location) for v in result.errors} == {
        ("pairing/missing-result", "request[1].messages[1].content[0].id")
    }
