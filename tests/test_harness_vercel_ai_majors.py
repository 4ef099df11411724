"""AI SDK 5 and 6 beside 7 (harnesses/vercel-ai with --major=5|6): the same tool loop, the older
majors installed under npm aliases (`ai-v5`, `@ai-sdk/openai-v6`, ...).

They run wherever `npm ci --prefix harnesses/vercel-ai` was run (CI requires it with
CONFORMANCE_REQUIRE_HARNESSES=1) and skip with that command as the reason elsewhere. Each failing
case below is a finding of docs/findings.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from node_harnesses import installed, started, verdict

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus

HARNESS = installed("vercel-ai", "ai-v5")
EMPTY_IDS = {"pairing/missing-result", "pairing/orphan-result", "roundtrip/arguments-altered", "roundtrip/empty-id"}


@pytest.fixture(scope="module")
def v5() -> Iterator[HarnessAdapter]:
    with started(HARNESS, "--major=5") as adapter:
        yield adapter


@pytest.fixture(scope="module")
def v6() -> Iterator[HarnessAdapter]:
    with started(HARNESS, "--major=6") as adapter:
        yield adapter


@pytest.mark.parametrize(("major", "alias"), [("5", "ai-v5"), ("6", "ai-v6")])
def test_each_major_is_its_own_column_with_the_aliased_versions(major: str, alias: str) -> None:
    lock = json.loads((HARNESS / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    with started(HARNESS, f"--major={major}") as adapter:
        identity = adapter.identity()
        assert identity["name"] == f"vercel-ai-v{major}"
        assert adapter.version == lock[f"node_modules/{alias}"]["version"]
        openai = lock[f"node_modules/@ai-sdk/openai-v{major}"]["version"]
        assert f"@ai-sdk/openai {openai}" in identity["libraries"]


@pytest.mark.parametrize("major", ["v5", "v6"])
def test_empty_served_ids_are_sent_back_empty_as_vercel_ai_7834_reports(
    major: str, request: pytest.FixtureRequest, corpus: Corpus
) -> None:
    """vercel/ai#7834 (cases/bugs/vercel-ai-7834): `toolCall.id ?? generateId()` keeps "", and the
    step's content then finds the first call for both ids (docs/findings.md, S1). AI SDK 7 passes."""
    outcome, summary, codes = verdict(request.getfixturevalue(major), corpus, "openai-chat/gemini-compat-empty-ids")
    assert outcome == "fail", summary
    assert codes == EMPTY_IDS


@pytest.mark.parametrize("major", ["v5", "v6"])
def test_gemini_code_execution_goes_back_as_a_function_call(
    major: str, request: pytest.FixtureRequest, corpus: Corpus
) -> None:
    """docs/findings.md, S2: the provider-executed code_execution call is sent back as a functionCall
    with an id the SDK made up (a roundtrip/invented-id warning), and its result is dropped."""
    outcome, summary, codes = verdict(request.getfixturevalue(major), corpus, "gemini/code-execution-beside-call")
    assert outcome == "fail", summary
    assert codes == {"pairing/missing-result"}


def test_v5_bedrock_streams_are_refused_under_zod_4(v5: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, S4: `input: z.unknown()` is a required key in zod/v4 and Bedrock's
    contentBlockStart has no input."""
    outcome, summary, _ = verdict(v5, corpus, "bedrock-converse/streamed-parallel-calls")
    assert outcome == "error", summary
    assert "contentBlockStart" in summary and "nonoptional" in summary


def test_v5_drops_gemini_server_tool_calls(v5: HarnessAdapter, corpus: Corpus) -> None:
    """docs/findings.md, S3: @ai-sdk/google 2 reads no toolCall parts."""
    outcome, summary, codes = verdict(v5, corpus, "gemini/server-tool-beside-call")
    assert outcome == "fail", summary
    assert codes == {"roundtrip/call-lost"}


@pytest.mark.parametrize(
    "scenario_id",
    ["openai-chat/streamed-calls-without-ids", "anthropic-messages/programmatic-tool-calling", "kimi-chat/one-call"],
)
def test_v6_passes_what_v7_passes(v6: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(v6, corpus, scenario_id)
    assert outcome == "pass", summary


def test_v5_skips_what_its_packages_lack(v5: HarnessAdapter, corpus: Corpus) -> None:
    outcome, summary, _ = verdict(v5, corpus, "kimi-chat/one-call")
    assert outcome == "skip" and "@ai-sdk/moonshotai has no release for AI SDK 5" in summary
    outcome, summary, _ = verdict(v5, corpus, "openai-responses/streamed-function-and-custom")
    assert outcome == "skip" and "no custom (free-form) tools" in summary
    outcome, summary, _ = verdict(v5, corpus, "anthropic-messages/mcp-tool-listing")
    assert outcome == "skip" and "(AI SDK 5) has no mcpServers provider option" in summary
    outcome, summary, _ = verdict(v5, corpus, "anthropic-messages/programmatic-tool-calling")
    assert outcome == "skip" and "(AI SDK 5) has no allowedCallers tool option" in summary
    outcome, summary, _ = verdict(v5, corpus, "openai-responses/mcp-approval-flow")
    assert outcome == "skip" and "its `tools` make no openai.mcp" in summary


def test_a_chat_stopped_in_its_tool_goes_on_without_its_result_on_v5_and_is_refused_on_v6(
    v5: HarnessAdapter, v6: HarnessAdapter, corpus: Corpus
) -> None:
    """docs/findings.md, S7: AI SDK 5 sends the stopped run's call without a result; AI SDK 6 refuses the
    chat's messages before sending (MissingToolResultsError), as 7 does."""
    outcome, summary, codes = verdict(v5, corpus, "anthropic-messages/session-repair-interrupted")
    assert outcome == "fail" and codes == {"pairing/missing-result"}, summary
    outcome, summary, _ = verdict(v6, corpus, "anthropic-messages/session-repair-interrupted")
    assert outcome == "error" and "Tool result is missing for tool call" in summary, summary


def test_v5_sends_stored_calls_back_by_reference_and_passes(v5: HarnessAdapter, corpus: Corpus) -> None:
    """With `store` on (the recording's default) AI SDK 5 sends each earlier output item back as an
    `item_reference` to its id, which the provider resolves to the item it stored."""
    outcome, summary, _ = verdict(v5, corpus, "openai-responses/recorded/mirascope-model-call-with-tool-outputs")
    assert outcome == "pass", summary


def test_v6_reads_the_timestamp_from_the_recorded_date(v6: HarnessAdapter, corpus: Corpus) -> None:
    """@ai-sdk/amazon-bedrock 4 takes the response's `date` header as its timestamp: one Date header
    must reach it, the recorded one."""
    outcome, summary, _ = verdict(v6, corpus, "bedrock-converse/recorded/otel-botocore-converse-tool-call")
    assert outcome == "pass", summary
