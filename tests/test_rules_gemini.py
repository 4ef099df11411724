"""Gemini rules: a buggy codec trips each, the reference codec on the same scenario does not.

Each buggy codec overrides one step of the reference codec, the way a real adapter got it wrong.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import uuid
from typing import Any

import pytest

from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus
from conformance.engine.neutral import Message, ToolCallPart, ToolResultPart
from conformance.reference import ADAPTER as REFERENCE
from conformance.reference.gemini import GeminiCodec, Paired, SentCalls
from conformance.running.runner import run_scenario


def adapter(codec: GeminiCodec) -> CodecAdapter:
    return CodecAdapter(name="buggy", version="0", codecs={"gemini": codec})


class ResponsesKeyedByName(GeminiCodec):
    """Responses collected in a dict keyed by function name: two calls to one function leave one response."""

    def order_results(self, results: list[ToolResultPart], calls: SentCalls) -> Paired:
        return list({r.get("name"): (r, c, s) for r, c, s in super().order_results(results, calls)}.values())


class ResponsesOneContentEach(GeminiCodec):
    """Each function response goes in a content of its own (google-genai's split streamed turns, a
    tool message per result): one turn to Gemini 2.5, a turn each to Gemini 3."""

    def encode(self, conversation: Any) -> dict[str, Any]:
        body = super().encode(conversation)
        contents: list[dict[str, Any]] = []
        for content in body["contents"]:
            parts = content.get("parts") or []
            if len(parts) > 1 and all("functionResponse" in p for p in parts):
                contents.extend({**content, "parts": [p]} for p in parts)
            else:
                contents.append(content)
        return {**body, "contents": contents}


class ResultsInAnswerOrder(GeminiCodec):
    """Results assumed to come back in call order and paired with the calls by position (token-js #36)."""

    def order_results(self, results: list[ToolResultPart], calls: SentCalls) -> Paired:
        return [(r, *calls[i]) if i < len(calls) else (r, None, None) for i, r in enumerate(results)]


class SignatureDropped(GeminiCodec):
    """The message model has no place for thoughtSignature, so the history goes back without it."""

    def signature(self, part: ToolCallPart) -> Any:
        return None


class SignatureOnItsOwnPart(GeminiCodec):
    """The signature is kept on a thinking block and sent back as a part of its own before the call."""

    def encode_model(self, message: Message) -> tuple[dict[str, Any], SentCalls]:
        content, calls = super().encode_model(message)
        parts: list[dict[str, Any]] = []
        for part in content["parts"]:
            if "functionCall" in part and "thoughtSignature" in part:
                parts.append({"text": "", "thought": True, "thoughtSignature": part.pop("thoughtSignature")})
            parts.append(part)
        content["parts"] = parts
        return content, calls


class IdsMadeUpForIdlessCalls(GeminiCodec):
    """An id is made up for each id-less call and sent as functionCall.id (pydantic-ai pyd_ai_, llm-gemini call_)."""

    def call_id(self, part: ToolCallPart) -> str | None:
        seed = f"{part['name']}:{json.dumps(part['arguments'], sort_keys=True)}"
        return part["call_id"] or f"call_{hashlib.sha256(seed.encode()).hexdigest()[:32]}"


class MintedIdLeftOffResults(IdsMadeUpForIdlessCalls):
    """The made-up id goes out on the call, but the functionResponse is sent without it (or with `""`)."""

    def __init__(self, empty: str | None = None) -> None:
        self.empty = empty

    def result_id(self, part: ToolResultPart, sent: str | None) -> str | None:
        return self.empty


class IdPerReplay(GeminiCodec):
    """Id-less calls get `name-<clock>` ids each time the history is replayed (qwen-code HistoryReplayer)."""

    def __init__(self) -> None:
        self._clock = itertools.count(1767225600000)

    def call_id(self, part: ToolCallPart) -> str | None:
        return part["call_id"] or f"{part['name']}-{next(self._clock)}"


class UuidPerDecode(GeminiCodec):
    """Each id-less call gets a fresh uuid when decoded (flink-agents, agent-framework-go `tool-call-<uuid>`)."""

    def decode_call(self, part: dict[str, Any]) -> ToolCallPart:
        call = super().decode_call(part)
        call["call_id"] = call["call_id"] or f"tool-call-{uuid.uuid4()}"
        return call


class NameAsId(GeminiCodec):
    """The function name stands in for the call id (llama_index PR #20207, cloudwego/eino-ext PR #652)."""

    def decode_call(self, part: dict[str, Any]) -> ToolCallPart:
        call = super().decode_call(part)
        call["call_id"] = call["name"]
        return call


class SlotByPartIndex(GeminiCodec):
    """Streamed calls accumulated by their index within the chunk: one-call chunks all land on slot 0."""

    def accumulate(self, collected: dict[Any, dict[str, Any]], key: tuple[int, int], part: dict[str, Any]) -> None:
        collected[key[1] if "functionCall" in part else key] = part


class StreamIdNotCopied(GeminiCodec):
    """The stream accumulator copies a call's name and args but not its id."""

    def accumulate(self, collected: dict[Any, dict[str, Any]], key: tuple[int, int], part: dict[str, Any]) -> None:
        if "functionCall" in part:
            call = part["functionCall"]
            part = {**part, "functionCall": {"name": call["name"], "args": call.get("args", {})}}
        super().accumulate(collected, key, part)


class FirstCallOnly(GeminiCodec):
    """Only the response's first function call is read (`parts[0].function_call`)."""

    def decode_parts(self, parts: Any) -> Message:
        message = super().decode_parts(parts)
        calls = [p for p in message["parts"] if p["type"] == "tool_call"]
        message["parts"] = [p for p in message["parts"] if p["type"] != "tool_call" or p is calls[0]]
        return message


class ServerPartsNotReplayed(GeminiCodec):
    """Only text and function calls are replayed: the server's code and its result drop out of the history."""

    def encode_model(self, message: Message) -> tuple[dict[str, Any], SentCalls]:
        content, calls = super().encode_model(message)
        content["parts"] = [p for p in content["parts"] if "executableCode" not in p and "codeExecutionResult" not in p]
        return content, calls


class GuidForExecutableCode(GeminiCodec):
    """Each executableCode part gets a made-up GUID that its codeExecutionResult never gets."""

    def server_call(
        self, part: dict[str, Any], wire_type: str, name: str, arguments: Any, value: dict[str, Any]
    ) -> ToolCallPart:
        call = super().server_call(part, wire_type, name, arguments, value)
        call["call_id"] = call["call_id"] or str(uuid.uuid4())
        return call


CASES = [
    ("pairing/count-mismatch", ResponsesKeyedByName(), "gemini/parallel-same-tool-idless"),
    ("pairing/missing-result", ResponsesKeyedByName(), "gemini/parallel-same-tool-idless"),
    ("pairing/by-position", ResultsInAnswerOrder(), "gemini/cross-provider-from-openai-chat"),
    ("pairing/by-position", ResultsInAnswerOrder(), "gemini/ids-results-reversed"),
    ("pairing/duplicate-call-id", NameAsId(), "gemini/parallel-same-tool-idless"),
    ("roundtrip/opaque-dropped", SignatureDropped(), "gemini/thought-signature-sequential"),
    ("roundtrip/opaque-dropped", SignatureOnItsOwnPart(), "gemini/streamed-sse-parallel-calls"),
    ("roundtrip/opaque-dropped", SignatureDropped(), "gemini/streamed-json-array"),
    ("roundtrip/invented-id", IdsMadeUpForIdlessCalls(), "gemini/one-call"),
    ("roundtrip/invented-id", IdsMadeUpForIdlessCalls(), "gemini/cross-provider-from-openai-chat"),
    ("roundtrip/empty-id", MintedIdLeftOffResults(), "gemini/one-call"),
    ("roundtrip/empty-id", MintedIdLeftOffResults(""), "gemini/parallel-same-tool-idless"),
    ("roundtrip/id-altered", NameAsId(), "gemini/ids-results-reversed"),
    ("roundtrip/empty-id", StreamIdNotCopied(), "gemini/streamed-sse-parallel-calls"),
    ("roundtrip/call-lost", ServerPartsNotReplayed(), "gemini/code-execution-beside-call"),
    ("encode/unstable-id", IdPerReplay(), "gemini/one-call"),
    ("decode/unstable-id", UuidPerDecode(), "gemini/one-call"),
    ("decode/id-mismatch", NameAsId(), "gemini/server-tool-beside-call"),
    ("decode/duplicate-id", NameAsId(), "gemini/parallel-same-tool-idless"),
    ("decode/call-missing", FirstCallOnly(), "gemini/parallel-different-tools"),
    ("decode/hybrid-id-split", GuidForExecutableCode(), "gemini/code-execution-beside-call"),
    ("stream/calls-merged", SlotByPartIndex(), "gemini/streamed-sse-parallel-calls"),
    ("stream/id-lost", StreamIdNotCopied(), "gemini/streamed-sse-parallel-calls"),
]


@pytest.mark.parametrize(("code", "codec", "scenario_id"), CASES, ids=[f"{c[0]}-{type(c[1]).__name__}" for c in CASES])
def test_buggy_codec_trips_rule_and_reference_does_not(code, codec, scenario_id, corpus: Corpus) -> None:
    scenario = corpus.scenarios[scenario_id]
    buggy = run_scenario(adapter(codec), scenario, corpus)
    assert code in {v.code for v in buggy.violations}, buggy.violations
    reference = run_scenario(REFERENCE, scenario, corpus)
    assert reference.outcome == "pass"
    assert reference.violations == []


def test_a_moved_signature_is_reported_where_it_belongs(corpus: Corpus) -> None:
    scenario = corpus.scenarios["gemini/streamed-sse-parallel-calls"]
    result = run_scenario(adapter(SignatureOnItsOwnPart()), scenario, corpus)
    dropped = [v for v in result.violations if v.code == "roundtrip/opaque-dropped"]
    assert [v.location for v in dropped] == ["request[1].contents[1].parts[1].thoughtSignature"]
    assert "missing a thought_signature" in (dropped[0].provider_error or "")


def test_collapsed_responses_quote_the_count_error(corpus: Corpus) -> None:
    scenario = corpus.scenarios["gemini/parallel-same-tool-idless"]
    result = run_scenario(adapter(ResponsesKeyedByName()), scenario, corpus)
    mismatch = next(v for v in result.violations if v.code == "pairing/count-mismatch")
    assert mismatch.location == "request[1].contents[2]"
    assert "number of function response parts" in (mismatch.provider_error or "")


def test_an_invented_id_is_a_warning_that_quotes_vertex(corpus: Corpus) -> None:
    result = run_scenario(adapter(IdsMadeUpForIdlessCalls()), corpus.scenarios["gemini/one-call"], corpus)
    invented = [v for v in result.violations if v.code == "roundtrip/invented-id"]
    assert [v.location for v in invented] == ["request[1].contents[1].parts[0].functionCall.id"]
    assert invented[0].severity == "warning" and result.outcome == "pass"
    assert 'Unknown name "id"' in (invented[0].provider_error or "")


def test_reference_orders_foreign_results_by_call_and_sends_no_foreign_id(corpus: Corpus) -> None:
    from conformance.connectors.codec import prior_messages
    from conformance.engine.neutral import user

    scenario = corpus.scenarios["gemini/cross-provider-from-openai-chat"]
    body = GeminiCodec().encode(
        {
            "api": "gemini",
            "model": scenario.model,
            "stream": False,
            "tools": [],
            "messages": [user(scenario.prompt), *prior_messages(scenario)],
        }
    )
    calls, responses = body["contents"][1]["parts"], body["contents"][2]["parts"]
    assert [c["functionCall"]["args"]["city"] for c in calls] == ["Paris", "Tokyo"]
    assert [r["functionResponse"]["response"]["city"] for r in responses] == ["Paris", "Tokyo"]
    assert not any("id" in p.get("functionCall", p.get("functionResponse", {})) for p in calls + responses)


def test_a_minted_id_on_the_call_and_its_results_is_only_the_invented_id_warning(corpus: Corpus) -> None:
    scenario = corpus.scenarios["gemini/parallel-same-tool-idless"]
    result = run_scenario(adapter(IdsMadeUpForIdlessCalls()), scenario, corpus)
    assert {v.code for v in result.violations} == {"roundtrip/invented-id"} and result.outcome == "pass"
    left_off = run_scenario(adapter(MintedIdLeftOffResults()), scenario, corpus)
    empty = [v for v in left_off.violations if v.code == "roundtrip/empty-id"]
    assert len(empty) == 2 and left_off.outcome == "fail"
    assert all("of the client's own" in v.message for v in empty)


@pytest.mark.parametrize(
    ("scenario_id", "model", "refused"),
    [
        ("gemini/ids-results-reversed", "gemini-3-pro-preview", True),
        ("gemini/ids-results-reversed", "gemini-3.1-pro-preview", True),
        ("gemini/ids-results-reversed", None, False),  # the scenario's gemini-3-flash-preview: no report names it
        ("gemini/parallel-different-tools", None, False),
    ],
    ids=["gemini-3-pro", "gemini-3.1-pro", "gemini-3-flash", "gemini-2.5"],
)
def test_responses_split_over_contents_are_refused_only_by_the_models_the_reports_name(
    scenario_id: str, model: str | None, refused: bool, corpus: Corpus
) -> None:
    scenario = corpus.scenarios[scenario_id]
    if model:
        scenario = dataclasses.replace(scenario, model=model)
    result = run_scenario(adapter(ResponsesOneContentEach()), scenario, corpus)
    split = [v for v in result.violations if v.code == "pairing/count-mismatch"]
    assert bool(split) is refused, result.violations
    if refused:
        assert split[0].location.endswith(".contents[3]") and "number of function response parts" in str(
            split[0].provider_error
        )
        assert split[0].provider_error_source == "https://github.com/cloudwego/eino-ext/issues/571"
    else:
        assert result.violations == []
    assert run_scenario(REFERENCE, scenario, corpus).violations == []


def _split_turn_request(shape: str) -> dict[str, Any]:
    """A request whose model turn made two calls: `responses-split` is eino-ext #571's (calls in one
    content, a user content per response), `calls-split` the one gemini-3-flash-preview answered 200
    (a model content per call, both responses in one user content)."""
    calls = [{"functionCall": {"id": i, "name": "f", "args": {}}} for i in ("a", "b")]
    answers = [{"functionResponse": {"id": i, "name": "f", "response": {}}} for i in ("a", "b")]
    if shape == "responses-split":
        turn = [{"role": "model", "parts": calls}, {"role": "user", "parts": answers[:1]}]
        turn.append({"role": "user", "parts": answers[1:]})
    else:
        turn = [{"role": "model", "parts": calls[:1]}, {"role": "model", "parts": calls[1:]}]
        turn.append({"role": "user", "parts": answers})
    return {"contents": [{"role": "user", "parts": [{"text": "hi"}]}, *turn]}


@pytest.mark.parametrize(
    ("shape", "served_by", "refused"),
    [
        ("responses-split", "gemini-3-pro-preview", True),
        ("responses-split", "gemini-3-flash-preview", False),
        ("responses-split", "gemini-2.5-flash", False),
        ("calls-split", "gemini-3-flash-preview", False),
        ("calls-split", "gemini-3-pro-preview", False),
    ],
)
def test_without_a_scenario_model_the_served_model_decides(
    shape: str, served_by: str, refused: bool, corpus: Corpus
) -> None:
    """Lint knows no scenario: the modelVersion the responses carry names the family. Only the shape
    the reports show is reported: calls split over model contents went through (recorded 200)."""
    from conformance.engine.dialects import dialect_for
    from conformance.engine.exchange import Exchange, Turn
    from conformance.engine.rules import CheckContext, turns
    from conformance.engine.wire import Served

    body = _split_turn_request(shape)
    served = Served(False, (), "", {"stream": False, "body": {"modelVersion": served_by}})
    exchange = Exchange("gemini", (Turn(0, {"contents": body["contents"][:1]}, served), Turn(1, body, served)))
    ctx = CheckContext(corpus=corpus, dialect=dialect_for("gemini"))
    found = turns.check_request(ctx, exchange, 1, body)
    assert [v.location for v in found] == (["request[1].contents[3]"] if refused else [])
    if refused:
        assert found[0].provider_error_source == "https://github.com/cloudwego/eino-ext/issues/571"


def test_a_signature_the_serving_model_did_not_require_is_a_warning_unless_strict(corpus: Corpus) -> None:
    """Gemini 2.5 took calls back without their signature (recorded 200s): legal but lossy. Gemini 3
    refuses them: an error whatever the profile."""
    lossy = corpus.scenarios["gemini/recorded/crewai-native-tool-calling-unsigned"]
    default = run_scenario(adapter(SignatureDropped()), lossy, corpus)
    assert default.outcome == "pass"
    assert {(v.code, v.severity) for v in default.violations} == {("roundtrip/opaque-dropped", "warning")}
    strict = run_scenario(adapter(SignatureDropped()), lossy, corpus, profile="strict")
    assert strict.outcome == "fail" and {v.severity for v in strict.violations} == {"error"}
    refused = run_scenario(adapter(SignatureDropped()), corpus.scenarios["gemini/thought-signature-sequential"], corpus)
    assert refused.outcome == "fail"
    assert {(v.code, v.severity) for v in refused.errors} == {("roundtrip/opaque-dropped", "error")}
