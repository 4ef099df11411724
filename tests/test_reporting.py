"""What a failure report says: provider errors told with the case's ids, a diff that does not list
correctly minted ids, long values cut, skips and warnings summarised, denominators that count the
APIs an adapter serves."""

from __future__ import annotations

import time
from typing import Any

import pytest
from deepdiff import DeepDiff

from conformance.cli import main
from conformance.connectors.codec import run_codec
from conformance.corpus.loading import Corpus
from conformance.engine.dialects import dialect_for
from conformance.engine.diffing import issued_ids, request_diff, skeleton
from conformance.engine.neutral import ToolCallPart, ToolResultPart
from conformance.engine.outcomes import CaseResult
from conformance.engine.quoting import Quote, adapt
from conformance.engine.violations import Violation
from conformance.recordings.cassette import load_cassette
from conformance.reference.openai_chat import OpenAIChatCodec
from conformance.reports.textreport import (
    case_text,
    clip,
    nothing_judged,
    skip_lines,
    summary_table,
    warning_lines,
    warnings_summary,
)

# --- provider errors in the case's terms -----------------------------------------------------

CHAT = {
    "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "tool_calls": [{"id": "call_" + "e" * 36, "type": "function"}]},
        {"role": "tool", "tool_call_id": "call_Bm2RxT7yLq0VcN4kSd9Hf3Ja", "content": "21"},
    ]
}
ANTHROPIC = {
    "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01Case0000000000000000"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01Orphan000000000000"}]},
    ]
}


@pytest.mark.parametrize(
    ("verbatim", "location", "body", "text", "substituted"),
    [
        (  # a list of the report's ids becomes the case's one
            "messages.22: `tool_use` ids were found without `tool_result` blocks immediately after: "
            "toolu_01HqfLWiAKQLsniF2fBGF2KD, toolu_01SJzDkeAZER935cpGFptTNk. Each `tool_use` block must have a "
            "corresponding `tool_result` block in the next message.",
            "request[0].messages[1].content[0].id",
            ANTHROPIC,
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
            "toolu_01Case0000000000000000. Each `tool_use` block must have a corresponding `tool_result` block in "
            "the next message.",
            (
                ("toolu_01HqfLWiAKQLsniF2fBGF2KD, toolu_01SJzDkeAZER935cpGFptTNk", "toolu_01Case0000000000000000"),
                ("messages.22", "messages.1"),
            ),
        ),
        (  # the element holding the id: its indices become the case's
            "messages.12.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
            "toolu_01JLpBvrkaJHBDU3z3cWqtyv. Each `tool_result` block must have a corresponding `tool_use` block "
            "in the previous message.",
            "request[1].messages[2].content[0].tool_use_id",
            ANTHROPIC,
            "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
            "toolu_01Orphan000000000000. Each `tool_result` block must have a corresponding `tool_use` block in the "
            "previous message.",
            (
                ("toolu_01JLpBvrkaJHBDU3z3cWqtyv", "toolu_01Orphan000000000000"),
                ("messages.12.content.0", "messages.2.content.0"),
            ),
        ),
        (  # the same field, and the id's own length
            "Invalid 'messages[2].tool_calls[0].id': string too long. Expected a string with maximum length 40, "
            "but got a string with length 83 instead.",
            "request[1].messages[1].tool_calls[0].id",
            CHAT,
            "Invalid 'messages[1].tool_calls[0].id': string too long. Expected a string with maximum length 40, "
            "but got a string with length 41 instead.",
            (("length 83", "length 41"), ("messages[2].tool_calls[0].id", "messages[1].tool_calls[0].id")),
        ),
        (  # placeholders, and Mistral's "id was X but"
            "Tool call id was turn1_0 but must be a-z, A-Z, 0-9, with a length of 9.",
            "request[1].messages[2].tool_call_id",
            CHAT,
            "Tool call id was call_Bm2RxT7yLq0VcN4kSd9Hf3Ja but must be a-z, A-Z, 0-9, with a length of 9.",
            (("turn1_0", "call_Bm2RxT7yLq0VcN4kSd9Hf3Ja"),),
        ),
    ],
)
def test_a_provider_error_is_told_with_the_cases_ids(
    verbatim: str, location: str, body: Any, text: str, substituted: tuple[tuple[str, str], ...]
) -> None:
    quote = adapt(verbatim, location, body)
    assert quote == Quote(text, substituted)


