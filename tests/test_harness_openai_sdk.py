"""The OpenAI TypeScript SDK's harness (harnesses/openai-sdk): `client.chat.completions.runTools` over the
Chat Completions scenarios and the `ResponsesToolRunner` helper over the Responses scenarios, with the
verdicts docs/findings.md traces.

It runs wherever `npm ci --prefix harnesses/openai-sdk` was run (CI requires it with
CONFORMANCE_REQUIRE_HARNESSES=openai-sdk) and skips with that command as the reason elsewhere.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from node_harnesses import installed, started, verdict

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus

HARNESS = installed("openai-sdk", "openai")


@pytest.fixture(scope="module")
def harness() -> Iterator[HarnessAdapter]:
    with started(HARNESS) as adapter:
        yield adapter


def test_it_names_the_sdk_and_the_installed_version(harness: HarnessAdapter) -> None:
    lock = json.loads((HARNESS / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    identity = harness.identity()
    assert identity["name"] == "openai-sdk-js" and identity["language"] == "javascript"
    assert harness.version == lock["node_modules/openai"]["version"]
    assert set(harness.apis) == {"openai-chat", "kimi-chat", "openai-responses", "openresponses", "azure-foundry"}


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/parallel-same-tool",
        "openai-chat/streamed-two-calls-one-chunk",  # runTools streams through ChatCompletionStream
        "openai-chat/session-memory-window",  # each run continues the runner's messages
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # a restored history as messages
        "openai-responses/three-turn-chain",
        "openai-responses/mcp-approval-flow",  # approveMcp answered from the replay
        "openai-responses/computer-use",  # a ComputerToolset over the replay's screenshots
        "openai-responses/session-previous-response-id",  # the next run continues the ledger's history
        "kimi-chat/index-continues-across-turns",  # runTools at Moonshot's base URL
        "openresponses/streamed-parallel-calls",
    ],
)
def test_the_runners_pass(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "pass", summary


@pytest.mark.parametrize(
    ("scenario_id", "codes"),
    [
        # runToolCall answers only function calls: a custom call goes back without a result.
        ("openai-chat/custom-tool-call", {"pairing/missing-result"}),
        # ChatCompletionStream folds every call streamed at index 0 into one.
        ("openai-chat/ollama-parallel-index-zero", {"roundtrip/arguments-altered", "roundtrip/call-lost"}),
        # A run cut off in its tool: the runner's messages keep the call, and the next run sends it unanswered.
        ("openai-chat/session-repair-interrupted", {"pairing/missing-result"}),
    ],
)
def test_the_runners_fail_as_traced(harness: HarnessAdapter, corpus: Corpus, scenario_id: str, codes: set[str]) -> None:
    outcome, summary, found = verdict(harness, corpus, scenario_id)
    assert outcome == "fail", summary
    assert found == codes


@pytest.mark.parametrize(
    ("scenario_id", "message"),
    [
        ("openai-chat/streamed-indices-from-one", "Cannot read properties of undefined (reading 'id')"),
        ("openai-responses/gateway-nameless-call", "Incomplete or unregistered function call"),
        ("openai-responses/recorded/otel-openai-v2-responses-tool-call", "cannot finish when tool_choice always"),
        # A Foundry agent's own tool items (bing_grounding_call, ...) are refused as unknown output items.
        ("azure-foundry/bing-grounding-pairs", "Unsupported response output item"),
    ],
)
def test_the_runners_err_as_traced(harness: HarnessAdapter, corpus: Corpus, scenario_id: str, message: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "error", summary
    assert message in summary


@pytest.mark.parametrize(
    ("scenario_id", "reason"),
    [
        ("openai-chat/from-anthropic", "no form for a conversation begun on anthropic-messages"),
        ("openai-responses/local-shell-call", "cannot declare the recorded 'local_shell' tool"),
        ("openai-responses/streamed-function-and-custom", "cannot run the custom (free-form) tool 'run_sql'"),
        ("anthropic-messages/one-call", "speaks OpenAI's APIs only"),
    ],
)
def test_what_the_sdk_cannot_express_is_a_skip_naming_its_limit(
    harness: HarnessAdapter, corpus: Corpus, scenario_id: str, reason: str
) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "skip", summary
    assert reason in summary
