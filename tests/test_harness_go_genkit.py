"""Genkit Go through its harnesses (harnesses/go/genkit-v*), one per version, on the scenarios that tell
the versions apart: each version's exact outcome and codes, traced in docs/findings.md, Genkit (Go).

The harnesses are built by `harnesses/go/build` into the Go harness bin directory; the module is
skipped without Go or without the builds (failed where CI requires harnesses).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from toolchains import require

from conformance.cli import main
from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus
from conformance.running.runner import RunOptions, run_scenario

VERSIONS = ("v0.6.2", "v0.7.0", "v1.0.0", "v1.3.0", "v1.4.0", "v1.12.0")


def _bin() -> Path:
    if os.environ.get("CONFORMANCE_GO_BIN"):
        return Path(os.environ["CONFORMANCE_GO_BIN"])
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "toolcall-conformance" / "go-bin"


BIN = _bin()
for _version in VERSIONS:
    require("go", BIN / f"genkit-{_version}", install="harnesses/go/build", unit="go-genkit")

Verdict = tuple[str, frozenset[str]]
PASS: Verdict = ("pass", frozenset())
NAME_AS_ID: Verdict = ("fail", frozenset({"roundtrip/id-altered"}))
OUTPUT_AS_ID: Verdict = ("fail", frozenset({"pairing/missing-result", "pairing/orphan-result"}))
SHARED_NAME: Verdict = ("fail", frozenset({"pairing/duplicate-call-id"}))
PANIC: Verdict = ("error", frozenset())
OLLAMA: Verdict = ("fail", frozenset({"pairing/count-mismatch", "pairing/missing-result", "roundtrip/empty-id"}))
GEMINI_OLD: Verdict = ("fail", frozenset({"roundtrip/empty-id", "roundtrip/opaque-dropped"}))
GEMINI: Verdict = ("fail", frozenset({"roundtrip/empty-id"}))
SKIP: Verdict = ("skip", frozenset())
NO_TOOLS: Verdict = ("error", frozenset())
# Gemini 2.5 took the call back without its signature: that drop is a warning, not among the errors.
CHUNK_OLD: Verdict = ("fail", frozenset({"roundtrip/call-lost"}))

# scenario -> the outcome and error codes of each version, in VERSIONS' order.
EXPECTED: dict[str, tuple[Verdict, ...]] = {
    # v0.6.2 sends the tool's name as the id (convertToolCall); v0.7.0 the output as tool_call_id
    # (ToolMessage's arguments swapped); v1.0.0 fixed both.
    "openai-chat/one-call": (NAME_AS_ID, OUTPUT_AS_ID, PASS, PASS, PASS, PASS),
    # Served ids "" fall back to the tool's name until v1.4.0 mints refs (genkit-2224).
    "openai-chat/gemini-compat-empty-ids": (
        SHARED_NAME,
        ("fail", frozenset({"pairing/duplicate-call-id", "pairing/missing-result", "pairing/orphan-result"})),
        SHARED_NAME,
        SHARED_NAME,
        PASS,
        PASS,
    ),
    # Streamed parallel calls glue their arguments into one call whose JSON does not parse: a panic
    # up to v1.0.x (genkit-3536); openai-go's accumulator from v1.0.4.
    "openai-chat/streamed-parallel-calls": (PANIC, PANIC, PANIC, PASS, PASS, PASS),
    # The Ollama plugin keeps no call ids and puts a turn's results in one message.
    "ollama-chat/parallel-same-tool": (OLLAMA,) * 6,
    # googlegenai drops the functionCall id in every version, the thought signature before v1.3.0.
    "gemini/thought-signature-sequential": (GEMINI_OLD, GEMINI_OLD, GEMINI_OLD, GEMINI, GEMINI, GEMINI),
    # The Anthropic plugin exists from v1.3.0.
    "anthropic-messages/parallel-same-tool": (SKIP, SKIP, SKIP, PASS, PASS, PASS),
    # Recorded: two calls streamed at indexes 0 and 1, each whole JSON; glued into one before v1.0.4.
    "openai-chat/recorded/mirascope-call-with-tools-stream": (PANIC, PANIC, PANIC, PASS, PASS, PASS),
    # compat_oai lists gpt-3.5-turbo without tool support until v1.12.0.
    "openai-chat/recorded/openinference-autogen-assistant-agent-run": (NO_TOOLS,) * 5 + (PASS,),
    # Only the first of two function calls in one streamed chunk is kept, and no signature, before v1.3.0.
    "gemini/recorded/mirascope-call-with-tools-stream": (CHUNK_OLD, CHUNK_OLD, CHUNK_OLD, PASS, PASS, PASS),
    # Server tools go in the plugin's config: v1.3.0 and v1.4.0 replace the config's tools with the
    # application's (a skip); v1.12.0 sends both, then reads a tool_use back without its toolset_name.
    "anthropic-messages/toolset-member-call": (SKIP,) * 5 + (("fail", frozenset({"roundtrip/opaque-dropped"})),),
    # A server tool's block in the response: v1.12.0 declares the web search and refuses its server_tool_use.
    "anthropic-messages/web-search-beside-client-call": (SKIP,) * 5 + (("error", frozenset()),),
    # Gemini's built-ins in googlegenai's config: kept beside the application's tools from v1.3.0 (a skip
    # before), whose code execution parts the plugin cannot send back; alone, kept by every version.
    "gemini/code-execution-beside-call": (SKIP,) * 3 + (("error", frozenset()),) * 3,
    "gemini/recorded/openinference-adk-code-execution": (PASS,) * 6,
    # A run cut off in its tool (ToolContext.Interrupt) leaves the calls unanswered in History(), and the
    # next run sends them so; with v0.6.2's name-as-id on the call.
    "openai-chat/session-repair-interrupted": (("fail", frozenset({"pairing/missing-result", "roundtrip/id-altered"})),)
    + (("fail", frozenset({"pairing/missing-result"})),) * 5,
    # A session of three runs, each genkit.Generate over the last response's History(): judged run by
    # run, with the Ref/Name mix-up of the 0.x releases on the calls of the earlier runs.
    "openai-chat/session-memory-window": (
        NAME_AS_ID,
        ("fail", frozenset({"pairing/missing-result", "pairing/orphan-result"})),
        PASS,
        PASS,
        PASS,
        PASS,
    ),
    # Hand-offs: the first leg run on its own API's plugin (ai.WithReturnToolRequests, its calls answered),
    # then continued on the case's model. Before v1.3.0 no plugin speaks the Anthropic leg.
    "mistral-chat/from-anthropic": (SKIP,) * 3 + (("fail", frozenset({"format/id-length", "format/id-pattern"})),) * 3,
    # The Anthropic plugin keeps a tool_use input as raw JSON; googlegenai wraps any input that is not a map
    # as {"input": ...}, so the calls go to Gemini with other arguments.
    "gemini/from-anthropic": (SKIP,) * 3 + (("fail", frozenset({"roundtrip/call-lost"})),) * 3,
    # Gemini's calls read without an id: v1.3.0 sends them to Anthropic with "", v1.4.0 mints refs.
    "anthropic-messages/from-gemini-idless": (SKIP,) * 3
    + (("fail", frozenset({"pairing/missing-result", "pairing/orphan-result"})),)
    + (PASS,) * 2,
}
# What an error's summary says, by scenario (the rest panic on glued arguments).
ERRORS = {
    "openai-chat/recorded/openinference-autogen-assistant-agent-run": "does not support tool use",
    "gemini/code-execution-beside-call": "unknown part in the request",
    "anthropic-messages/web-search-beside-client-call": "unknown part: anthropic.ContentBlockUnion{",
}


@pytest.fixture(scope="module", params=VERSIONS)
def harness(request: pytest.FixtureRequest) -> Iterator[tuple[str, HarnessAdapter]]:
    adapter = HarnessAdapter([str(BIN / f"genkit-{request.param}")])
    try:
        yield request.param, adapter
    finally:
        adapter.close()


def test_each_harness_is_its_genkit_version(harness: tuple[str, HarnessAdapter]) -> None:
    version, adapter = harness
    assert (adapter.name, adapter.version) == ("genkit-go", version.removeprefix("v"))
    identity = adapter.identity()
    assert identity["language"] == "go"
    assert f"github.com/firebase/genkit/go {version}" in identity["libraries"]
    served = {"openai-chat", "kimi-chat", "mistral-chat", "gemini", "ollama-chat"}
    if version in ("v1.3.0", "v1.4.0", "v1.12.0"):
        served.add("anthropic-messages")
    assert set(adapter.apis) == served


@pytest.mark.parametrize("scenario_id", sorted(EXPECTED))
def test_each_version_gives_its_codes(harness: tuple[str, HarnessAdapter], corpus: Corpus, scenario_id: str) -> None:
    version, adapter = harness
    outcome, codes = EXPECTED[scenario_id][VERSIONS.index(version)]
    result = run_scenario(adapter, corpus.scenarios[scenario_id], corpus, options=RunOptions(timeout=60))
    assert (str(result.outcome), frozenset(v.code for v in result.errors)) == (outcome, codes), result.summary
    if outcome == "error":
        assert ERRORS.get(scenario_id, "unmarshal failed to parse json string") in result.summary


def test_reproduce_runs_genkit_itself_for_2224(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "genkit-2224"]) == 0
    out = capsys.readouterr().out
    assert "reproduction: the harness harnesses/go/run genkit-v1.3.0 (genkit-go 1.3.0)" in out
    assert "REPRODUCED in genkit-go 1.3.0 by the library itself: reproduces: pairing/duplicate-call-id" in out


def test_reproduce_3247_shows_what_the_release_sends(capsys: pytest.CaptureFixture[str]) -> None:
    """No release has both halves of genkit-3247: v0.7.0 already sends the served id on the call."""
    assert main(["reproduce", "genkit-3247"]) == 0
    out = capsys.readouterr().out
    assert "(genkit-go 0.7.0)" in out
    assert out.startswith("genkit-3247 in genkit-go 0.7.0 (the library itself): Genkit Go 0.7.0 compat_oai sends")
    assert "REPRODUCED in genkit-go 0.7.0 by the library itself: reproduces: pairing/missing-result, " in out


# What a version's plugin cannot be given, named in its skip (None: not a skip of this kind).
NAMED_SKIPS: dict[str, tuple[str | None, ...]] = {
    # The Anthropic plugin's config is MessageNewParams, with no mcp_servers.
    "anthropic-messages/mcp-tool-listing": (None,) * 3 + ("has no mcp_servers",) * 3,
    # googlegenai before v1.3.0 replaces the config's tools with the application's.
    "gemini/server-tool-beside-call": ("replaces the config's GenerateContentConfig.Tools",) * 3 + (None,) * 3,
    # The Anthropic plugin at v1.3.0 and v1.4.0 sends the application's tools alone.
    "anthropic-messages/web-search-beside-client-call": (None,) * 3
    + ("to the declarations of ai.WithTools alone",) * 2
    + (None,),
}


@pytest.mark.parametrize("scenario_id", sorted(NAMED_SKIPS))
def test_a_tool_the_version_cannot_be_given_is_a_skip_naming_it(
    harness: tuple[str, HarnessAdapter], corpus: Corpus, scenario_id: str
) -> None:
    version, adapter = harness
    reason = NAMED_SKIPS[scenario_id][VERSIONS.index(version)]
    if reason is None:
        return
    result = run_scenario(adapter, corpus.scenarios[scenario_id], corpus, options=RunOptions(timeout=60))
    assert str(result.outcome) == "skip", result.summary
    assert reason in result.summary