@pytest.mark.parametrize(
    ("verbatim", "location", "body", "received", "text"),
    [
        (  # Mistral's ids have no prefix: the report's is still the report's
            "Unexpected tool call id pR1CHbWdz in tool results",
            "request[1].messages[2].tool_call_id",
            {"messages": [{}, {}, {"tool_call_id": "Xy12Ab9Qz"}]},
            None,
            "Unexpected tool call id Xy12Ab9Qz in tool results",
        ),
        (  # an empty id is told as empty, never as the report's
            "messages.12.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
            "toolu_01JLpBvrkaJHBDU3z3cWqtyv. Each",
            "request[1].messages[2].content[0].tool_use_id",
            {"messages": [{}, {}, {"content": [{"tool_use_id": ""}]}]},
            "",
            'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "". Each',
        ),
        (  # an id field left out: the id the violation reports as sent
            "No tool output found for function call call_XXX.",
            "request[0].input[1].call_id",
            {"input": [{}, {}]},
            "call_case",
            "No tool output found for function call call_case.",
        ),
    ],
)
def test_a_quote_never_shows_the_reports_id_as_the_cases(
    verbatim: str, location: str, body: Any, received: Any, text: str
) -> None:
    quote = adapt(verbatim, location, body, received)
    assert quote is not None and quote.text == text


def test_an_empty_id_is_reported_as_empty_through_the_results_file() -> None:
    violation = Violation("roundtrip/empty-id", "error", "request[1].messages[1].tool_calls[0].id", "m", "call_1", "")
    again = CaseResult.from_json(CaseResult("c", "openai-chat", "fail", [violation]).to_json())
    assert again.violations[0].received == ""
    assert "received: ''" in case_text(again)


@pytest.mark.parametrize(
    ("verbatim", "location"),
    [
        # Bedrock names the message that should hold the results, not the call's: left as reported
        ("Expected toolResult blocks at messages.2.content for the following Ids: none", "request[0].messages[1].id"),
        # a path through another field is not the location's
        ("messages.1.content.1.tool_use.id: String should match pattern", "request[0].messages[1].content[0].id"),
        # field names are not ids
        ("Expected 'call_id' on a function_call_output item.", "request[0].input[1].call_id"),
        # nothing at the location: nothing to put in place
        ("No tool output found for function call call_XXX.", "request[0].input[7].call_id"),
    ],
)
def test_nothing_is_substituted_where_the_case_does_not_say(verbatim: str, location: str) -> None:
    body = {"messages": [{}, {"id": "x", "content": [{"id": "toolu_x"}]}], "input": [{}, {"call_id": "call_1"}]}
    assert adapt(verbatim, location, body) is None


def test_a_real_failure_quotes_the_cases_id_and_keeps_the_verbatim_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "mellea-1431"]) == 0
    out = capsys.readouterr().out
    served = "call_Bm2RxT7yLq0VcN4kSd9Hf3Ja"  # the scenario's call left without a result
    assert f"The following tool_call_ids did not have response messages: {served}\n" in out
    assert f"(with this case's '{served}' for 'call_ctiGXrgM0r61c6nkf2v7zbKb';" in out
    assert "verbatim, as reported in https://github.com/sdcb/chats/pull/132:" in " ".join(out.split())
    assert "did not have response messages:\n        call_ctiGXrgM0r61c6nkf2v7zbKb)" in out


def test_the_adapted_quote_survives_the_results_file() -> None:
    violation = Violation(
        "pairing/orphan-result", "error", "request[1].messages[2].tool_call_id", "m", provider_error="e"
    )
    result = CaseResult("c", "openai-chat", "fail", [violation], quotes={0: Quote("e2", (("a", "b"),))})
    data = result.to_json()
    assert data["violations"][0]["provider_error"] == "e"  # the verbatim text keeps its field
    assert data["violations"][0]["provider_error_for_case"] == "e2"
    assert data["violations"][0]["provider_error_substituted"] == [["a", "b"]]
    again = CaseResult.from_json(data)
    assert again.quotes == result.quotes and again.violations == result.violations


# --- the request diff and minted ids ---------------------------------------------------------


class MintsOtherIds(OpenAIChatCodec):
    """Correct: where the wire gave `""`, it mints its own ids (other than the recording's), paired right."""

    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"] or f"call_mine_{part['arguments']['city']}"

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"] or f"call_mine_{'Paris' if 'Paris' in part['output'] else 'Tokyo'}"


class MintsApart(MintsOtherIds):
    """A result minted apart from its call."""

    def result_id(self, part: ToolResultPart) -> str | None:
        return part["call_id"] or "call_result_" + ("Paris" if "Paris" in part["output"] else "Tokyo")


class MintsTooLong(MintsOtherIds):
    def call_id(self, part: ToolCallPart) -> str | None:
        return "call_" + "x" * 60 + part["arguments"]["city"]

    def result_id(self, part: ToolResultPart) -> str | None:
        return "call_" + "x" * 60 + ("Paris" if "Paris" in part["output"] else "Tokyo")


def _diff(codec: OpenAIChatCodec, corpus: Corpus, case: str) -> tuple[str | None, Any]:
    scenario = corpus.scenarios[case]
    dialect = dialect_for(scenario.api)
    exchange = run_codec(codec, scenario, load_cassette(corpus.cassette_path(scenario)), dialect)
    raw = DeepDiff(
        [skeleton(dialect, t.expected_request) for t in exchange.turns],
        [skeleton(dialect, t.request) for t in exchange.turns],
    )
    return request_diff(exchange, dialect, issued_ids(scenario)), raw


