"""Cassette interactions as plain data: the bundled recordings, read and changed by tests that
build cassettes of their own from them."""

from __future__ import annotations

import copy
import json
from typing import Any

import yaml
from conftest import ROOT


def bundled_interactions(name: str) -> list[dict[str, Any]]:
    """The interactions of a bundled cassette (`cassettes/<name>`)."""
    data = yaml.safe_load((ROOT / "cassettes" / name).read_text())
    return list(data["interactions"])


def request_body(interaction: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(interaction["request"]["body"])
    return body


def with_request_body(interaction: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """A copy of the interaction that sends `body` instead."""
    changed = copy.deepcopy(interaction)
    changed["request"]["body"] = json.dumps(body)
    return changed
