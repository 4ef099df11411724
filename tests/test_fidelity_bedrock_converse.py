"""Every Bedrock Converse cassette matches botocore's service model for bedrock-runtime.

boto3 returns plain dicts, so there is no pydantic model to validate against; the service model
(botocore/data/bedrock-runtime/*/service-2.json) is the official one. Responses, stream events and
the recorded requests are checked against their shapes: members, required members, one member
per union, enums, lengths and patterns. Streams also go through botocore's own event-stream parser,
the code path boto3 takes. botocore is a test-only dependency.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from conformance.corpus.loading import Scenario, load_corpus
from conformance.recordings.cassette import load_cassette
from conformance.recordings.eventstream import decode

botocore = pytest.importorskip("botocore", reason="the Bedrock fidelity tests need botocore (pip install botocore)")

API = "bedrock-converse"
# Bedrock pads every stream event but metadata with a `p` field of varying length, absent from the
# service model (aws/aws-sdk-js-v3#6919); botocore ignores it.
PADDING = "p"

_corpus = load_corpus()
# Constructed cassettes only: a recorded one is the provider's own bytes, which win where a model disagrees.
SCENARIOS = sorted((s for s in _corpus.scenarios.values() if s.api == API and not s.recorded), key=lambda s: s.id)


def _model() -> Any:
    import botocore.session

    return botocore.session.get_session().get_service_model("bedrock-runtime")


def shape_errors(shape: Any, value: Any, path: str) -> Iterator[str]:
    """Where `value` departs from a botocore shape."""
    kind = shape.type_name
    if kind == "structure" and shape.metadata.get("document"):
        return  # a free JSON document (tool input, input schema)
    if kind == "structure":
        if not isinstance(value, dict):
            yield f"{path}: {shape.name} is an object, got {type(value).__name__}"
            return
        for key in value:
            if key not in shape.members:
                yield f"{path}.{key}: not a member of {shape.name}"
        for key in shape.required_members:
            if key not in value and not shape.members[key].serialization.get("location"):
                yield f"{path}: {shape.name} requires {key}"
        if shape.metadata.get("union") and len(value) != 1:
            yield f"{path}: the union {shape.name} needs exactly one member, got {sorted(value)}"
        for key, item in value.items():
            if key in shape.members:
                yield from shape_errors(shape.members[key], item, f"{path}.{key}")
    elif kind == "list":
        if not isinstance(value, list):
            yield f"{path}: {shape.name} is a list, got {type(value).__name__}"
            return
        if len(value) < shape.metadata.get("min", 0):
            yield f"{path}: {shape.name} needs at least {shape.metadata['min']} items"
        for i, item in enumerate(value):
            yield from shape_errors(shape.member, item, f"{path}[{i}]")
    elif kind == "map":
        if not isinstance(value, dict):
            yield f"{path}: {shape.name} is an object, got {type(value).__name__}"
            return
        for key, item in value.items():
            yield from shape_errors(shape.value, item, f"{path}.{key}")
    elif kind == "string":
        if not isinstance(value, str):
            yield f"{path}: {shape.name} is a string, got {type(value).__name__}"
            return
        meta = shape.metadata
        if shape.enum and value not in shape.enum:
            yield f"{path}: {value!r} is not one of {shape.enum}"
        if len(value) < meta.get("min", 0) or len(value) > meta.get("max", len(value)):
            yield f"{path}: {shape.name} length {len(value)} is outside {meta.get('min')}..{meta.get('max')}"
        if "pattern" in meta and not re.fullmatch(meta["pattern"], value):
            yield f"{path}: {value!r} does not match {meta['pattern']!r}"
    elif kind in ("integer", "long"):
        if not isinstance(value, int) or isinstance(value, bool):
            yield f"{path}: {shape.name} is an integer, got {value!r}"
        elif value < shape.metadata.get("min", value):
            yield f"{path}: {value} is below {shape.metadata['min']}"
    elif kind in ("float", "double"):
        if not isinstance(value, int | float) or isinstance(value, bool):
            yield f"{path}: {shape.name} is a number, got {value!r}"
    elif kind == "boolean" and not isinstance(value, bool):
        yield f"{path}: {shape.name} is a boolean, got {value!r}"


def test_the_validator_catches_what_the_model_forbids() -> None:
    output = _model().operation_model("Converse").output_shape
    good = {
        "output": {
            "message": {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]}
        },
        "stopReason": "tool_use",
        "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
        "metrics": {"latencyMs": 1},
    }
    assert list(shape_errors(output, good, "body")) == []
    bad = {**good, "stopReason": "tool_calls", "extra": 1}
    bad["output"] = {
        "message": {"role": "assistant", "content": [{"toolUse": {"toolUseId": "", "name": "f"}, "text": "x"}]}
    }
    errors = "\n".join(shape_errors(output, bad, "body"))
    assert "not a member of ConverseResponse" in errors
    assert "'tool_calls' is not one of" in errors
    assert "requires input" in errors
    assert "needs exactly one member" in errors
    assert "length 0" in errors


class _Body:
    """The minimum of a urllib3 response that botocore's EventStream reads."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def stream(self) -> Iterator[bytes]:
        for start in range(0, len(self._data), 97):  # uneven chunks, as a socket delivers them
            yield self._data[start : start + 97]

    def close(self) -> None:
        pass


