"""The openresponses cassettes against openai-python: OpenResponses publishes no SDK of its own, and
its item and event shapes are OpenAI's (its wire-type cases say so)."""

from __future__ import annotations

import pytest
from test_fidelity_openai_responses import scenarios_of, validate_with_openai_python

from conformance.corpus.loading import Scenario

SCENARIOS = scenarios_of("openresponses")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_bodies_validate_against_openai_python(scenario: Scenario) -> None:
    validate_with_openai_python(scenario)
