"""The Go library harnesses (harnesses/go/openai-go, anthropic-go, genai-go, langchaingo, eino): each
library's own tool loop over a few scenarios, with the verdicts docs/findings.md traces.

The harnesses are built by `sh harnesses/go/build` into a cache directory outside the repository;
where go or a binary is missing the module is skipped with that command as the reason (a failure
where CI requires the harnesses). The tests never build: after changing a harness, build it again
(CI builds every unit whose files changed: scripts/harnesses.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT
from node_harnesses import verdict
from toolchains import require

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus

HARNESSES = ROOT / "harnesses" / "go"
NAMES = ("openai-go", "anthropic-go", "genai-go", "langchaingo", "eino")
BUILD = f"sh harnesses/go/build {' '.join(NAMES)}"
BIN = Path(
    os.environ.get("CONFORMANCE_GO_BIN")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "toolcall-conformance" / "go-bin"
)

for _name in NAMES:
    require("go", BIN / _name, BUILD, unit="go-libraries")


def pinned(harness: str, module: str) -> str:
    """The version of `module` that the harness's go.mod requires."""
    found = re.search(
        rf"^\s*(?:require\s+)?{re.escape(module)} (v\S+)", (HARNESSES / harness / "go.mod").read_text(), re.M
    )
    assert found, f"{module} is not required by harnesses/go/{harness}/go.mod"
    return found.group(1)


@pytest.fixture(scope="module")
def harnesses() -> Iterator[dict[str, HarnessAdapter]]:
    started: dict[str, HarnessAdapter] = {}
    try:
        for name in NAMES:
            started[name] = HarnessAdapter([str(BIN / name)])
        yield started
    finally:
        for adapter in started.values():
            adapter.close()


@pytest.mark.parametrize(
    ("harness", "column", "module", "apis"),
    [
        ("openai-go", "openai-go", "github.com/openai/openai-go/v3", {"openai-chat", "openai-responses", "kimi-chat"}),
        ("anthropic-go", "anthropic-sdk-go", "github.com/anthropics/anthropic-sdk-go/v2", {"anthropic-messages"}),
        ("genai-go", "genai-go", "google.golang.org/genai", {"gemini"}),
        (
            "langchaingo",
            "langchaingo",
            "github.com/tmc/langchaingo",
            {"openai-chat", "anthropic-messages", "mistral-chat"},
        ),
        ("eino", "eino", "github.com/cloudwego/eino", {"openai-chat", "anthropic-messages", "gemini", "ollama-chat"}),
    ],
)
def test_each_names_its_column_and_the_pinned_version(
    harnesses: dict[str, HarnessAdapter], harness: str, column: str, module: str, apis: set[str]
) -> None:
    adapter = harnesses[harness]
    identity = adapter.identity()
    assert identity["name"] == column and identity["language"] == "go"
    assert adapter.version == pinned(harness, module)
    assert apis <= set(adapter.apis)


@pytest.mark.parametrize(
    ("harness", "scenario_id"),
    [
        ("openai-go", "openai-chat/parallel-same-tool"),
        ("openai-go", "openai-chat/streamed-interleaved-parallel-calls"),  # ChatCompletionAccumulator keys by index
        ("openai-go", "openai-responses/streamed-function-and-custom"),
        ("openai-go", "openai-responses/mcp-approval-flow"),
        ("openai-go", "kimi-chat/index-continues-across-turns"),
        ("anthropic-go", "anthropic-messages/streamed-parallel-calls"),  # the streaming tool runner
        ("anthropic-go", "anthropic-messages/programmatic-tool-calling"),
        ("genai-go", "gemini/thought-signature-sequential"),
        ("genai-go", "gemini/ids-results-reversed"),
        ("langchaingo", "openai-chat/three-turn-chain"),
        # Two calls of one streamed answer go back as two turns (the agent groups steps by their log): the
        # calls and their results are all there, a shape Chat Completions accepts.
        ("langchaingo", "openai-chat/recorded/otel-openai-v2-tool-calls"),
        ("eino", "openai-chat/streamed-indices-from-one"),
        ("eino", "anthropic-messages/streamed-parallel-calls"),  # calls after text: the harness's stream checker
        ("eino", "gemini/streamed-json-array"),  # eino-ext's Gemini model keeps thought signatures
    ],
)
def test_the_library_passes(
    harnesses: dict[str, HarnessAdapter], corpus: Corpus, harness: str, scenario_id: str
) -> None:
    outcome, summary, _ = verdict(harnesses[harness], corpus, scenario_id)
    assert outcome == "pass", summary


