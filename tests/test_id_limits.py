"""Dated id limits: the format rules apply the limit enforced today, warn where a dropped one is still
enforced elsewhere, and check every id a dialect exposes against its wire type's caps."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from buggy import LongPrefix, adapter
from conftest import ROOT

from conformance.corpus.loading import Corpus, Limit, build_corpus, read_case_files
from conformance.engine.dialects import dialect_for
from conformance.engine.neutral import ToolCallPart, ToolResultPart
from conformance.engine.rules import CheckContext, idformat
from conformance.recordings.cassette import load_cassette
from conformance.reference.openai_chat import OpenAIChatCodec
from conformance.running.runner import reproduce, run_scenario


class Padded(OpenAIChatCodec):
    """Ids from a history begun on another API mapped to a fixed length, the same on a call and its
    tool message; this API's own ids go back unchanged."""

    def __init__(self, length: int) -> None:
        self.length = length

    def call_id(self, part: ToolCallPart) -> str | None:
        mapped = super().call_id(part) or ""
        return mapped if self.native(part) else mapped.ljust(self.length, "x")

    def result_id(self, part: ToolResultPart) -> str | None:
        mapped = super().result_id(part) or ""
        return mapped if self.native(part) else mapped.ljust(self.length, "x")


SCENARIO = "openai-chat/from-anthropic"


def _length_violations(corpus: Corpus, length: int, profile: str = "default") -> list[Any]:
    result = run_scenario(adapter(Padded(length)), corpus.scenarios[SCENARIO], corpus, profile)
    return [v for v in result.violations if v.code == "format/id-length"]


def _check(corpus: Corpus, api: str, body: dict[str, Any], profile: str = "default") -> list[Any]:
    dialect = dialect_for(api)
    return idformat.check_request(CheckContext(corpus, dialect, profile), dialect.history(body, "request[0]"))


# OpenAI Chat: 40 characters until 2026-07-14, 64 today


def test_a_limit_no_longer_enforced_is_a_warning_where_others_still_enforce_it(corpus: Corpus) -> None:
    found = _length_violations(corpus, 50)
    assert {v.location.rsplit(".", 1)[-1] for v in found} == {"id", "tool_call_id"}
    assert {v.severity for v in found} == {"warning"}
    assert {v.expected for v in found} == {"at most 40 characters"}
    assert all("no longer enforced by the provider itself since 2026-07-14" in v.message for v in found)
    call = next(v for v in found if v.location.endswith(".id"))
    assert call.provider_error and "maximum length 40" in call.provider_error  # that limit's own error
    result = next(v for v in found if v.location.endswith("tool_call_id"))
    assert result.provider_error is None  # no error text is recorded for the assumed result-side limit
    assert "assumed for this field" in result.message
    outcome = run_scenario(adapter(Padded(50)), corpus.scenarios[SCENARIO], corpus)
    assert outcome.outcome == "pass", outcome.summary


def test_the_strict_profile_makes_the_dropped_limit_an_error(corpus: Corpus) -> None:
    assert {v.severity for v in _length_violations(corpus, 50, "strict")} == {"error"}


def test_the_limit_enforced_today_is_an_error_and_the_dropped_one_adds_nothing(corpus: Corpus) -> None:
    found = _length_violations(corpus, 65)
    assert {(v.severity, v.expected) for v in found} == {("error", "at most 64 characters")}
    call = next(v for v in found if v.location.endswith(".id"))
    assert call.provider_error == "Expected a string with maximum length 64, but got a string with length 83"
    assert run_scenario(adapter(Padded(65)), corpus.scenarios[SCENARIO], corpus).outcome == "fail"
    assert run_scenario(adapter(LongPrefix()), corpus.scenarios["openai-chat/one-call"], corpus).outcome == "fail"


def test_ids_within_every_limit_draw_nothing(corpus: Corpus) -> None:
    assert _length_violations(corpus, 40) == []


def test_a_dropped_limit_nobody_enforces_is_ignored(corpus: Corpus) -> None:
    case = corpus.wire_types["openai-chat/ChatCompletionMessageToolCall"]
    gone = Limit(10, None, None, "2024-01-01", True, "https://example.invalid/old", until="2024-06-01")
    fields = tuple(dataclasses.replace(f, limits=(gone,)) if f.field == "id" else f for f in case.id_fields)
    patched = dataclasses.replace(
        corpus, wire_types={**corpus.wire_types, case.id: dataclasses.replace(case, id_fields=fields)}
    )
    assert gone.applies is None and not gone.current
    calls = [v for v in _length_violations(patched, 20) if v.location.endswith(".id")]
    assert calls == []


def test_an_autogen_reproduction_reproduces_at_warning_severity(corpus: Corpus) -> None:
    result = reproduce(corpus.bugs["autogen-6377"], corpus)
    assert result.outcome == "pass", result.summary
    assert {v.code for v in result.warnings} == {"format/id-length"} and result.errors == []


# Bedrock: botocore's service model


def _bedrock_body(tool_use_id: str) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "user", "content": [{"text": "Weather in Paris?"}]},
            {"role": "assistant", "content": [{"toolUse": {"toolUseId": tool_use_id, "name": "w", "input": {}}}]},
            {"role": "user", "content": [{"toolResult": {"toolUseId": tool_use_id, "content": [{"text": "21"}]}}]},
        ]
    }


