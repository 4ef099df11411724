"""What a client can be handed beyond a new conversation, and what it must then do: the capabilities a
client declares (`continues`), which scenarios need which, and the signal of a run cut off in a tool.

The replay needs these to judge (a client handed a session that stops before a run fails) and to answer a
harness's tool call that the scenario cuts off; the connectors build what the client is handed from them
(connectors/continuing.py).
"""

from __future__ import annotations

from collections.abc import Collection

from conformance.corpus.loading import Scenario
from conformance.engine.wording import a

HISTORY = "history"  # a conversation restored from its saved messages
SESSIONS = "sessions"  # successive runs on one client, a run cut off before its tool answered
HANDOFFS = "handoffs"  # a cross-provider history played as a first leg on its own API (connectors/handoff.py)
CAPABILITIES = frozenset({HISTORY, SESSIONS, HANDOFFS})
# A hand-off's first leg is served as a scenario of its own under this id suffix (connectors/handoff.py).
FIRST_LEG = "/first-leg"


class RunInterrupted(BaseException):  # not an Exception: a library's `except Exception` must not swallow it
    """Raised by a tool whose run the scenario cuts off before it answers (the user cancelled, the process
    died): the run ends there, and the next run of the session continues the same conversation."""

    def __init__(self, name: str | None) -> None:
        self.name = name
        super().__init__(f"the run was cut off before {name or 'the tool'} answered")


def is_session(scenario: Scenario) -> bool:
    """Whether the scenario plays several runs: a later turn begins with a prompt, or a call is cut off."""
    return any(turn.prompt or any(c.interrupted for c in turn.calls) for turn in scenario.turns)


def not_continued(scenario: Scenario, continues: Collection[str]) -> str | None:
    """Why a client that continues only what `continues` names cannot be handed the scenario, if it cannot."""
    if scenario.history is not None and HISTORY not in continues:
        return f"begins with {a(scenario.history.api)} history, which only a codec adapter can be handed"
    if is_session(scenario) and SESSIONS not in continues:
        return "a session of several runs, which only a codec adapter can be handed run by run"
    return None


def unknown_capabilities(continues: Collection[str]) -> list[str]:
    return sorted(set(continues) - CAPABILITIES)


def runs_left(scenario: Scenario, sent: int) -> bool:
    """Whether a run of the session begins after the first `sent` responses: a client handed the session
    that stops there never ran it."""
    return any(turn.prompt for turn in scenario.turns[sent:])