@pytest.mark.parametrize(
    ("harness", "scenario_id", "codes"),
    [
        # docs/findings.md: ChatCompletionAccumulator merges every call streamed at index 0.
        # The merged call also goes back named get_weatherget_weather (roundtrip/name-altered).
        (
            "openai-go",
            "openai-chat/ollama-parallel-index-zero",
            {"roundtrip/call-lost", "roundtrip/arguments-altered", "roundtrip/name-altered"},
        ),
        # An empty served id goes back empty: neither the SDK nor its accumulator mints one.
        (
            "openai-go",
            "openai-chat/gemini-compat-empty-ids",
            {"roundtrip/empty-id", "pairing/missing-result", "pairing/orphan-result"},
        ),
        # The agent's Anthropic and Google AI requests declare no tools (the providers drop its functions):
        # the recorded calls could not have been served to them, and the replay stops at the first.
        ("langchaingo", "anthropic-messages/parallel-same-tool", {"format/tools-dropped"}),
        # The Mistral provider sends tool results without their tool_call_id.
        ("langchaingo", "mistral-chat/one-call", {"pairing/orphan-result", "pairing/missing-result"}),
        ("langchaingo", "gemini/ids-results-reversed", {"format/tools-dropped"}),
        # The stream accumulator starts a new call on every delta that carries a type.
        (
            "langchaingo",
            "openai-chat/streamed-id-on-every-delta",
            {"pairing/duplicate-call-id", "pairing/output-lost", "roundtrip/arguments-altered", "roundtrip/call-lost"},
        ),
        # eino-ext's Gemini model gives each call a fresh UUID and sends no id back.
        ("eino", "gemini/ids-results-reversed", {"roundtrip/empty-id"}),
        # eino-contrib/ollama's ToolCall has no id.
        ("eino", "ollama-chat/one-call", {"roundtrip/empty-id"}),
        ("langchaingo", "anthropic-messages/recorded/mirascope-call-with-tool-error", {"format/tools-dropped"}),
        ("langchaingo", "anthropic-messages/web-search-beside-client-call", {"format/tools-dropped"}),
        ("langchaingo", "gemini/code-execution-beside-call", {"format/tools-dropped"}),
    ],
)
def test_the_library_fails_as_traced(
    harnesses: dict[str, HarnessAdapter], corpus: Corpus, harness: str, scenario_id: str, codes: set[str]
) -> None:
    outcome, summary, found = verdict(harnesses[harness], corpus, scenario_id)
    assert outcome == "fail", summary
    assert found == codes


@pytest.mark.parametrize(
    ("harness", "scenario_id", "message"),
    [
        # ChatCompletionAccumulator leaves a zero call at index 0, sent back as null.
        ("openai-go", "openai-chat/streamed-indices-from-one", "a tool_calls entry is not an object"),
        ("eino", "openai-chat/ollama-parallel-index-zero", "cannot concat ToolCalls with different tool id"),
    ],
)
def test_the_library_errs_as_traced(
    harnesses: dict[str, HarnessAdapter], corpus: Corpus, harness: str, scenario_id: str, message: str
) -> None:
    outcome, summary, _ = verdict(harnesses[harness], corpus, scenario_id)
    assert outcome == "error", summary
    assert message in summary


@pytest.mark.parametrize(
    ("harness", "scenario_id", "reason"),
    [
        # eino-ext's Claude model has one server tool option, tool search; Eino's ToolInfo no allowed_callers.
        ("eino", "anthropic-messages/toolset-member-call", "it has no way to declare browser_toolset_20260801"),
        ("eino", "anthropic-messages/web-search-beside-client-call", "it has no way to declare web_search_20250305"),
        ("eino", "anthropic-messages/mcp-tool-listing", "has no mcp_servers"),
        ("eino", "anthropic-messages/programmatic-tool-calling", "schema.ToolInfo has no allowed_callers"),
        # langchaingo's providers declare function tools only; a case with server tools alone is a skip.
        ("langchaingo", "anthropic-messages/recorded/mirascope-web-search-tool", "anthropicclient.Tool has a name"),
        ("langchaingo", "gemini/recorded/openinference-adk-code-execution", "with no way to declare codeExecution"),
        ("langchaingo", "anthropic-messages/toolset-member-call", "no way to declare browser_toolset_20260801"),
    ],
)
def test_a_server_tool_the_library_cannot_declare_is_a_skip_naming_its_limit(
    harnesses: dict[str, HarnessAdapter], corpus: Corpus, harness: str, scenario_id: str, reason: str
) -> None:
    outcome, summary, _ = verdict(harnesses[harness], corpus, scenario_id)
    assert outcome == "skip", summary
    assert reason in summary


