"""Every response body in the bundled cassettes validates against the official SDK's models.

OpenAI Chat here; every other API in its own tests/test_fidelity_<api>.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.corpus.loading import load_corpus
from conformance.recordings.cassette import load_cassette
from conformance.recordings.sse import parse_events

openai = pytest.importorskip("openai", reason="the fidelity tests need the official openai SDK")


def _openai_chat(body: Any, event: bool) -> None:
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    (ChatCompletionChunk if event else ChatCompletion).model_validate(body)


VALIDATORS: dict[str, Callable[[Any, bool], None]] = {"openai-chat": _openai_chat}

_corpus = load_corpus()
# Constructed cassettes are checked against the SDK's models; a recorded one is the provider's own
# bytes, which win where a model disagrees (Azure OpenAI's content-filter chunk has `object: ""`).
SCENARIOS = sorted(
    (s for s in _corpus.scenarios.values() if s.api in VALIDATORS and not s.recorded), key=lambda s: s.id
)


def test_every_api_has_its_fidelity_tests() -> None:
    here = Path(__file__).parent
    apis = {s.api for s in _corpus.scenarios.values()} - set(VALIDATORS)
    missing = sorted(a for a in apis if not (here / f"test_fidelity_{a.replace('-', '_')}.py").is_file())
    assert missing == []


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_response_bodies_validate_against_the_sdk(scenario: Any) -> None:
    validate = VALIDATORS[scenario.api]
    cassette = load_cassette(_corpus.cassette_path(scenario))
    for interaction in cassette:
        response = interaction.response
        if response.is_event_stream:
            events = parse_events(response.body)
            assert events
            for event in events:
                validate(event.data, True)
        else:
            validate(response.json(), False)


def test_constructed_cassettes_are_up_to_date() -> None:
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[1] / "scripts" / "construct_cassettes.py"
    run = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
