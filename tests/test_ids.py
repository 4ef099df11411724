"""conformance.engine.ids restates the id grammars the cases record; these tests hold the two equal."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from conformance.corpus.loading import Corpus, Limit
from conformance.engine import ids
from conformance.engine.ids import GRAMMARS, RESTATES, IdMap, grammar_from_cases


@pytest.mark.parametrize("api", sorted(GRAMMARS))
def test_each_grammar_is_what_the_cases_record_today(api: str, corpus: Corpus) -> None:
    grammar = GRAMMARS[api]
    assert (grammar.pattern, grammar.max_length) == grammar_from_cases(corpus, api)


def test_every_grammar_names_the_fields_it_restates(corpus: Corpus) -> None:
    assert set(RESTATES) == set(GRAMMARS)
    for api, fields in RESTATES.items():
        for wire_type, field in fields:
            case = corpus.wire_types[wire_type]
            assert case.id_field(field) is not None, (api, wire_type, field)


def test_a_changed_limit_in_a_case_is_a_drift_the_test_sees(corpus: Corpus) -> None:
    wider = Limit(12, None, None, "2026-11-23", True, "https://example.invalid/wider")
    patched = dict(corpus.wire_types)
    for wire_type, field in RESTATES["mistral-chat"]:
        case = corpus.wire_types[wire_type]
        fields = tuple(dataclasses.replace(f, limits=(wider,)) if f.field == field else f for f in case.id_fields)
        patched[wire_type] = dataclasses.replace(case, id_fields=fields)
    drifted = dataclasses.replace(corpus, wire_types=patched)
    assert grammar_from_cases(drifted, "mistral-chat") == (ids.PORTABLE_PATTERN, 12)
    grammar = GRAMMARS["mistral-chat"]
    assert (grammar.pattern, grammar.max_length) != grammar_from_cases(drifted, "mistral-chat")


def test_a_dropped_limit_still_shapes_the_grammar_while_others_enforce_it(corpus: Corpus) -> None:
    # OpenAI's own API takes 64 characters, Azure OpenAI still 40: ids kept or minted stay within 40.
    assert grammar_from_cases(corpus, "openai-chat")[1] == 40
    assert IdMap("openai-chat").call("x" * 41, "f") != "x" * 41


def test_idmap_needs_no_corpus() -> None:
    assert "conformance.corpus.loading" not in ids.__dict__
    mapped = IdMap("bedrock-converse")
    assert mapped.call("functions.find_museum:2", "find_museum") == "functions.find_museum:2"
    assert mapped.result("functions.find_museum:2") == "functions.find_museum:2"


def test_a_source_id_that_repeats_across_turns_names_two_calls() -> None:
    """Ids whose index restarts every turn (`functions.get_weather:0` twice) are two calls, each
    with its own target id, each answered by its own results in order."""
    mapped = IdMap("openai-chat")
    first = mapped.call("functions.get_weather:0", "get_weather")
    assert mapped.result("functions.get_weather:0") == first
    second = mapped.call("functions.get_weather:0", "get_weather")
    assert second != first
    assert mapped.result("functions.get_weather:0") == second
    again = IdMap("openai-chat")
    assert [again.call("functions.get_weather:0", "f"), again.call("functions.get_weather:0", "f")] == [first, second]
    kimi = IdMap("kimi-chat")
    assert kimi.call("functions.get_weather:0", "get_weather") == "functions.get_weather:0"
    assert kimi.call("functions.get_weather:0", "get_weather") == "functions.get_weather:1"


def _restarting_history() -> dict[str, Any]:
    """Two turns of a Kimi-style history whose call index restarts every turn."""
    turns: list[dict[str, Any]] = [{"role": "user", "parts": [{"type": "text", "text": "Paris, then Tokyo"}]}]
    for city in ("Paris", "Tokyo"):
        call = {
            "type": "tool_call",
            "call_id": "functions.get_weather:0",
            "name": "get_weather",
            "arguments": {"city": city},
            "wire_type": "kimi-chat/ToolCall",
        }
        result = {
            "type": "tool_result",
            "call_id": "functions.get_weather:0",
            "name": "get_weather",
            "output": f"sunny in {city}",
            "wire_type": "kimi-chat/ToolMessage",
        }
        turns += [{"role": "assistant", "parts": [call]}, {"role": "tool", "parts": [result]}]
    tool = {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}
    return {"api": "", "model": "m", "stream": False, "tools": [tool], "messages": turns}


class _BySourceId:
    """An adapter's id map that keys on the source id alone (what IdMap did): one id for both calls."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def encode(self, conversation: Any) -> Any:
        body = self.inner.encode(conversation)
        minted = "call_" + "k" * 24
        for message in body.get("messages", []):
            for call in message.get("tool_calls") or ():
                call["id"] = minted
            if message.get("role") == "tool":
                message["tool_call_id"] = minted
        return body