@pytest.mark.parametrize(
    ("harness", "scenario_id", "codes"),
    [
        # eino-ext's Gemini model declares the built-ins (EnableCodeExecution, EnableGoogleSearch); it sends
        # the calls back without their ids, and the server-side search call not at all.
        ("eino", "gemini/code-execution-beside-call", {"roundtrip/empty-id"}),
        ("eino", "gemini/server-tool-beside-call", {"roundtrip/call-lost", "roundtrip/empty-id"}),
    ],
)
def test_a_declared_built_in_is_judged(
    harnesses: dict[str, HarnessAdapter], corpus: Corpus, harness: str, scenario_id: str, codes: set[str]
) -> None:
    outcome, summary, found = verdict(harnesses[harness], corpus, scenario_id)
    assert outcome == "fail", summary
    assert found == codes


@pytest.mark.parametrize(
    ("harness", "scenario_id"),
    [
        # Restored histories: the saved wire messages decoded into the SDK's own message type.
        ("openai-go", "openai-chat/recorded/openllmetry-chat-tool-calls-history"),
        ("openai-go", "kimi-chat/from-openai-chat"),  # Chat Completions saved, continued on Kimi
        ("anthropic-go", "anthropic-messages/recorded/openllmetry-tools-history"),
        ("anthropic-go", "anthropic-messages/recorded/mirascope-web-search-tool-stream"),  # two runs, streamed
        ("genai-go", "gemini/recorded/otel-vertexai-tool-events"),
        # Sessions, run by run on one conversation: each run's requests are the recorded ones.
        ("openai-go", "openai-chat/session-memory-window"),
        ("openai-go", "openai-responses/session-previous-response-id"),  # after previous_response_id
        ("eino", "openai-chat/session-memory-window"),  # each run continued with react.WithMessageFuture
        # langchaingo through its message history ([]llms.MessageContent), which the executor cannot take.
        ("langchaingo", "openai-chat/session-memory-window"),
        ("langchaingo", "openai-chat/recorded/openllmetry-chat-tool-calls-history"),
        ("langchaingo", "openai-chat/from-anthropic"),
        # A hand-off played as legs: the first leg on eino-ext's OpenAI model, continued on its Gemini model.
        ("eino", "gemini/cross-provider-from-openai-chat"),
        # Eino restores Gemini's id-less calls under the UUIDs its Gemini model mints.
        ("eino", "anthropic-messages/from-gemini-idless"),
        # The restored history's last call is answered with the suite's canned output, not empty, so the
        # Claude model writes its tool message as a tool_result.
        ("eino", "anthropic-messages/recorded/openllmetry-tools-history"),
    ],
)
def test_a_continued_conversation_is_judged(
    harnesses: dict[str, HarnessAdapter], corpus: Corpus, harness: str, scenario_id: str
) -> None:
    outcome, summary, _ = verdict(harnesses[harness], corpus, scenario_id)
    assert outcome == "pass", summary


@pytest.mark.parametrize(
    ("harness", "scenario_id", "codes"),
    [
        # A run cut off in its tool: the next run sends the call without a result; Eino repairs nothing.
        ("eino", "anthropic-messages/session-repair-interrupted", {"pairing/missing-result"}),
        # The tool runner stepped (NextMessage) and cut off in its tool: a new runner over the saved
        # Messages() sends the unanswered tool_use as it is.
        ("anthropic-go", "anthropic-messages/session-repair-interrupted", {"pairing/missing-result"}),
        # langchaingo's Google AI provider reads Gemini's calls without an id; continued on OpenAI, the
        # calls and results go without one (omitempty).
        (
            "langchaingo",
            "openai-chat/recorded/mirascope-resume-from-gemini",
            {"pairing/missing-result", "pairing/orphan-result"},
        ),
    ],
)
def test_a_continued_conversation_fails_as_traced(
    harnesses: dict[str, HarnessAdapter], corpus: Corpus, harness: str, scenario_id: str, codes: set[str]
) -> None:
    outcome, summary, found = verdict(harnesses[harness], corpus, scenario_id)
    assert outcome == "fail", summary
    assert found == codes


@pytest.mark.parametrize(
    ("harness", "scenario_id", "reason"),
    [
        ("openai-go", "openai-chat/from-anthropic", "openai-go takes a history in its own API's wire form only"),
        ("genai-go", "gemini/cross-provider-from-openai-chat", "one saved from openai-chat is the application's"),
    ],
)
def test_what_a_library_cannot_continue_is_a_skip_naming_its_limit(
    harnesses: dict[str, HarnessAdapter], corpus: Corpus, harness: str, scenario_id: str, reason: str
) -> None:
    outcome, summary, _ = verdict(harnesses[harness], corpus, scenario_id)
    assert outcome == "skip", summary
    assert reason in summary


def test_a_provider_without_tool_calls_is_declared_unsupported(
    harnesses: dict[str, HarnessAdapter], corpus: Corpus
) -> None:
    outcome, summary, _ = verdict(harnesses["langchaingo"], corpus, "ollama-chat/one-call")
    assert outcome == "skip"
    assert "sends no tools and reads no tool calls" in summary
