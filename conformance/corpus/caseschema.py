"""The published case-file JSON Schema, its closed vocabularies, and located validation."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from conformance.corpus.problems import Problem
from conformance.recordings.yamlio import line_of

SCHEMA_RESOURCE = "case.schema.json"


@cache
def schema() -> dict[str, Any]:
    text = resources.files("conformance.schemas").joinpath(SCHEMA_RESOURCE).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _validator() -> Any:
    import jsonschema  # type: ignore[import-untyped]  # lazy: a pytest session that never loads a case pays nothing

    return jsonschema.Draft202012Validator(schema())


def vocabulary(name: str) -> tuple[str, ...]:
    """A closed vocabulary (`api`, `family`, `semantics`, `feature`, `violationCode`, ...)."""
    return tuple(schema()["$defs"][name]["enum"])


def _best_errors(error: Any) -> list[Any]:
    """The leaf errors of an if/then or anyOf, which name the real problem."""
    if error.context:
        leaves: list[Any] = []
        for sub in error.context:
            leaves.extend(_best_errors(sub))
        return leaves
    return [error]


def validate(document: Any, path: str) -> list[Problem]:
    """Schema problems of one parsed case file, each with the line it concerns."""
    problems: list[Problem] = []
    for error in sorted(_validator().iter_errors(document), key=lambda e: list(e.absolute_path)):
        for leaf in _best_errors(error):
            location = list(leaf.absolute_path)
            pointer = "/".join(str(p) for p in location) or "(document)"
            problems.append(
                Problem(
                    path=path,
                    line=line_of(document, location),
                    rule=f"schema:{leaf.validator}",
                    message=f"at {pointer}: {leaf.message}",
                )
            )
    return sorted(set(problems))