@pytest.mark.parametrize("tool_use_id", ["functions.get_weather:0", "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "a.b:c-d_e"])
def test_bedrock_takes_dots_and_colons_on_the_call_and_the_result(tool_use_id: str, corpus: Corpus) -> None:
    assert _check(corpus, "bedrock-converse", _bedrock_body(tool_use_id)) == []


@pytest.mark.parametrize(
    ("tool_use_id", "codes"),
    [("tool/use+1", {"format/id-pattern"}), ("x" * 65, {"format/id-length"}), ("a b", {"format/id-pattern"})],
)
def test_bedrock_refuses_what_the_service_model_refuses(tool_use_id: str, codes: set[str], corpus: Corpus) -> None:
    found = _check(corpus, "bedrock-converse", _bedrock_body(tool_use_id))
    assert {v.code for v in found} == codes
    assert {v.location.rsplit(".", 2)[-2] for v in found} == {"toolUse", "toolResult"}
    assert all(v.severity == "error" for v in found)


def test_the_reference_keeps_a_kimi_id_for_bedrock(corpus: Corpus) -> None:
    from conformance.reference import ADAPTER as REFERENCE

    scenario = corpus.scenarios["bedrock-converse/from-openai-chat"]
    assert run_scenario(REFERENCE, scenario, corpus).violations == []
    sent = [json.loads(i.request.body) for i in load_cassette(corpus.cassette_path(scenario)).interactions]
    assert "functions.find_museum:2" in json.dumps(sent[-1])


# Responses: the item id cap


def test_a_responses_item_id_has_a_cap(corpus: Corpus) -> None:
    body = {
        "model": "gpt-5.5",
        "input": [
            {"role": "user", "content": "Weather in Paris?"},
            {"type": "function_call", "id": "fc_" + "a" * 62, "call_id": "call_1", "name": "w", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "21"},
        ],
    }
    found = _check(corpus, "openai-responses", body)
    assert [(v.code, v.location) for v in found] == [("format/id-length", "request[0].input[1].id")]
    assert found[0].provider_error and found[0].provider_error.startswith("Invalid 'input[2].id': string too long.")
    assert "assumed for this field" in found[0].message
    body["input"][1]["id"] = "fc_" + "a" * 61
    assert _check(corpus, "openai-responses", body) == []


# Gemini: the dialect names the id inside its part


def test_a_gemini_id_is_checked_under_its_case_field(corpus: Corpus) -> None:
    case = corpus.wire_types["gemini/FunctionCall"]
    assert case.id_field_at("functionCall.id") is case.id_field("id")
    limit = Limit(8, None, None, "2026-11-23", True, "https://example.invalid/gemini")
    fields = tuple(dataclasses.replace(f, limits=(limit,)) if f.field == "id" else f for f in case.id_fields)
    patched = dataclasses.replace(
        corpus, wire_types={**corpus.wire_types, case.id: dataclasses.replace(case, id_fields=fields)}
    )
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather?"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "abcdefghij", "name": "w", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"id": "abcdefghij", "name": "w", "response": {}}}]},
        ]
    }
    found = _check(patched, "gemini", body)
    assert [v.location for v in found] == ["request[0].contents[1].parts[0].functionCall.id"]
    assert _check(corpus, "gemini", body) == []


# The data


def test_a_limit_cannot_end_before_it_was_observed(tmp_path: Path) -> None:
    cases = tmp_path / "cases" / "wire-types" / "openai-chat"
    cases.mkdir(parents=True)
    source = (ROOT / "cases" / "wire-types" / "openai-chat" / "ChatCompletionMessageToolCall.yaml").read_text("utf-8")
    broken = source.replace("          date: 2026-07-14\n", "          date: 2025-01-01\n", 1)
    assert broken != source
    (cases / "ChatCompletionMessageToolCall.yaml").write_text(broken, encoding="utf-8")
    files, problems = read_case_files([tmp_path / "cases"])
    _, more = build_corpus(files, [tmp_path / "cases"], [ROOT / "cassettes"])
    dated = [p for p in problems + more if p.rule == "limit-dates"]
    assert len(dated) == 1 and dated[0].line is not None
    assert "until 2025-01-01 is before observed 2025-04-23" in dated[0].message
    assert broken.splitlines()[dated[0].line - 1].strip() == "date: 2025-01-01"


def _exposed(corpus: Corpus) -> set[tuple[str, str]]:
    """(wire type, field) of every id the dialects read from the corpus's recorded requests."""
    found: set[tuple[str, str]] = set()
    for scenario in corpus.scenarios.values():
        dialect = dialect_for(scenario.api)
        for i, interaction in enumerate(load_cassette(corpus.cassette_path(scenario)).interactions):
            history = dialect.history(json.loads(interaction.request.body), f"request[{i}]")
            found |= {(c.wire_type, c.id_field) for c in history.calls()}
            found |= {(c.wire_type, c.item_field) for c in history.calls() if c.item_id}
            found |= {(r.wire_type, r.id_field) for r in history.results()}
    return found


def test_every_id_a_dialect_exposes_states_its_caps(corpus: Corpus) -> None:
    exposed = _exposed(corpus)
    assert len(exposed) > 50
    for wire_type, field in sorted(exposed):
        found = corpus.wire_types[wire_type].id_field_at(field)
        assert found is not None, (wire_type, field)
        assert found.limits or found.limits_unknown, (
            f"{wire_type}.{field}: no caps and no statement of what was searched"
        )


def test_every_dated_limit_that_warns_says_why(corpus: Corpus) -> None:
    warning = [
        (w.id, f.field, limit)
        for w in corpus.wire_types.values()
        for f in w.id_fields
        for limit in f.limits
        if limit.applies == "warning"
    ]
    assert warning  # OpenAI Chat's 40 characters
    for case_id, field, limit in warning:
        assert limit.until and limit.until_source and limit.note, (case_id, field)
