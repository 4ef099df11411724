"""The official Java SDKs under the harness protocol (harnesses/java): openai-java's loops as its README and
examples write them (the SDK has no tool runner) and anthropic-java's tool runner, over a few scenarios.

Built with the other Java harnesses (`mvn -q -f harnesses/java/pom.xml package`); elsewhere this module
skips with that command as the reason (tests/toolchains.py). Each failing case below is a finding of
docs/findings.md ("openai-java (Java)"), held here so that a release that fixes it, or a harness change
that hides it, shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT
from node_harnesses import verdict
from toolchains import require

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus

JAVA = ROOT / "harnesses" / "java"
BUILD = "mvn -q -f harnesses/java/pom.xml package"
OPENAI_JAVA = JAVA / "openai-java" / "target" / "openai-java-harness.jar"
ANTHROPIC_JAVA = JAVA / "anthropic-java" / "target" / "anthropic-java-harness.jar"

require("mvn", built=OPENAI_JAVA, install=BUILD, unit="java")
require("mvn", built=ANTHROPIC_JAVA, install=BUILD, unit="java")


def pinned(pom: Path, tag: str) -> str:
    text = pom.read_text(encoding="utf-8")
    return text.split(f"<{tag}>", 1)[1].split("<", 1)[0]


@pytest.fixture(scope="module")
def openai_java() -> Iterator[HarnessAdapter]:
    adapter = HarnessAdapter(["java", "-jar", str(OPENAI_JAVA)])
    try:
        yield adapter
    finally:
        adapter.close()


@pytest.fixture(scope="module")
def anthropic_java() -> Iterator[HarnessAdapter]:
    adapter = HarnessAdapter(["java", "-jar", str(ANTHROPIC_JAVA)])
    try:
        yield adapter
    finally:
        adapter.close()


# --- openai-java ------------------------------------------------------------------------------------


def test_openai_java_names_the_pinned_version(openai_java: HarnessAdapter) -> None:
    version = pinned(JAVA / "openai-java" / "pom.xml", "openai-java.version")
    identity = openai_java.identity()
    assert identity["name"] == "openai-java" and openai_java.version == version
    assert f"com.openai:openai-java {version}" in identity["libraries"]
    assert {"openai-chat", "openai-responses"} <= set(openai_java.apis)
    assert "anthropic-messages" not in openai_java.apis
    assert {"history", "sessions"} <= openai_java.continues


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/parallel-same-tool",
        "openai-chat/streamed-parallel-calls",  # folded by ChatCompletionAccumulator
        "openai-chat/custom-tool-call",  # ChatCompletionTool's custom variant
        "openai-responses/streamed-reasoning-then-parallel-calls",  # folded by ResponseAccumulator
        "openai-responses/computer-use",  # a client-run built-in answered as the tool guide builds it
        "openai-responses/streamed-function-and-custom",
        # a restored history (the saved messages as ChatCompletionMessageParam) and sessions of several runs
        "openai-chat/recorded/openllmetry-chat-tool-calls-history",
        "openai-chat/session-memory-window",
        "openai-responses/session-previous-response-id",
    ],
)
def test_openai_java_passes(openai_java: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(openai_java, corpus, scenario_id)
    assert outcome == "pass", summary


@pytest.mark.parametrize(
    ("scenario_id", "codes"),
    [
        # OJ1: ChatCompletionAccumulator keys a streamed call by its index alone: a second call at index 0
        # is appended to the first, which keeps the first id and name
        ("openai-chat/ollama-parallel-index-zero", {"roundtrip/call-lost", "roundtrip/arguments-altered"}),
        # OJ2: a call served with the id "" goes back with it, on the call and on its tool message
        (
            "openai-chat/gemini-compat-empty-ids",
            {"roundtrip/empty-id", "pairing/missing-result", "pairing/orphan-result"},
        ),
    ],
)
def test_openai_java_fails_with_the_traced_rules(
    openai_java: HarnessAdapter, corpus: Corpus, scenario_id: str, codes: set[str]
) -> None:
    outcome, summary, found = verdict(openai_java, corpus, scenario_id)
    assert outcome == "fail", summary
    assert found == codes


@pytest.mark.parametrize(
    ("scenario_id", "message"),
    [
        # OJ3: the accumulated call has no id (the delta had none); its required accessor throws
        ("openai-chat/streamed-calls-without-ids", "`id` is not set"),
        # OJ4: the accumulator takes a call's name from its first delta only; that delta had none
        ("openai-chat/streamed-name-after-arguments", "`name` is not set"),
    ],
)
def test_openai_java_throws(openai_java: HarnessAdapter, corpus: Corpus, scenario_id: str, message: str) -> None:
    outcome, summary, _ = verdict(openai_java, corpus, scenario_id)
    assert outcome == "error", summary
    assert message in summary


@pytest.mark.parametrize(
    ("scenario_id", "reason"),
    [
        ("openai-chat/from-anthropic", "one saved from anthropic-messages is the application's to translate"),
        ("openai-chat/session-repair-interrupted", "keeps no conversation of its own"),
        ("anthropic-messages/one-call", "openai-java speaks OpenAI's APIs only"),
    ],
)
def test_openai_java_skips_what_the_sdk_cannot_express(
    openai_java: HarnessAdapter, corpus: Corpus, scenario_id: str, reason: str
) -> None:
    outcome, summary, _ = verdict(openai_java, corpus, scenario_id)
    assert outcome == "skip" and reason in summary, summary


# --- anthropic-java ---------------------------------------------------------------------------------


def test_anthropic_java_names_the_pinned_version(anthropic_java: HarnessAdapter) -> None:
    version = pinned(JAVA / "anthropic-java" / "pom.xml", "anthropic-java.version")
    identity = anthropic_java.identity()
    assert identity["name"] == "anthropic-java" and anthropic_java.version == version
    assert f"com.anthropic:anthropic-java {version}" in identity["libraries"]
    assert tuple(anthropic_java.apis) == ("anthropic-messages",)


@pytest.mark.parametrize(
    "scenario_id",
    [
        "anthropic-messages/parallel-same-tool",
        "anthropic-messages/streamed-parallel-calls",  # the runner's streaming() form
        # server tools as recorded, and allowed_callers on the BetaTool
        "anthropic-messages/web-search-beside-client-call",
        "anthropic-messages/programmatic-tool-calling",
        "anthropic-messages/mcp-and-advisor",
        # a restored history on the SDK's message thread, and a session of two runs over it
        "anthropic-messages/recorded/openllmetry-tools-history",
        "anthropic-messages/recorded/mirascope-web-search-tool",
    ],
)
def test_anthropic_java_passes(anthropic_java: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(anthropic_java, corpus, scenario_id)
    assert outcome == "pass", summary


@pytest.mark.parametrize(
    ("scenario_id", "reason"),
    [
        ("anthropic-messages/from-gemini-idless", "no form for a conversation begun on gemini"),
        ("openai-chat/one-call", "anthropic-java speaks the Anthropic Messages API only"),
    ],
)
def test_anthropic_java_skips_what_the_sdk_cannot_express(
    anthropic_java: HarnessAdapter, corpus: Corpus, scenario_id: str, reason: str
) -> None:
    outcome, summary, _ = verdict(anthropic_java, corpus, scenario_id)
    assert outcome == "skip" and reason in summary, summary


def test_anthropic_java_cut_off_run_keeps_the_unanswered_call_in_its_thread(
    anthropic_java: HarnessAdapter, corpus: Corpus
) -> None:
    """The run is left on the reply that calls the cut-off tool, before the runner runs it; the SDK's
    message thread keeps that reply, and the next run sends its tool_use with no tool_result (AJ1)."""
    outcome, summary, codes = verdict(anthropic_java, corpus, "anthropic-messages/session-repair-interrupted")
    assert outcome == "fail" and "pairing/missing-result" in codes, summary
