"""Linting recorded traffic: a cassette's requests checked against the responses it served.

The same rules as a live run, minus the decode rules (there is no codec to ask). Each independent
conversation of the cassette is one exchange (`conformance.engine.conversations`): a request is checked
against the responses of its own conversation only, never against another test's.

Lint never crashes on what a file holds: an interaction its dialect cannot read is reported,
located, as `unreadable` (the command exits 2 for it), and the rest of the file is still checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from conformance.corpus.loading import Corpus
from conformance.engine.conversations import Conversation, split
from conformance.engine.dialects.base import DialectError
from conformance.engine.exchange import Exchange, Turn
from conformance.engine.faults import describe
from conformance.engine.quoting import Quote, quotes_for
from conformance.engine.rules import CheckContext, check
from conformance.engine.turn_end import asks_client
from conformance.engine.violations import Violation
from conformance.engine.wording import plural
from conformance.recordings.cassette import Cassette, CassetteError


@dataclass
class LintReport:
    path: str
    interactions: int = 0
    checked: dict[str, int] = field(default_factory=dict)  # api -> interactions checked
    unchecked: list[str] = field(default_factory=list)  # interactions no dialect speaks (side requests)
    unreadable: list[str] = field(default_factory=list)  # what a dialect could not read, located
    notes: list[str] = field(default_factory=list)  # what the responses showed: HTTP errors, stream oddities
    violations: list[tuple[str, Violation]] = field(default_factory=list)  # (api, violation)
    conversations: int = 0
    # Each violation's provider error in this cassette's terms (its own ids and positions), by the
    # violation's identity, where it differs from the report the corpus quotes.
    quotes: dict[int, Quote] = field(default_factory=dict)

    def quote(self, violation: Violation) -> Quote | None:
        """The violation's provider error told with this cassette's ids, as a run tells it."""
        return self.quotes.get(id(violation))

    @property
    def errors(self) -> list[tuple[str, Violation]]:
        return [(a, v) for a, v in self.violations if v.severity == "error"]


def exchange_of(conversation: Conversation) -> Exchange:
    return Exchange(
        api=conversation.api,
        turns=tuple(Turn(index=s.index, request=s.body, served=s.served) for s in conversation.steps),
    )


def runs_of(conversation: Conversation) -> tuple[int, ...]:
    """The run each interaction of the conversation belongs to (by its index in the cassette), as a
    scenario's prompts would say: a request sent after a response that asked nothing of the client
    (text, the provider's own tools) begins a new run of the application, whose memory may forget an
    earlier run's calls with their results."""
    if not conversation.steps:
        return ()
    runs = [0] * (max(s.index for s in conversation.steps) + 1)
    run = 0
    for before, step in zip([None, *conversation.steps], conversation.steps, strict=False):
        if before is not None and asks_client(conversation.api, before.served) is None:
            run += 1
        runs[step.index] = run
    return tuple(runs)


def conversation_context(conversation: Conversation, corpus: Corpus, profile: str = "default") -> CheckContext:
    """What the rules need to judge one conversation of a recording."""
    names = frozenset(c.name for c in conversation.served_calls() if c.name)
    return CheckContext(
        corpus=corpus, dialect=conversation.dialect, profile=profile, tool_names=names, runs=runs_of(conversation)
    )


def violation_key(api: str, v: Violation) -> tuple[str, str, str, str, str]:
    """What makes two reports of a violation the same one (branches share their first turns)."""
    return (api, v.code, v.location, repr(v.expected), repr(v.received))


def lint(cassette: Cassette, corpus: Corpus, profile: str = "default") -> LintReport:
    report = LintReport(path=cassette.path, interactions=len(cassette))
    found = split(cassette)
    report.notes.extend(found.notes)
    for unread in found.unread:
        # No dialect speaks it (a side request): unchecked. A dialect's own body it cannot read: unreadable.
        into = report.unchecked if unread.api is None else report.unreadable
        into.append(f"interaction[{unread.index}]: {unread.reason}")
    checked: dict[str, set[int]] = {}
    seen: set[tuple[str, str, str, str, str]] = set()
    for conversation in found.conversations:
        where = f"{conversation.api} interactions {conversation.indices}"
        exchange = exchange_of(conversation)
        try:
            violations = list(check(exchange, conversation_context(conversation, corpus, profile)))
        except DialectError as exc:
            report.unreadable.append(f"{where}: {exc}")
            continue
        except Exception as exc:  # a rule that fails on what it was given must not end the lint
            report.unreadable.append(f"{where}: the suite failed while checking this conversation: {describe(exc)}")
            continue
        report.conversations += 1
        checked.setdefault(conversation.api, set()).update(conversation.indices)
        quotes = quotes_for(violations, exchange)
        for i, v in enumerate(violations):
            # Branches share their first turns: a fault there is reported once.
            key = violation_key(conversation.api, v)
            if key not in seen:
                seen.add(key)
                report.violations.append((conversation.api, v))
                if i in quotes:
                    report.quotes[id(v)] = quotes[i]
    report.checked = {api: len(indices) for api, indices in checked.items()}
    return report


def lint_path(path: Path, corpus: Corpus, profile: str = "default") -> LintReport:
    """Raises CassetteError when the file cannot be read as a cassette, and nothing else."""
    from conformance.importer.formats import ids_redacted, load_recording  # every format import reads

    cassette = load_recording(path)
    try:
        report = lint(cassette, corpus, profile)
        if ids_redacted(cassette):
            # The recorder's stand-in ids say nothing about the provider's id format.
            report.violations[:] = [(a, v) for a, v in report.violations if not v.code.startswith("format/id-")]
        return report
    except Exception as exc:
        raise CassetteError(str(path), f"the suite failed while linting it: {describe(exc)}") from exc


def lint_verdict(errors: int, warnings: int) -> str:
    """The one-line verdict above the listed violations: never `clean` over warnings it then lists."""
    if not errors and not warnings:
        return "clean"
    if not errors:
        return f"no errors, {plural(warnings, 'warning')}"
    return plural(errors, "violation") + (f" and {plural(warnings, 'warning')}" if warnings else "")
