"""The go-openai harness (harnesses/go/go-openai): github.com/sashabaranov/go-openai has no tool loop of its
own, so the harness runs the loop of its completion-with-tool example (and folds streams by the tool
call's Index) and, on the Responses API, its responses example's chaining carried on to tool calls; the
verdicts judge those loops over the library's types and encoding (docs/findings.md).

The harness is built by `sh harnesses/go/build go-openai` into a cache directory outside the repository;
where go or the binary is missing the module is skipped with that command as the reason (a failure where
CI requires the unit). The tests never build: after changing the harness, build it again.
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

MODULE = "github.com/sashabaranov/go-openai"
BIN = Path(
    os.environ.get("CONFORMANCE_GO_BIN")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "toolcall-conformance" / "go-bin"
)
require("go", BIN / "go-openai", "sh harnesses/go/build go-openai", unit="go-openai")


@pytest.fixture(scope="module")
def harness() -> Iterator[HarnessAdapter]:
    adapter = HarnessAdapter([str(BIN / "go-openai")])
    try:
        yield adapter
    finally:
        adapter.close()


def test_it_names_the_library_and_the_pinned_version(harness: HarnessAdapter) -> None:
    go_mod = (ROOT / "harnesses" / "go" / "go-openai" / "go.mod").read_text(encoding="utf-8")
    pinned = re.search(rf"^\s*(?:require\s+)?{re.escape(MODULE)} (v\S+)", go_mod, re.M)
    assert pinned
    identity = harness.identity()
    assert identity["name"] == "go-openai" and identity["language"] == "go"
    assert harness.version == pinned.group(1)
    assert set(harness.apis) == {"openai-chat", "kimi-chat", "openai-responses", "openresponses", "azure-foundry"}


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/parallel-same-tool",
        "openai-chat/streamed-interleaved-parallel-calls",  # calls folded by their Index
        "openai-chat/streamed-indices-from-one",
        "openai-chat/ollama-parallel-index-zero",  # a new ID at a taken index starts a new call
        "openai-chat/session-memory-window",
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",  # the saved messages as ChatCompletionMessage
        "kimi-chat/index-continues-across-turns",
        # Responses: outputs chained with PreviousResponseID, the client-run items answered as the API's JSON.
        "openai-responses/session-previous-response-id",
        "openai-responses/mcp-approval-flow",
        "openai-responses/computer-use",
        "openai-responses/streamed-function-and-custom",  # a custom tool declared through ResponseTool.Parameters
        "azure-foundry/bing-grounding-pairs",
    ],
)
def test_the_loop_passes(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "pass", summary


@pytest.mark.parametrize(
    "scenario_id",
    [
        # An empty served ID goes back empty: ToolCall.ID is a plain string, and the loop mints none.
        "openai-chat/gemini-compat-empty-ids",
        "openai-chat/streamed-calls-without-ids",
    ],
)
def test_the_loop_fails_as_traced(harness: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, codes = verdict(harness, corpus, scenario_id)
    assert outcome == "fail", summary
    assert codes == {"roundtrip/empty-id", "pairing/missing-result", "pairing/orphan-result"}


@pytest.mark.parametrize(
    ("scenario_id", "reason"),
    [
        ("openai-chat/custom-tool-call", "go-openai's ToolCall holds a function call only"),
        ("openai-chat/from-anthropic", "go-openai takes a history in its own API's wire form only"),
        ("gemini/one-call", "go-openai speaks OpenAI's APIs only"),
    ],
)
def test_what_the_library_cannot_express_is_a_skip_naming_its_limit(
    harness: HarnessAdapter, corpus: Corpus, scenario_id: str, reason: str
) -> None:
    outcome, summary, _ = verdict(harness, corpus, scenario_id)
    assert outcome == "skip", summary
    assert reason in summary
