"""What a client is handed to continue a conversation: a restored history, and a session's runs.

A scenario that begins with a history is a conversation saved earlier and restored: the client is
given it in the neutral model and in its origin API's wire form (the request messages as that API
writes them), and loads it the way its library continues a conversation (a message-history
parameter, prior messages, a message list). A session of several runs is handed as the user
message that begins each run, played one after another on the same client object; a run cut off
before its tool answered is played by the tool raising `RunInterrupted` (docs/adapters.md).

Only a client that says it can (`continues` on its adapter, or in a harness's greeting) is handed
either; for any other, the case is a skip with the reason, as before (replay/continued.py).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from conformance.corpus.loading import Scenario
from conformance.engine.neutral import Message, user
from conformance.recordings.bounds import json_or_none
from conformance.recordings.cassette import Cassette

# The field of a request body that holds the conversation, by API.
_CONVERSATION_FIELDS = ("messages", "input", "contents")


def runs_of(scenario: Scenario) -> list[str | None]:
    """The user message that begins each run; None where the first run continues a restored history
    (whose first message is the scenario's prompt) without a message of its own."""
    first: str | None = None if scenario.history is not None else scenario.prompt
    return [first, *(turn.prompt for turn in scenario.turns if turn.prompt)]


def interrupted_calls(scenario: Scenario) -> list[tuple[str, Mapping[str, Any]]]:
    """The calls whose run is cut off before their tool answers: (name, arguments)."""
    return [(c.name, c.arguments) for t in scenario.turns for c in t.calls if c.interrupted]


def neutral_history(scenario: Scenario) -> list[Message]:
    """The restored conversation in the neutral model: the prompt, then the history's turns with their
    results, as the origin API's decoder gives them (the codec path plays the same messages). A
    recording whose conversation begins without a user message (an empty prompt) is restored without
    one: an empty user message is no part of it, and libraries refuse an empty text part."""
    from conformance.connectors.codec import prior_messages

    if scenario.history is None:
        return []
    first = [user(scenario.prompt)] if scenario.prompt else []
    return [*first, *prior_messages(scenario)]


def wire_history(scenario: Scenario, recorded: Cassette | None) -> list[Any]:
    """The restored conversation in its origin API's wire form: the request messages as that API writes
    them. A history recorded on the scenario's own API is the recording's first request's conversation
    as sent; one begun on another API is what a correct adapter of that API sends for it (the
    reference codec's encoding of the neutral history)."""
    if scenario.history is None:
        return []
    if scenario.history.api == scenario.api and recorded is not None and recorded.interactions:
        found = _conversation(json_or_none(recorded.interactions[0].request.body))
        if found is not None:
            return found
    # The bundled reference adapter sits above the connectors: it is loaded by its name, as `--adapter
    # reference` loads it (connectors/adapters.py, BUNDLED).
    reference = importlib.import_module("conformance.reference").ADAPTER
    codec = reference.codecs[scenario.history.api]
    body = codec.encode(
        {
            "api": scenario.history.api,
            "model": scenario.history.model or scenario.model,
            "stream": False,
            "tools": [dict(t) for t in scenario.tools],
            "messages": neutral_history(scenario),
        }
    )
    return _conversation(body) or []


def _conversation(body: Any) -> list[Any] | None:
    if not isinstance(body, dict):
        return None
    for key in _CONVERSATION_FIELDS:
        if isinstance(body.get(key), list):
            return list(body[key])
    return None