@pytest.mark.parametrize("api", ["openai-chat", "mistral-chat", "anthropic-messages", "bedrock-converse", "gemini"])
def test_the_reference_gives_repeated_source_ids_distinct_target_ids(api: str, corpus: Corpus) -> None:
    from conformance.engine.dialects import dialect_for
    from conformance.engine.rules import pairing
    from conformance.engine.rules.context import CheckContext
    from conformance.reference import ADAPTER

    conversation = {**_restarting_history(), "api": api}
    ctx = CheckContext(corpus=corpus, dialect=dialect_for(api))

    def codes(codec: Any) -> list[str]:
        history = ctx.dialect.history(codec.encode(json.loads(json.dumps(conversation))), "request[0]")
        assert len(history.calls()) == 2
        ids = [c.call_id for c in history.calls() if c.call_id]  # Gemini sends a foreign call without one
        return [v.code for v in pairing.check_request(ctx, history, [])] + (
            ["same-id"] if len(set(ids)) < len(ids) else []
        )

    assert codes(ADAPTER.codec(api)) == []
    if api == "openai-chat":
        assert "pairing/duplicate-call-id" in codes(_BySourceId(ADAPTER.codec(api)))


def test_a_native_id_comes_back_unchanged_even_empty() -> None:
    """docs/neutral-model.md: `native=True` returns the id unchanged, whatever it is; only None is minted."""
    ids_map = IdMap("openai-chat")
    assert ids_map.call("", "get_weather", native=True) == ""
    assert ids_map.call("call_x", "get_weather", native=True) == "call_x"
    minted = ids_map.call(None, "get_weather", native=True)
    assert minted and minted.startswith("call_")


def test_a_codec_that_sends_back_an_empty_id_fails(corpus: Corpus) -> None:
    """A codec that keeps the wire's `""` ids (instead of minting in decode) must fail: IdMap used to
    mint over them in encode, and such a codec passed."""

    from conformance import CodecAdapter
    from conformance.reference.openai_chat import OpenAIChatCodec
    from conformance.running.runner import run_scenario

    class KeepsEmptyIds(OpenAIChatCodec):
        # IdMap as docs/neutral-model.md shows it, with the served `""` kept from decode
        def call_id(self, part: Any) -> Any:
            return self.ids.call(part["call_id"], part["name"], native=self.native(part))

    scenario = corpus.scenarios["openai-chat/gemini-compat-empty-ids"]
    buggy = CodecAdapter(name="keeps-empty", version="1", codecs={"openai-chat": KeepsEmptyIds()})
    result = run_scenario(buggy, scenario, corpus)
    assert result.outcome == "fail"
    assert "roundtrip/empty-id" in {v.code for v in result.errors}
    reference = CodecAdapter(name="reference", version="1", codecs={"openai-chat": OpenAIChatCodec()})
    assert run_scenario(reference, scenario, corpus).outcome == "pass"
