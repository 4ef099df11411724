"""Limits bound to models: a provider that checks ids by the model's tokenizer (Mistral's validators
of tokenizers v3 to v11 take nine alphanumerics, those of v13 and later any id but "" and "null")
has one record per set of models, and the format rules apply the one in force for the request's model."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from conformance.corpus.loading import Corpus, IdField, Limit
from conformance.engine.dialects import dialect_for
from conformance.engine.exchange import Exchange, Turn
from conformance.engine.rules import CheckContext, check
from conformance.engine.wire import Served

SERVED = Served(stream=False, calls=(), text="", payload={"stream": False, "body": {}})
V11_MODEL = "mistral-small-2503"  # any model outside the v13 list takes the v3-v11 record
V13_MODEL = "magistral-small-v13-test"  # a stand-in: the bundled record names no hosted v13 model yet


def _bind(corpus: Corpus, v13_models: tuple[str, ...]) -> Corpus:
    """The corpus with the v13 record of Mistral's ids binding `v13_models`, and the v3-v11 record
    excepting them, as a source naming such models would make the case."""

    def rebind(limit: Limit) -> Limit:
        if limit.models is not None:
            return dataclasses.replace(limit, models=v13_models)
        if limit.versions is not None:
            return dataclasses.replace(limit, except_models=v13_models)
        return limit

    wire_types = dict(corpus.wire_types)
    for name in ("mistral-chat/ToolCall", "mistral-chat/ToolMessage"):
        case = wire_types[name]
        fields = tuple(
            dataclasses.replace(f, limits=tuple(rebind(limit) for limit in f.limits)) for f in case.id_fields
        )
        wire_types[name] = dataclasses.replace(case, id_fields=fields)
    return dataclasses.replace(corpus, wire_types=wire_types)


def _request(model: str | None, call_id: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": call_id, "content": "sunny"},
        ]
    }
    if model is not None:
        body["model"] = model
    return body


def _format_codes(corpus: Corpus, model: str | None, call_id: str) -> set[str]:
    ctx = CheckContext(corpus, dialect_for("mistral-chat"), "default")
    exchange = Exchange(api="mistral-chat", turns=(Turn(index=0, request=_request(model, call_id), served=SERVED),))
    found = check(exchange, ctx)
    return {f"{v.code}@{v.location.rsplit('.', 1)[-1]}" for v in found if v.code.startswith("format/")}


@pytest.fixture(scope="module")
def bound(corpus: Corpus) -> Corpus:
    return _bind(corpus, (V13_MODEL,))


def test_a_non_nine_character_id_fails_on_a_v11_model(bound: Corpus) -> None:
    codes = _format_codes(bound, V11_MODEL, "call_0123456789")
    assert {"format/id-length@id", "format/id-pattern@id", "format/id-pattern@tool_call_id"} <= codes


def test_the_same_id_passes_on_a_v13_model(bound: Corpus) -> None:
    assert _format_codes(bound, V13_MODEL, "call_0123456789") == set()


def test_null_fails_on_a_v13_model_with_the_v13_error(bound: Corpus) -> None:
    ctx = CheckContext(bound, dialect_for("mistral-chat"), "default")
    exchange = Exchange(api="mistral-chat", turns=(Turn(index=0, request=_request(V13_MODEL, "null"), served=SERVED),))
    found = [v for v in check(exchange, ctx) if v.code.startswith("format/")]
    assert {v.code for v in found} == {"format/id-pattern"}
    assert {v.location.rsplit(".", 1)[-1] for v in found} == {"id", "tool_call_id"}
    assert all(v.provider_error and "tokenizer version 13 or newer" in v.provider_error for v in found)


def test_a_request_naming_no_model_gets_the_records_not_confined_to_models(bound: Corpus) -> None:
    assert "format/id-length@id" in _format_codes(bound, None, "call_0123456789")


def test_the_bundled_v13_record_binds_no_model_until_a_source_names_one(corpus: Corpus) -> None:
    fields: list[IdField] = [
        f for name in ("mistral-chat/ToolCall", "mistral-chat/ToolMessage") for f in corpus.wire_types[name].id_fields
    ]
    v13 = [limit for f in fields for limit in f.limits if limit.model_bound]
    assert len(v13) == 2 and all(limit.models == () for limit in v13)
    assert not any(limit.binds(V13_MODEL) for limit in v13)
    # Today every model keeps the nine-character check.
    assert "format/id-length@id" in _format_codes(corpus, V13_MODEL, "call_0123456789")


def test_a_bound_limit_is_not_the_apis_grammar(corpus: Corpus) -> None:
    from conformance.engine.ids import grammar_from_cases

    assert grammar_from_cases(corpus, "mistral-chat") == (r"[a-zA-Z0-9]{9}", 9)


# Bedrock names the model in the request's URL, not in the body: the run's model (the scenario's) picks the
# records in force, as the body's model does elsewhere.
BEDROCK_MISTRAL = "us.mistral.pixtral-large-2502-v1:0"
BEDROCK_CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"


def _bedrock_request(call_id: str) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "user", "content": [{"text": "Weather in Paris?"}]},
            {"role": "assistant", "content": [{"toolUse": {"toolUseId": call_id, "name": "get_weather", "input": {}}}]},
            {"role": "user", "content": [{"toolResult": {"toolUseId": call_id, "content": [{"text": "sunny"}]}}]},
        ]
    }


def _bedrock_format_codes(corpus: Corpus, model: str | None, call_id: str) -> set[str]:
    ctx = CheckContext(corpus, dialect_for("bedrock-converse"), "default", model=model)
    exchange = Exchange(
        api="bedrock-converse", turns=(Turn(index=0, request=_bedrock_request(call_id), served=SERVED),)
    )
    return {v.location.rsplit(".", 1)[-1] for v in check(exchange, ctx) if v.code == "format/id-length"}


def test_a_short_id_fails_on_a_mistral_model_named_only_by_the_run(corpus: Corpus) -> None:
    assert _bedrock_format_codes(corpus, BEDROCK_MISTRAL, "pf91dhod") == {"toolUseId"}
    assert len(_bedrock_format_codes(corpus, BEDROCK_MISTRAL, "a")) == 1


def test_the_same_id_passes_on_another_bedrock_model_or_without_a_model(corpus: Corpus) -> None:
    assert _bedrock_format_codes(corpus, BEDROCK_CLAUDE, "pf91dhod") == set()
    assert _bedrock_format_codes(corpus, None, "pf91dhod") == set()
    # Bedrock's own long ids pass on Mistral models too.
    assert _bedrock_format_codes(corpus, BEDROCK_MISTRAL, "tooluse_Rc4Nm8Wq2Xk7Jd5Tb9Ls3H") == set()


def test_the_bedrock_reference_maps_ids_for_the_models_the_case_binds(corpus: Corpus) -> None:
    from conformance.reference.bedrock_converse import MISTRAL_MODELS

    bound = {
        pattern
        for name in ("bedrock-converse/ToolUseBlock", "bedrock-converse/ToolResultBlock")
        for f in corpus.wire_types[name].id_fields
        for limit in f.limits
        if limit.model_bound
        for pattern in limit.models or ()
    }
    assert bound == {MISTRAL_MODELS}