def _botocore_events(body: bytes) -> list[dict[str, Any]]:
    from botocore.parsers import create_parser

    operation = _model().operation_model("ConverseStream")
    parsed = create_parser("rest-json").parse(
        {"status_code": 200, "headers": {}, "body": _Body(body), "context": {"operation_name": "ConverseStream"}},
        operation.output_shape,
    )
    return list(parsed["stream"])


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_responses_match_the_service_model(scenario: Scenario) -> None:
    model = _model()
    cassette = load_cassette(_corpus.cassette_path(scenario))
    for interaction in cassette:
        response = interaction.response
        if not scenario.stream:
            shape = model.operation_model("Converse").output_shape
            assert list(shape_errors(shape, response.json(), "body")) == []
            continue
        assert response.content_type == "application/vnd.amazon.eventstream"
        events = model.operation_model("ConverseStream").output_shape.members["stream"]
        decoded = decode(response.body)
        for message in decoded:
            assert message.headers[":message-type"] == "event"
            assert message.headers[":content-type"] == "application/json"
            name = message.headers[":event-type"]
            assert isinstance(name, str) and name in events.members
            data = json.loads(message.payload)
            padding = data.pop(PADDING, "")
            assert isinstance(padding, str)
            assert list(shape_errors(events.members[name], data, f"events[{message.index}]")) == []
        parsed = _botocore_events(response.body)
        assert [next(iter(e)) for e in parsed] == [m.headers[":event-type"] for m in decoded]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_requests_match_the_service_model(scenario: Scenario) -> None:
    model = _model()
    operation = model.operation_model("ConverseStream" if scenario.stream else "Converse")
    template = operation.http["requestUri"].replace("{modelId}", "(?P<model>[^/]+)")
    for interaction in load_cassette(_corpus.cassette_path(scenario)):
        request = interaction.request
        assert request.method == operation.http["method"]
        match = re.fullmatch(template, urlsplit(request.uri).path)
        assert match and unquote(match["model"]) == scenario.model
        assert list(shape_errors(operation.input_shape, request.json(), "body")) == []


def test_streams_parse_the_way_boto3_reads_them() -> None:
    streamed = [s for s in SCENARIOS if s.stream]
    assert streamed, "at least one ConverseStream scenario"
    body = load_cassette(_corpus.cassette_path(streamed[0])).interactions[0].response.body
    events = _botocore_events(body)
    starts = [e["contentBlockStart"] for e in events if "contentBlockStart" in e]
    assert [s["start"]["toolUse"]["toolUseId"] for s in starts] == [c.id for c in streamed[0].turns[0].calls]
    assert all(s["contentBlockIndex"] > 0 for s in starts)  # the text block took index 0
