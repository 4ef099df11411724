"""`conformance check`: the corpus validates itself.

One named rule per property, each problem located by file and line:
schema and layout (from loading), `id-retired`, `description-unique`, `reference` (scenarios
name existing wire types, bugs name existing scenarios and importable reproductions),
`cassette` (every cassette a case names exists, parses, and serves the calls the scenario
declares), `pattern` (every id limit's `pattern` compiles, as the format rules will compile it),
`undeclared-tool` (every server tool and every `caller` a scenario's responses use is declared in its
`tools`, as the provider requires of a request), `source` (a recorded scenario says where its
traffic comes from: the bundled ones name a repository, commit and allowed licence, and their
cassette names the scenario it belongs to),
and `example` (examples validate against the official SDK's model, when installed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.corpus.caseschema import vocabulary
from conformance.corpus.loading import Corpus, LoadedFile, Scenario, build_corpus, default_roots, read_case_files
from conformance.corpus.paths import bundled_cases
from conformance.corpus.problems import Problem
from conformance.engine.declarations import Use, declared_by_scenario, family_of, undeclared
from conformance.engine.dialects import dialect_for
from conformance.engine.dialects.base import DialectError
from conformance.engine.wording import a
from conformance.recordings.cassette import CassetteError, Interaction, load_cassette
from conformance.recordings.sse import StreamError
from conformance.recordings.yamlio import YamlError, line_of, load_file

RETIRED_FILE = "retired.yaml"


@dataclass
class CheckReport:
    files: int = 0
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    corpus: Corpus | None = None


def _documents(files: Sequence[LoadedFile]) -> dict[str, LoadedFile]:
    found: dict[str, LoadedFile] = {}
    for f in files:
        if isinstance(f.document, dict) and isinstance(f.document.get("id"), str):
            found.setdefault(f.document["id"], f)
    return found


def _retired(case_roots: Sequence[Path], problems: list[Problem]) -> dict[str, Path]:
    retired: dict[str, Path] = {}
    for root in case_roots:
        path = root / RETIRED_FILE
        if not path.is_file():
            continue
        try:
            data = load_file(path)
        except YamlError as exc:
            problems.append(Problem(exc.path, exc.line, "yaml", exc.message))
            continue
        if data is None:
            continue  # a file of comments alone: none retired yet
        # `retired:` with nothing after it is null, not a list: a list with no entries is `retired: []`.
        entries = data.get("retired", []) if isinstance(data, dict) else None
        if not isinstance(entries, list):
            line = line_of(data, ["retired"])
            problems.append(
                Problem(
                    str(path),
                    line,
                    "id-retired",
                    "retired is a list of entries with id, date and reason (`retired: []` when there are none)",
                )
            )
            continue
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict) or not {"id", "date", "reason"} <= entry.keys():
                problems.append(
                    Problem(str(path), line_of(data, ["retired", i]), "id-retired", "entries need id, date and reason")
                )
                continue
            retired[str(entry["id"])] = path
    return retired


def _wire_apis(api: str) -> set[str]:
    """The APIs whose wire types a scenario of `api` may carry: its own, and the one its dialect
    reads plain function calls as (Azure Foundry's function items are OpenAI Responses items)."""
    return {api, dialect_for(api).call_type.split("/", 1)[0]}


def check_corpus(
    extra_cases: Sequence[Path] = (),
    extra_cassettes: Sequence[Path] = (),
    *,
    examples: bool = True,
    only: Collection[Path] | None = None,
) -> CheckReport:
    """`only`: check the cassettes of these case files alone, and not the corpus-wide rules (wire
    types exercised, bug reproductions): what a newly written case needs, at a fraction of the cost."""
    case_roots, cassette_roots = default_roots(extra_cases, extra_cassettes)
    selected = None if only is None else {p.resolve() for p in only}
    report = CheckReport()
    files, problems = read_case_files(case_roots)
    files = [f for f in files if f.path.name != RETIRED_FILE]
    report.files = len(files)
    corpus, more = build_corpus(files, case_roots, cassette_roots)
    problems += more
    report.corpus = corpus
    docs = _documents(files)

    def at(case_id: str, path: list[str | int], rule: str, message: str) -> None:
        loaded = docs[case_id]
        problems.append(Problem(str(loaded.path), line_of(loaded.document, path), rule, message))

    problems += _check_patterns(files)
    retired = _retired(case_roots, problems)
    for case_id in docs:
        if case_id in retired:
            at(case_id, ["id"], "id-retired", f"id {case_id!r} was retired ({retired[case_id]}); ids are never reused")

    seen_descriptions: dict[str, str] = {}
    # Bundled cases first: a user's file that repeats a bundled description is the one reported.
    rank = {root: i for i, root in enumerate(reversed(case_roots))}
    for case_id, loaded in sorted(docs.items(), key=lambda item: rank.get(item[1].root, 0)):
        description = loaded.document.get("description")
        if isinstance(description, str):
            if description in seen_descriptions:
                at(
                    case_id,
                    ["description"],
                    "description-unique",
                    f"same description as {seen_descriptions[description]}",
                )
            else:
                seen_descriptions[description] = case_id

    exercised: set[str] = set()
    for scenario in corpus.scenarios.values():
        if selected is not None and docs[scenario.id].path.resolve() not in selected:
            continue
        for i, wire_type in enumerate(scenario.wire_types):
            if wire_type not in corpus.wire_types:
                at(scenario.id, ["wire_types", i], "reference", f"no wire-type case {wire_type!r}")
            elif (
                corpus.wire_types[wire_type].api not in _wire_apis(scenario.api)
                and "cross-provider" not in scenario.features
            ):
                at(scenario.id, ["wire_types", i], "reference", f"{wire_type!r} is not {a(scenario.api)} wire type")
        exercised.update(_check_cassette(corpus, scenario.id, at))
        _check_text_positions(scenario, at)
        _check_history_cassette(corpus, scenario.id, at)
        if scenario.recorded:
            _check_source(scenario, docs[scenario.id].root, at)

    for case in corpus.wire_types.values() if selected is None else ():
        if case.id in exercised:
            continue
        exemption = case.data.get("not_exercised")
        if exemption:
            report.notes.append(f"{case.id}: exercised by no scenario: {exemption['reason']}")
        else:
            at(case.id, ["id"], "unexercised", "no scenario's cassette carries this wire type")

    for bug in corpus.bugs.values() if selected is None else ():
        if bug.scenario not in corpus.scenarios:
            at(bug.id, ["scenario"], "reference", f"no scenario {bug.scenario!r}")
            continue
        _check_reproduction(corpus, bug.id, at)

    for case in corpus.wire_types.values():
        target = case.data.get("references", {}).get("target")
        if target and target.split(".", 1)[0] not in corpus.wire_types:
            at(case.id, ["references", "target"], "reference", f"no wire-type case {target.split('.', 1)[0]!r}")

    if examples:
        from conformance.corpus.examples import check_examples

        example_problems, notes = check_examples(corpus, docs)
        problems += example_problems
        report.notes += notes

    report.problems = sorted(set(problems))
    return report


def _patterns(document: Any) -> list[tuple[list[str | int], Any]]:
    """Every `pattern` of an id limit in a case document, with its path (wherever the schema puts
    limits: on id fields, on variants)."""
    found: list[tuple[list[str | int], Any]] = []
    stack: list[tuple[list[str | int], Any]] = [([], document)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            if "limits" in path and "pattern" in node:
                found.append(([*path, "pattern"], node["pattern"]))
            stack.extend(([*path, key], value) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend(([*path, i], value) for i, value in enumerate(node))
    return found


def _check_patterns(files: Sequence[LoadedFile]) -> list[Problem]:
    """The format rules match ids with `re.fullmatch(pattern, id)`: a pattern that does not compile
    would fail every run that meets it, so it is a problem here, with its line."""
    problems: list[Problem] = []
    for loaded in files:
        for path, pattern in _patterns(loaded.document):
            where = ".".join(str(p) for p in path)
            if not isinstance(pattern, str):
                message = f"{where} is {type(pattern).__name__}, not a regular expression"
            else:
                try:
                    re.compile(pattern)
                    continue
                except (re.error, RecursionError, OverflowError, ValueError) as exc:
                    message = f"{where} {pattern[:80]!r} is not a regular expression: {exc}"
            problems.append(Problem(str(loaded.path), line_of(loaded.document, path), "pattern", message))
    return problems


def _check_cassette(corpus: Corpus, case_id: str, at: Callable[..., None]) -> set[str]:
    """Problems with a scenario's cassette; returns the wire types the cassette carries."""
    scenario = corpus.scenarios[case_id]
    carried: set[str] = set()
    path = corpus.cassette_path(scenario)
    if not path.is_file():
        at(
            case_id,
            ["cassette"],
            "cassette",
            f"cassette {scenario.cassette!r} not found in {[str(r) for r in corpus.cassette_roots]}",
        )
        return carried
    try:
        cassette = load_cassette(path)
    except CassetteError as exc:
        at(case_id, ["cassette"], "cassette", str(exc))
        return carried
    if scenario.source is not None and (
        cassette.provenance.get("kind") != "recorded" or cassette.provenance.get("scenario") != scenario.id
    ):
        at(
            case_id,
            ["cassette"],
            "source",
            f"the cassette's provenance is {dict(cassette.provenance) or 'missing'}; a recorded scenario's cassette "
            f"says `kind: recorded` and `scenario: {scenario.id}`",
        )
    if len(cassette) != len(scenario.turns):
        at(
            case_id,
            ["turns"],
            "cassette",
            f"{len(scenario.turns)} turns declared, the cassette has {len(cassette)} interactions",
        )
        return carried
    dialect = dialect_for(scenario.api)  # the schema admits only APIs that have one
    declared = declared_by_scenario(scenario.api, (*scenario.tools, *scenario.server_tools))
    reported: set[tuple[str | None, ...]] = set()
    for interaction, turn in zip(cassette, scenario.turns, strict=True):
        try:
            served = dialect.served(interaction.response, f"response[{interaction.index}]")
        except (ValueError, StreamError, DialectError) as exc:
            at(case_id, ["turns", interaction.index], "cassette", f"{path}: {exc}")
            continue
        carried.update(c.wire_type for c in served.calls)
        carried.update(r.wire_type for r in served.results)
        for use in undeclared(scenario.api, served, declared):
            if (use.family, use.function, use.caller) not in reported:  # once per scenario: one line fixes it
                reported.add((use.family, use.function, use.caller))
                at(case_id, ["tools"], "undeclared-tool", _undeclared_message(scenario.api, use, interaction))
        try:
            sent = dialect.history(interaction.request.json(), f"request[{interaction.index}]")
        except (ValueError, DialectError) as exc:
            at(case_id, ["turns", interaction.index], "cassette", f"{path}: request: {exc}")
        else:
            carried.update(c.wire_type for c in sent.calls())
            carried.update(r.wire_type for r in sent.results())
        got = [(c.call_id, c.name) for c in served.calls]
        want = [(c.id, c.name) for c in turn.calls]
        if got != want:
            at(
                case_id,
                ["turns", interaction.index],
                "cassette",
                f"the cassette serves {got}, the scenario declares {want}",
            )
        if scenario.stream != served.stream:
            at(
                case_id,
                ["stream"],
                "cassette",
                f"stream is {scenario.stream} but response[{interaction.index}] "
                f"{'streams' if served.stream else 'does not stream'}",
            )
    own = {w for w in scenario.wire_types if w.startswith(f"{scenario.api}/")}
    for wire_type in sorted(own - carried):
        at(
            case_id,
            ["wire_types", scenario.wire_types.index(wire_type)],
            "cassette",
            f"declared, but the cassette carries no {wire_type}",
        )
    for wire_type in sorted(carried - set(scenario.wire_types)):
        at(case_id, ["wire_types"], "cassette", f"the cassette carries {wire_type}, which wire_types does not declare")
    return carried


def _undeclared_message(api: str, use: Use, interaction: Interaction) -> str:
    """What a scenario leaves undeclared, with the definition its own recorded request sends, if any."""
    where = f"response[{interaction.index}] uses it at {use.path}"
    if use.function is not None:
        return f"{use.function} has no allowed_callers [{use.caller}], yet {where}"
    body = interaction.request.json()
    recorded = body.get("tools") if isinstance(body, dict) else None
    sent = [
        t
        for t in (recorded if isinstance(recorded, list) else [])
        if isinstance(t, dict) and isinstance(t.get("type"), str) and family_of(api, t["type"]) == use.family
    ]
    hint = f"; the recorded request declares {json.dumps(sent[0])}" if sent else ""
    return f"tools declares no {use.family} server tool, yet {where}{hint}"


# Where each API's builder can serve a turn's text among its calls: anywhere in an ordered list of
# content blocks or output items; first in a Chat Completions stream (content deltas, then the calls);
# elsewhere the text is not served beside calls.
_ORDERED = ("before-calls", "between-calls", "after-calls")
_TEXT_POSITIONS: Mapping[str, tuple[str, ...]] = {
    **dict.fromkeys(
        (
            "anthropic-messages",
            "ollama-messages",
            "bedrock-converse",
            "openai-responses",
            "azure-foundry",
            "openresponses",
            "mistral-responses",
            "ollama-responses",
        ),
        _ORDERED,
    ),
    "openai-chat": ("before-calls",),
}


def _check_text_positions(scenario: Scenario, at: Callable[..., None]) -> None:
    """A turn's `text_position` says where its text sits among its calls: it needs both, two calls
    to sit between, and an API whose responses can hold the text there."""
    for t, turn in enumerate(scenario.turns):
        position = turn.text_position
        if position is None:
            continue
        where = ["turns", t, "text_position"]
        allowed = _TEXT_POSITIONS.get(scenario.api, ())
        if position not in allowed:
            served = f"only {', '.join(allowed)}" if allowed else "none"
            at(scenario.id, where, "text-position", f"{position}: {scenario.api} serves {served}")
        elif not turn.text or not turn.calls:
            at(scenario.id, where, "text-position", f"{position}: the turn needs text and calls to place it among")
        elif position == "between-calls" and len(turn.calls) < 2:
            at(scenario.id, where, "text-position", "between-calls: the turn has one call, nothing to sit between")


def _check_history_cassette(corpus: Corpus, case_id: str, at: Callable[..., None]) -> None:
    """A history's own cassette (chained mode) serves the calls its turns declare, on its API."""
    history = corpus.scenarios[case_id].history
    if history is None or not history.cassette:
        return
    where = ["history", "cassette"]
    path = corpus.find_cassette(history.cassette)
    if not path.is_file():
        at(case_id, where, "cassette", f"history cassette {history.cassette!r} not found")
        return
    try:
        cassette = load_cassette(path)
    except CassetteError as exc:
        at(case_id, where, "cassette", str(exc))
        return
    if len(cassette) != len(history.turns):
        at(case_id, where, "cassette", f"{len(history.turns)} history turns, the cassette has {len(cassette)}")
        return
    dialect = dialect_for(history.api)
    for interaction, turn in zip(cassette, history.turns, strict=True):
        try:
            served = dialect.served(interaction.response, f"response[{interaction.index}]")
        except (ValueError, StreamError, DialectError) as exc:
            at(case_id, ["history", "turns", interaction.index], "cassette", f"{path}: {exc}")
            continue
        got = [(c.call_id, c.name) for c in served.calls]
        want = [(c.id, c.name) for c in turn.calls]
        if got != want:
            at(case_id, ["history", "turns", interaction.index], "cassette", f"{path} serves {got}, declared {want}")


def _check_source(scenario: Scenario, root: Path, at: Callable[..., None]) -> None:
    """A recorded scenario names its source; the bundled corpus holds only third-party recordings
    under the licences it may redistribute, each at a commit."""
    source = scenario.source
    bundled = root.resolve() == bundled_cases().resolve()
    if source is None:
        # A user's own recording (`--record-mode=once`) needs none; the corpus's own must say.
        if bundled:
            at(scenario.id, ["provenance"], "source", "a bundled recorded scenario names its source (`source:`)")
        return
    if bundled and not source.repository:
        at(scenario.id, ["source"], "source", "a bundled recorded scenario names the repository it was imported from")
    if bundled and source.repository and not source.revoiced:
        at(
            scenario.id,
            ["source", "revoiced"],
            "source",
            "a bundled third-party recording is re-voiced (`conformance import --revoice`)",
        )
    allowed = vocabulary("licence")
    if source.repository and source.licence not in allowed:
        at(scenario.id, ["source", "licence"], "source", f"licence {source.licence!r}: use one of {', '.join(allowed)}")


def check_written(
    case_files: Sequence[Path], cases_root: Path, cassettes_root: Path
) -> tuple[list[Problem], Corpus | None]:
    """The problems `conformance check` finds in newly written case files (and their cassettes),
    checked beside the bundled corpus; and the corpus they belong to."""
    same = cases_root.resolve() == bundled_cases().resolve()
    report = check_corpus([] if same else [cases_root], [cassettes_root], examples=False, only=case_files)
    wanted = {str(p.resolve()) for p in case_files}
    return [p for p in report.problems if str(Path(p.path).resolve()) in wanted], report.corpus


def _check_reproduction(corpus: Corpus, case_id: str, at: Callable[..., None]) -> None:
    from conformance.connectors.adapters import AdapterSpecError, resolve_reproduction
    from conformance.connectors.client import ClientAdapter
    from conformance.connectors.contract import CodecAdapter

    bug = corpus.bugs[case_id]
    try:
        adapter = resolve_reproduction(bug.reproduction)
    except AdapterSpecError as exc:
        at(case_id, ["reproduction"], "reference", str(exc))
        return
    api = corpus.scenarios[bug.scenario].api
    # A client reproduction plays the loop itself: the bugs that live there (a session that stops
    # on what the provider served) are not a codec's to show.
    if isinstance(adapter, ClientAdapter):
        if adapter.client(api) is None:
            at(case_id, ["reproduction"], "reference", f"{bug.reproduction} has no client for {api}")
    elif not isinstance(adapter, CodecAdapter):
        at(case_id, ["reproduction"], "reference", f"{bug.reproduction} is neither a codec nor a client adapter")
    elif adapter.codec(api) is None:
        at(case_id, ["reproduction"], "reference", f"{bug.reproduction} has no codec for {api}")


def summary(report: CheckReport) -> str:
    c: Any = report.corpus
    counts = f"{len(c.wire_types)} wire types, {len(c.scenarios)} scenarios, {len(c.bugs)} bug cases" if c else ""
    verdict = "no problems" if not report.problems else f"{len(report.problems)} problem(s)"
    return f"checked {report.files} case files ({counts}): {verdict}"
