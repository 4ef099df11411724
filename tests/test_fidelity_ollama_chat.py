"""Every response body (and NDJSON chunk) in the ollama-chat cassettes validates against
ollama-python's ChatResponse.

ollama-python's Message.ToolCall has no id field, so pydantic drops the server's call ids on
parse (ollama/ollama-python#667): the model checks the shape, the id is checked against the raw
JSON.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.corpus.loading import load_corpus
from conformance.engine.dialects.ollama_chat import is_ndjson, parse_ndjson
from conformance.recordings.cassette import load_cassette

pytest.importorskip("ollama", reason="the fidelity tests need the official ollama package")

_corpus = load_corpus()
# Constructed cassettes only: a recorded one is the provider's own bytes, which win where a model disagrees.
SCENARIOS = sorted(
    (s for s in _corpus.scenarios.values() if s.api == "ollama-chat" and not s.recorded), key=lambda s: s.id
)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_response_bodies_validate_against_ollama_python(scenario: Any) -> None:
    from ollama import ChatResponse

    for interaction in load_cassette(_corpus.cassette_path(scenario)):
        response = interaction.response
        chunks = parse_ndjson(response.body, "response") if is_ndjson(response) else [response.json()]
        assert chunks
        for chunk in chunks:
            parsed = ChatResponse.model_validate(chunk)
            raw_calls = chunk["message"].get("tool_calls") or []
            assert [c.function.name for c in parsed.message.tool_calls or []] == [
                c["function"]["name"] for c in raw_calls
            ]
            # Ids are "call_" and 8 of [a-z0-9] where the server issued them (omitempty otherwise).
            for call in raw_calls:
                assert "id" not in call or (call["id"].startswith("call_") and len(call["id"]) == 13)
        assert chunks[-1]["done"] is True
