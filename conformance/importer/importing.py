"""`conformance import`: a recorded cassette turned into scenarios of the corpus.

Reads any cassette `conformance.recordings.cassette` reads, splits it into conversations
(`conformance.engine.conversations`), derives one scenario from each (`importer.derive`), and writes the
case file and a scrubbed copy of the conversation's interactions (`importer.write`), with
`provenance: recorded` and the `source` they came from. What it writes is then checked as
`conformance check` checks the corpus; a file that fails is removed and the conversation refused.

Every text of the recording is re-voiced first (`importer.revoice`), unless `revoice` is off (a
user's own recording): the facts of the traffic stay, the prose is the project's, and the scenario
is derived from the re-voiced traffic, so its prompt and canned outputs are the cassette's.
"""

from __future__ import annotations

import datetime
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from conformance.corpus.loading import Corpus
from conformance.engine.conversations import Conversation, split
from conformance.importer.derive import Refused, derive
from conformance.importer.formats import load_recording, requests_held
from conformance.importer.revoice import RevoiceError, revoice_interaction, summary
from conformance.importer.write import dump_case, dump_cassette, plain_interaction
from conformance.recordings.cassette import Cassette, CassetteError


@dataclass(frozen=True)
class Source:
    """Where a recording comes from. A third-party recording names its repository, path, commit and
    licence; a user's own needs none of them."""

    repository: str | None = None  # owner/name on GitHub
    path: str | None = None
    commit: str | None = None
    licence: str | None = None
    read: str = field(default_factory=lambda: datetime.date.today().isoformat())
    edited: str | None = None  # how the recording was changed by hand, where it was

    def document(self, fallback_path: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.repository:
            out["repository"] = self.repository
        out["path"] = self.path or fallback_path
        if self.commit:
            out["commit"] = self.commit
        if self.licence:
            out["licence"] = self.licence
        out["read"] = self.read
        if self.repository and self.commit:
            out["url"] = f"https://github.com/{self.repository}/blob/{self.commit}/{out['path']}"
        if self.edited:
            out["edited"] = self.edited
        return out


@dataclass(frozen=True)
class Options:
    output: Path = Path(".")  # the directory holding cases/ and cassettes/
    source: Source = Source()
    api: str | None = None  # only conversations on this API
    case_id: str | None = None  # the scenario id, or its slug; further conversations get -2, -3 ...
    conversations: tuple[int, ...] = ()  # 1-based: only these conversations
    description: str | None = None
    force: bool = False  # overwrite existing files
    revoice: bool = True  # replace the recording's texts by the project's (off: a user's own recording)


@dataclass
class Imported:
    case_id: str
    case_path: Path
    cassette_path: Path
    interactions: list[int]
    notes: list[str] = field(default_factory=list)
    reference: str = ""  # how the reference adapter fails the scenario, if it does


@dataclass
class Refusal:
    interactions: list[int]
    reason: str


@dataclass
class Report:
    path: str
    conversations: int = 0
    imported: list[Imported] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # interactions that are not an LLM API's


def slug(text: str) -> str:
    cleaned = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return re.sub(r"^test-", "", cleaned)[:64].strip("-") or "recording"


def _names(path: Path, options: Options, api: str, n: int) -> tuple[str, str]:
    """The scenario id and the cassette path (under a cassette root) of the n-th imported conversation."""
    group = slug(options.source.repository.replace("/", "-")) if options.source.repository else "local"
    given = options.case_id.rsplit("/", 1)[-1] if options.case_id else None
    repo = options.source.repository.split("/")[-1] if options.source.repository else ""
    base = slug(given) if given else slug(f"{repo}-{path.stem}" if repo else path.stem)
    name = base if n == 1 else f"{base}-{n}"
    return f"{api}/recorded/{name}", f"recorded/{group}/{api}/{name}.yaml"


def _turn_summary(turn: dict[str, Any]) -> str:
    calls = turn.get("calls", ())
    client = [c["name"] for c in calls if not c.get("provider_executed")]
    server = [c["name"] for c in calls if c.get("provider_executed")]
    parts: list[str] = []
    if len(client) > 1:
        names = sorted(set(client))
        parts.append(f"{len(client)} parallel {names[0]}" if len(names) == 1 else f"{len(client)} parallel calls")
    elif client:
        parts.append(client[0])
    if server:
        parts.append(f"server {server[0]}" + (f" x{len(server)}" if len(server) > 1 else ""))
    return " + ".join(parts)


def _summary(document: dict[str, Any]) -> str:
    """What the scenario holds, in a few words: its calls turn by turn."""
    parts = [s for s in (_turn_summary(t) for t in document["turns"]) if s]
    if document["turns"] and not document["turns"][-1].get("calls"):
        parts.append("text")
    text = ", then ".join(parts)
    if "history" in document:
        n = sum(len(t["calls"]) for t in document["history"]["turns"])
        text = f"after {n} call{'s' if n != 1 else ''} on {document['history']['api']}, {text}"
    return ("streamed " if document.get("stream") else "") + text


def _label(options: Options, path: Path) -> str:
    """A recording's test, short: its file name without `test_`, `should` or a class prefix.

    Polly.js names every file `recording.har` in a folder per test title (`should-call-a-tool_1703714575`,
    mocha's and jest's `it("should ...")` with Polly's hash of it): the folder is the test's name.
    """
    stem = (options.source.path or path.name).rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if stem in ("sync", "async", "stream", "async_stream", "recording") or len(stem) < 12:
        parent = (options.source.path or str(path)).rsplit("/", 2)
        if len(parent) > 1 and stem == "recording":
            stem = re.sub(r"_\d+$", "", parent[-2])
        elif len(parent) > 1:
            stem = f"{parent[-2]}/{stem}"
    stem = re.sub(r"^Test\w+\.", "", stem)
    stem = re.sub(r"^test_", "", stem)
    stem = re.sub(r"(?i)(?<![a-z])should(?![a-z])[-_ ]?", "", stem)
    return stem if len(stem) <= 48 else stem[:45] + "..."


def _description(options: Options, path: Path, document: dict[str, Any], n: int) -> str:
    if options.description:
        return (options.description if n == 1 else f"{options.description} ({n})")[:120]
    repo = (options.source.repository or "").split("/")[-1]
    where = f"{repo}: {_label(options, path)}" if repo else _label(options, path)
    tail = f" ({where}{f' #{n}' if n > 1 else ''})"
    head = f"{document['model'] or 'recorded'} on {document['api']}: {_summary(document)}"
    if len(head) + len(tail) > 120:
        head = head[: 120 - len(tail) - 3] + "..."
    return head + tail


@dataclass
class _Voiced:
    cassette: Cassette
    counts: dict[int, Counter[str]]  # what was re-voiced, by interaction
    failed: dict[int, str]  # interactions whose texts could not all be found, and why


def _revoice(cassette: Cassette) -> _Voiced:
    interactions = []
    counts: dict[int, Counter[str]] = {}
    failed: dict[int, str] = {}
    for interaction in cassette:
        try:
            done = revoice_interaction(interaction)
        except RevoiceError as exc:
            failed[interaction.index] = str(exc)
            interactions.append(interaction)
            continue
        interactions.append(done.interaction)
        counts[interaction.index] = done.counts
    return _Voiced(replace(cassette, interactions=tuple(interactions)), counts, failed)


def import_cassette(path: Path, corpus: Corpus, options: Options) -> Report:
    """Raises CassetteError when the file cannot be read as a cassette."""
    original = load_recording(path)
    if not requests_held(original):
        report = Report(path=str(path))
        report.refused.append(
            Refusal(
                [i.index for i in original],
                "the recording holds responses only (a Vercel AI SDK fixture): `conformance lint` checks them, "
                "but a scenario needs the requests the client sent",
            )
        )
        return report
    voiced = _revoice(original) if options.revoice else _Voiced(original, {}, {})
    cassette = voiced.cassette
    report = Report(path=str(path))
    found = split(cassette)
    if options.revoice:
        before = [c.indices for c in split(original).conversations]
        if before != [c.indices for c in found.conversations]:
            # The texts that tie a request to the turn it follows no longer match: importing would
            # put requests in the wrong conversations.
            report.refused.append(
                Refusal(
                    sorted(i.index for i in original),
                    f"re-voicing changes how the recording splits into conversations ({before} before, "
                    f"{[c.indices for c in found.conversations]} after)",
                )
            )
            return report
    report.skipped = [f"interaction[{u.index}]: {u.reason}" for u in found.unread if u.api is None]
    # An LLM API's interaction whose bodies cannot be read belongs to a conversation it would break.
    report.refused = [
        Refusal([u.index], f"unreadable {u.api} interaction: {u.reason}")
        for u in found.unread
        if u.api is not None and options.api in (None, u.api)
    ]
    chosen = [c for c in found.conversations if options.api in (None, c.api)]
    report.conversations = len(chosen)
    n = 0
    for number, conversation in enumerate(chosen, start=1):
        if options.conversations and number not in options.conversations:
            continue
        unvoiced = [f"interaction[{i}]: {voiced.failed[i]}" for i in conversation.indices if i in voiced.failed]
        if unvoiced:
            report.refused.append(Refusal(conversation.indices, f"cannot re-voice {'; '.join(unvoiced)}"))
            continue
        try:
            derived = derive(conversation, found, corpus)
        except Refused as exc:
            report.refused.append(Refusal(conversation.indices, str(exc)))
            continue
        n += 1
        case_id, cassette_name = _names(path, options, conversation.api, n)
        try:
            revoiced = sum((voiced.counts.get(i, Counter()) for i in conversation.indices), Counter())
            report.imported.append(
                _write(
                    path, conversation, derived.document, derived.notes, case_id, cassette_name, options, n, revoiced
                )
            )
        except Refused as exc:
            n -= 1
            report.refused.append(Refusal(conversation.indices, str(exc)))
    _verify(report, corpus, options)
    return report


def _write(
    path: Path,
    conversation: Conversation,
    derived: dict[str, Any],
    notes: list[str],
    case_id: str,
    cassette_name: str,
    options: Options,
    n: int,
    revoiced: Counter[str],
) -> Imported:
    source = options.source.document(path.name)
    if options.revoice:
        source["revoiced"] = summary(revoiced) or ["nothing: the recording holds no text"]
    document: dict[str, Any] = {
        "id": case_id,
        "kind": derived["kind"],
        "api": derived["api"],
        "description": _description(options, path, derived, n),
        "cassette": cassette_name,
        **{k: v for k, v in derived.items() if k not in ("kind", "api")},
        "source": source,
    }
    if notes:
        document["notes"] = "; ".join(notes) + "."
    api_dir = options.output / "cases" / "scenarios" / conversation.api / "recorded"
    case_path = api_dir / f"{case_id.rsplit('/', 1)[-1]}.yaml"
    cassette_path = options.output / "cassettes" / cassette_name
    for target in (case_path, cassette_path):
        if target.exists() and not options.force:
            raise Refused(f"{target} exists (use --force to replace it)")
    interactions = [plain_interaction(s.interaction) for s in conversation.steps]
    provenance = {
        "kind": "recorded",
        "scenario": case_id,
        "source": source,
        "interactions": conversation.indices,
        "how": "Recorded against the live provider by the source's authors; imported by `conformance import`: "
        "this conversation's interactions, bodies decompressed, credentials scrubbed"
        + (
            ", every text re-voiced (the facts of the traffic kept; see `source.revoiced`)."
            if options.revoice
            else "; texts as recorded."
        ),
    }
    depth = "../" * (len(case_path.relative_to(options.output).parts) - 1)
    case_path.parent.mkdir(parents=True, exist_ok=True)
    cassette_path.parent.mkdir(parents=True, exist_ok=True)
    case_path.write_text(dump_case(document, f"{depth}conformance/schemas/case.schema.json"), encoding="utf-8")
    cassette_path.write_text(dump_cassette(provenance, interactions), encoding="utf-8")
    return Imported(case_id, case_path, cassette_path, conversation.indices, notes)


def _verify(report: Report, corpus: Corpus, options: Options) -> None:
    """Check what was written as the corpus is checked; remove and refuse what fails."""
    if not report.imported:
        return
    from conformance.check import check_written

    problems, written = check_written(
        [i.case_path for i in report.imported], options.output / "cases", options.output / "cassettes"
    )
    kept: list[Imported] = []
    for imported in report.imported:
        own = [p for p in problems if Path(p.path).resolve() == imported.case_path.resolve()]
        if not own:
            kept.append(imported)
            if written is not None and imported.case_id in written.scenarios:
                imported.reference = _reference_verdict(written, imported.case_id)
            continue
        imported.case_path.unlink(missing_ok=True)
        imported.cassette_path.unlink(missing_ok=True)
        reasons = "; ".join(f"{p.rule}: {p.message}" for p in own[:3])
        report.refused.append(Refusal(imported.interactions, f"what it would write fails the corpus checks: {reasons}"))
    report.imported = kept


def _reference_verdict(corpus: Corpus, case_id: str) -> str:
    """How the bundled reference adapter does on the new scenario in both profiles ("" when it passes):
    a failure there is the suite's to fix, not the recording's."""
    from conformance.reference import ADAPTER
    from conformance.running.runner import CorpusError, run_scenario

    verdicts: list[str] = []
    for profile in ("default", "strict"):
        try:
            result = run_scenario(ADAPTER, corpus.scenarios[case_id], corpus, profile)
        except CorpusError as exc:
            return f"the reference cannot run it: {exc}"
        if result.outcome != "pass" or (profile == "strict" and result.violations):
            verdicts.append(f"{profile}: {result.outcome} ({result.summary})")
    return "; ".join(verdicts)


def import_paths(
    paths: Sequence[Path], corpus: Corpus, options: Options
) -> tuple[list[Report], list[tuple[str, CassetteError]]]:
    reports: list[Report] = []
    unreadable: list[tuple[str, CassetteError]] = []
    for path in paths:
        try:
            reports.append(import_cassette(path, corpus, options))
        except CassetteError as exc:
            unreadable.append((str(path), exc))
    return reports, unreadable


__all__ = ["Imported", "Options", "Refusal", "Report", "Source", "import_cassette", "import_paths"]
