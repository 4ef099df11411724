"""Linting recorded traffic: a cassette's requests checked against the responses it served.

The same rules as a live run, minus the decode rules (there is no codec to ask). Interactions
are grouped by dialect, so a cassette that talks to two APIs yields two exchanges.

Lint never crashes on what a file holds: an interaction its dialect cannot read is reported,
located, as `unreadable` (the command exits 2 for it), and the rest of the file is still checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from conformance.cassette import Cassette, CassetteError, Interaction, load_cassette
from conformance.corpus import Corpus
from conformance.dialects import detect
from conformance.dialects.base import Dialect, DialectError
from conformance.exchange import Exchange, Turn
from conformance.faults import describe
from conformance.rules import CheckContext, check
from conformance.sse import StreamError
from conformance.violations import Violation
from conformance.wire import Served


@dataclass
class LintReport:
    path: str
    interactions: int = 0
    checked: dict[str, int] = field(default_factory=dict)  # api -> interactions checked
    unchecked: list[str] = field(default_factory=list)  # interactions no dialect speaks (side requests)
    unreadable: list[str] = field(default_factory=list)  # what a dialect could not read, located
    notes: list[str] = field(default_factory=list)  # what the responses showed: HTTP errors, stream oddities
    violations: list[tuple[str, Violation]] = field(default_factory=list)  # (api, violation)

    @property
    def errors(self) -> list[tuple[str, Violation]]:
        return [(a, v) for a, v in self.violations if v.severity == "error"]


def _served(dialect: Dialect, interaction: Interaction) -> Served:
    where = f"response[{interaction.index}]"
    response = interaction.response
    if response.status >= 400:
        detail = response.text()[:300].strip()
        return Served(False, (), "", {}, notes=(f"{where}: HTTP {response.status}: {detail}",))
    return dialect.served(response, where)


def lint(cassette: Cassette, corpus: Corpus, profile: str = "default") -> LintReport:
    report = LintReport(path=cassette.path, interactions=len(cassette))
    groups: dict[str, tuple[Dialect, list[Turn]]] = {}
    for interaction in cassette:
        dialect = detect(interaction.request)
        request = interaction.request
        if dialect is None:
            report.unchecked.append(
                f"interaction[{interaction.index}]: no dialect yet for {request.method} {request.host}{request.path}"
            )
            continue
        try:
            body = request.json()
            served = _served(dialect, interaction)
        except (ValueError, StreamError, DialectError) as exc:
            report.unreadable.append(f"interaction[{interaction.index}]: {exc}")
            continue
        report.notes.extend(served.notes)
        groups.setdefault(dialect.api, (dialect, []))[1].append(
            Turn(index=interaction.index, request=body, served=served)
        )
    for api, (dialect, turns) in groups.items():
        exchange = Exchange(api=api, turns=tuple(turns))
        names = frozenset(c.name for t in turns for c in t.served.calls if c.name)
        ctx = CheckContext(corpus=corpus, dialect=dialect, profile=profile, tool_names=names)
        try:
            found = check(exchange, ctx)
        except DialectError as exc:
            report.unreadable.append(f"{api}: {exc}")
            continue
        except Exception as exc:  # a rule that fails on what it was given must not end the lint
            report.unreadable.append(f"{api}: the suite failed while checking this exchange: {describe(exc)}")
            continue
        report.checked[api] = len(turns)
        report.violations.extend((api, v) for v in found)
    return report


def lint_path(path: Path, corpus: Corpus, profile: str = "default") -> LintReport:
    """Raises CassetteError when the file cannot be read as a cassette, and nothing else."""
    cassette = load_cassette(path)
    try:
        return lint(cassette, corpus, profile)
    except Exception as exc:
        raise CassetteError(str(path), f"the suite failed while linting it: {describe(exc)}") from exc