def test_correctly_minted_ids_are_not_listed_as_changes(corpus: Corpus) -> None:
    diff, raw = _diff(MintsOtherIds(), corpus, "openai-chat/gemini-compat-empty-ids")
    assert raw  # the ids differ from the recording's
    assert diff is None


def test_minted_ids_paired_wrongly_or_rejected_still_show(corpus: Corpus) -> None:
    apart, _ = _diff(MintsApart(), corpus, "openai-chat/gemini-compat-empty-ids")
    assert apart is not None and 'changed from "<minted 1>" to "call_result_Paris"' in apart
    assert "['calls'][0]['id']" not in apart  # the calls themselves were minted as well as the recording's
    too_long, _ = _diff(MintsTooLong(), corpus, "openai-chat/gemini-compat-empty-ids")
    assert too_long is not None and 'changed from "<minted 1>" to "call_xxx' in too_long


def test_ids_the_provider_issued_are_compared_as_they_are(corpus: Corpus) -> None:
    diff, _ = _diff(MintsApart(), corpus, "openai-chat/one-call")  # one-call's ids are the provider's
    assert diff is None  # MintsApart only mints where the wire had no id
    from conformance.reproductions.genkit import NameAsId

    named, _ = _diff(NameAsId(), corpus, "openai-chat/one-call")
    assert named is not None and 'changed from "call_Vq3XbR0LkS8mJ2tN6yPw4cDe" to "get_weather"' in named


# --- text: long values, skips, warnings, denominators --------------------------------------------


def test_a_sixteen_megabyte_id_is_cut_and_quickly() -> None:
    big = "call_" + "x" * (16 * 1024 * 1024)
    violation = Violation(
        "format/id-length",
        "error",
        "request[1].messages[1].tool_calls[0].id",
        f"The id {big!r} is longer than openai-chat accepts",
        expected="at most 40 characters",
        received=big,
        provider_error="string too long",
    )
    result = CaseResult("c", "openai-chat", "fail", [violation], diff=f"changed to {big}", summary=big)
    started = time.perf_counter()
    text = case_text(result)
    assert time.perf_counter() - started < 5  # textwrap on the whole id takes hours
    assert len(text) < 3000 and "16,777,221 characters" in text
    assert clip("short text") == "short text"


def _result(case: str, outcome: str, api: str = "openai-chat", **kwargs: Any) -> CaseResult:
    return CaseResult(case, api, outcome, **kwargs)  # type: ignore[arg-type]


def test_skips_are_one_line_per_reason() -> None:
    results = [
        _result("a", "skip", summary="begins with a gemini history"),
        _result("b", "skip", summary="begins with a gemini history"),
        _result("c", "skip", summary="no codec"),
        _result("d", "pass"),
    ]
    assert skip_lines(results) == [
        "3 cases skipped (-v lists each):",
        "  2  begins with a gemini history",
        "  1  no codec",
    ]
    assert skip_lines(results[3:]) == []


def test_warnings_are_one_line_per_code_and_case_then_summarised() -> None:
    warning = Violation("decode/unstable-id", "warning", "response[0]", "Decoding twice gave other ids")
    other = Violation("format/id-length", "warning", "request[1]", "Too long")
    results = [_result("a", "pass", violations=[warning, warning, other]), _result("b", "pass")]
    assert warning_lines(results, "conformance::") == [
        "conformance::a: warning decode/unstable-id at response[0]: Decoding twice gave other ids (and 1 more like it)",
        "conformance::a: warning format/id-length at request[1]: Too long",
    ]
    results = [_result("a", "pass", violations=[warning, warning]), _result("b", "pass")]
    assert warnings_summary(results) == "2 warnings in 1 case: decode/unstable-id 2"
    assert warnings_summary(results[1:]) is None


def test_the_summary_counts_the_apis_the_adapter_serves() -> None:
    results = [_result("a", "pass"), *(_result(f"g{i}", "skip", api="gemini") for i in range(5))]
    table = summary_table(results, ["openai-chat"]).splitlines()
    assert table[-2].split() == ["all", "1", "1"]
    assert table[-1] == "counted: the 1 API the adapter serves; not counted: 5 cases of 1 other API (gemini)"


def test_a_run_that_judges_nothing_says_why() -> None:
    assert nothing_judged([_result("a", "pass")]) is None
    assert nothing_judged([]) == "no case was selected, so nothing was tested"
    assert nothing_judged([_result("a", "skip"), _result("b", "not-run")], []) == (
        "no case was judged: of 2 cases, 1 skipped, 1 not run (deselected, or the run stopped); "
        "the adapter serves none of the selected APIs"
    )
