"""The corpus: case files loaded, schema-checked and turned into typed records.

A case root holds `wire-types/<api>/<Name>.yaml`, `scenarios/<api>/<slug>.yaml` and
`bugs/<project>-<number>.yaml`. A case's id is derived from its path and must equal its `id`
field, so files cannot silently shadow one another.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.corpus.paths import bundled_cases, bundled_cassettes, content_revision, shipped_cases, shipped_root
from conformance.corpus.problems import InputError, Problem
from conformance.recordings.yamlio import YamlError, line_of, load_file, to_plain

KIND_DIRS = {"wire-types": "wire-type", "scenarios": "scenario", "bugs": "bug"}


@dataclass(frozen=True)
class Limit:
    """A length or grammar limit on an id field, as a wire-type case records it (docs/cases.md)."""

    max_length: int | None
    min_length: int | None
    pattern: str | None
    observed: str
    enforced: bool
    source: str
    note: str = ""
    assumed: bool = False
    until: str | None = None  # the date the provider stopped enforcing it (changed or dropped)
    until_source: str | None = None
    afterwards: str = "ignore"  # past `until`: "ignore", or "warning" where others still enforce it
    error_text: str | None = None  # the provider's verbatim error for this limit
    error_source: str | None = None
    # The models the limit binds (a provider checks ids by the model's tokenizer or version): patterns
    # matched in full against the request's model. `models` None binds every model but `except_models`;
    # a tuple binds only the models it names (none, while no source names one).
    models: tuple[str, ...] | None = None
    except_models: tuple[str, ...] = ()
    versions: str | None = None  # which versions of the provider's checks the models run, in words

    @property
    def model_bound(self) -> bool:
        """Whether it binds only the models it names, not an API's every model."""
        return self.models is not None

    def binds(self, model: str | None) -> bool:
        """Whether it applies to a request for `model` (None: the request names no model, and only
        the limits not confined to named models apply)."""
        if self.models is not None:
            return model is not None and any(_fullmatch(p, model) for p in self.models)
        return model is None or not any(_fullmatch(p, model) for p in self.except_models)

    @property
    def current(self) -> bool:
        """Enforced by the provider today: confirmed, and not changed or dropped since."""
        return self.enforced and self.until is None

    @property
    def applies(self) -> str | None:
        """How the format rules apply it: "error" (the code's own severity), "warning", or not at all."""
        if not self.enforced:
            return None
        if self.until is None:
            return "error"
        return "warning" if self.afterwards == "warning" else None


@dataclass(frozen=True)
class IdField:
    field: str
    presence: str
    nullable: bool
    prefixes: tuple[str, ...]
    limits: tuple[Limit, ...]
    limits_unknown: str | None = None  # what was searched when no limit is known


@dataclass(frozen=True)
class ErrorText:
    situation: str
    text: str
    source: str
    code: str | None
    field: str | None = None  # the request field the refusal is about, where one is


@dataclass(frozen=True)
class ReturnedField:
    """A field issued with an item that a replayed history must carry unchanged."""

    field: str
    ignore: tuple[Any, ...] = ()  # values that ask nothing (a direct caller)
    error: ErrorText | None = None  # the provider's refusal of a replay without it, where known


@dataclass(frozen=True)
class WireType:
    id: str
    api: str
    name: str
    role: str
    family: str
    semantics: str
    id_fields: tuple[IdField, ...]
    error_texts: tuple[ErrorText, ...]
    request_input: bool
    path: Path
    data: Mapping[str, Any] = field(repr=False, compare=False)
    returned_fields: tuple[ReturnedField, ...] = ()

    def id_field(self, name: str) -> IdField | None:
        return next((f for f in self.id_fields if f.field == name), None)

    def id_field_at(self, path: str) -> IdField | None:
        """The id field a dialect names by its path from the enclosing part or item: the field itself, or
        the field inside the discriminating object (Gemini's `functionCall.id` is FunctionCall's `id`)."""
        found = self.id_field(path)
        key = str(self.data.get("discriminator", {}).get("field", ""))
        if found is None and key and path.startswith(f"{key}."):
            found = self.id_field(path[len(key) + 1 :])
        return found


@dataclass(frozen=True)
class ExpectedCall:
    id: str | None
    name: str
    arguments: Mapping[str, Any]
    output: str
    wire_type: str | None
    item_id: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    provider_executed: bool = False
    interrupted: bool = False  # the run stopped before the tool answered: no output, nothing to answer
    droppable: bool = False  # the client may leave the call out with its results: both, or neither


@dataclass(frozen=True)
class ExpectedTurn:
    calls: tuple[ExpectedCall, ...]
    text: str | None
    prompt: str | None = None  # a new run of the session begins with this user message
    text_position: str | None = None  # before-calls, between-calls, after-calls; None: the builder's own place

    @property
    def client_calls(self) -> tuple[ExpectedCall, ...]:
        """The calls the client answers (server tools answer themselves, interrupted ones never return)."""
        return tuple(c for c in self.calls if not c.provider_executed and not c.interrupted)


@dataclass(frozen=True)
class PriorHistory:
    """Turns played on another API before the scenario's own (cross-provider scenarios)."""

    api: str
    turns: tuple[ExpectedTurn, ...]
    model: str | None = None
    cassette: str | None = None  # that API's responses for the turns: an adapter's own decoder reads them


@dataclass(frozen=True)
class RecordedSource:
    """Where a recorded scenario's traffic comes from (`source:`); third-party recordings name their
    repository, commit and licence."""

    path: str
    read: str
    repository: str | None = None
    commit: str | None = None
    licence: str | None = None
    url: str | None = None
    edited: str | None = None
    revoiced: tuple[str, ...] = ()  # what `conformance import` re-voiced, by kind


def is_server_tool(tool: Mapping[str, Any]) -> bool:
    """A scenario tool that is the provider's own (any `type` but a function's or a custom tool's)."""
    return tool.get("type", "function") not in ("function", "custom")


@dataclass(frozen=True)
class Scenario:
    id: str
    api: str
    description: str
    cassette: str
    provenance: str
    wire_types: tuple[str, ...]
    features: tuple[str, ...]
    model: str
    prompt: str
    stream: bool
    answer_order: str
    tools: tuple[Mapping[str, Any], ...]
    turns: tuple[ExpectedTurn, ...]
    path: Path
    data: Mapping[str, Any] = field(repr=False, compare=False)
    history: PriorHistory | None = None
    source: RecordedSource | None = None
    # The provider's own tools the conversation uses, as its requests declare them (`type:
    # code_execution_20250825`, `type: web_search`); `tools` holds the client's function tools alone.
    server_tools: tuple[Mapping[str, Any], ...] = ()

    @property
    def recorded(self) -> bool:
        return self.provenance == "recorded"

    def all_calls(self) -> list[ExpectedCall]:
        """Every call of the conversation, the prior history's first."""
        prior = self.history.turns if self.history else ()
        return [c for t in (*prior, *self.turns) for c in t.calls]


@dataclass(frozen=True)
class BugCase:
    id: str
    description: str
    project: str
    classes: tuple[str, ...]
    report: str
    fixes: tuple[str, ...]
    scenario: str
    reproduction: str
    expected: tuple[str, ...]
    mechanism: str
    provider_error: Mapping[str, str] | None
    path: Path
    data: Mapping[str, Any] = field(repr=False, compare=False)


Case = WireType | Scenario | BugCase


@dataclass
class Corpus:
    wire_types: dict[str, WireType]
    scenarios: dict[str, Scenario]
    bugs: dict[str, BugCase]
    case_roots: tuple[Path, ...]
    cassette_roots: tuple[Path, ...]
    # (api, code, wire type) -> the error text quoted: looked up once, not per violation.
    _error_texts: dict[tuple[str, str, str | None], ErrorText | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def cassette_path(self, scenario: Scenario) -> Path:
        return self.find_cassette(scenario.cassette)

    def find_cassette(self, relative: str) -> Path:
        """A cassette under the first root that holds it (else where the first root would)."""
        for root in self.cassette_roots:
            candidate = root / relative
            if candidate.is_file():
                return candidate
        return self.cassette_roots[0] / relative

    def limits(self, wire_type: str, id_field: str) -> tuple[Limit, ...]:
        case = self.wire_types.get(wire_type)
        found = case.id_field_at(id_field) if case else None
        return found.limits if found else ()

    def error_text(self, api: str, code: str, wire_type: str | None = None) -> ErrorText | None:
        """The provider's verbatim error for a violation: the wire type's own, else one of a wire
        type of the same family (a call and its result share theirs). Never another family's: a
        function-call error quoted on a computer-use item would mislead."""
        key = (api, code, wire_type)
        if key not in self._error_texts:
            self._error_texts[key] = self._find_error_text(api, code, wire_type)
        return self._error_texts[key]

    def _find_error_text(self, api: str, code: str, wire_type: str | None) -> ErrorText | None:
        own = self.wire_types.get(wire_type) if wire_type else None
        if wire_type is not None and own is None:
            return None
        ordered = sorted(
            (w for w in self.wire_types.values() if w.api == api and (own is None or w.family == own.family)),
            key=lambda w: (w.id != wire_type, w.id),
        )
        for case in ordered:
            for text in case.error_texts:
                if text.code == code:
                    return text
        return None

    def revision(self) -> str:
        return content_revision([*self.case_roots, *self.cassette_roots])


def case_id_for(root: Path, path: Path) -> tuple[str, str] | None:
    """(kind, id) implied by a case file's place under its root."""
    parts = path.relative_to(root).with_suffix("").parts
    if not parts or parts[0] not in KIND_DIRS:
        return None
    kind = KIND_DIRS[parts[0]]
    return kind, "/".join(parts[1:])


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _fullmatch(pattern: str, value: str) -> bool:
    return _compiled(pattern).fullmatch(value) is not None


def _optional_tuple(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(str(v) for v in value)


def _limits(raw: Iterable[Mapping[str, Any]]) -> tuple[Limit, ...]:
    return tuple(
        Limit(
            max_length=r.get("max_length"),
            min_length=r.get("min_length"),
            pattern=r.get("pattern"),
            observed=str(r["observed"]),
            enforced=bool(r.get("enforced", True)),
            source=r["source"],
            note=r.get("note", ""),
            assumed=bool(r.get("assumed", False)),
            until=str(r["until"]["date"]) if r.get("until") else None,
            until_source=r["until"]["source"] if r.get("until") else None,
            afterwards=r.get("afterwards", "ignore"),
            error_text=r["error"]["text"] if r.get("error") else None,
            error_source=r["error"]["source"] if r.get("error") else None,
            models=_optional_tuple((r.get("models") or {}).get("match")),
            except_models=tuple((r.get("models") or {}).get("except", ())),
            versions=(r.get("models") or {}).get("versions"),
        )
        for r in raw
    )


def _id_field(f: Mapping[str, Any]) -> IdField:
    unknown = f.get("limits_unknown")
    return IdField(
        field=f["field"],
        presence=f["presence"],
        nullable=bool(f.get("nullable", False)),
        prefixes=tuple(f.get("prefixes", ())),
        limits=_limits(f.get("limits", ())),
        limits_unknown=f"{unknown['searched']} ({unknown['date']})" if unknown else None,
    )


def limit_problems(doc: Any, where: str) -> list[Problem]:
    """Dated limits whose dates contradict each other: a limit cannot stop before it was observed."""
    problems = []
    places: list[tuple[list[str | int], Any]] = [(["id_fields"], doc.get("id_fields") or [])]
    for v, variant in enumerate(doc.get("variants") or []):
        places.append((["variants", v, "id_fields"], variant.get("id_fields") or []))
    for prefix, fields in places:
        for i, f in enumerate(fields):
            for j, limit in enumerate(f.get("limits") or []):
                until = limit.get("until")
                if until and str(until["date"]) < str(limit["observed"]):
                    problems.append(
                        Problem(
                            where,
                            line_of(doc, [*prefix, i, "limits", j, "until", "date"]),
                            "limit-dates",
                            f"{f['field']}: until {until['date']} is before observed {limit['observed']}",
                        )
                    )
    return problems


def _wire_type(d: Mapping[str, Any], path: Path) -> WireType:
    return WireType(
        id=d["id"],
        api=d["api"],
        name=d["name"],
        role=d["role"],
        family=d["family"],
        semantics=d["semantics"],
        id_fields=tuple(_id_field(f) for f in d["id_fields"]),
        error_texts=tuple(
            ErrorText(
                situation=e["situation"], text=e["text"], source=e["source"], code=e.get("code"), field=e.get("field")
            )
            for e in d.get("error_texts", ())
        ),
        request_input=bool(d["request_input"]),
        path=path,
        data=d,
        returned_fields=tuple(_returned(r) for r in d.get("returned_fields", ())),
    )


def _returned(r: Mapping[str, Any]) -> ReturnedField:
    error = r.get("error")
    return ReturnedField(
        field=r["field"],
        ignore=tuple(r.get("ignore", ())),
        error=ErrorText(f"a replay without {r['field']}", error["text"], error["source"], "roundtrip/opaque-dropped")
        if error
        else None,
    )


def _scenario(d: Mapping[str, Any], path: Path) -> Scenario:
    return Scenario(
        id=d["id"],
        api=d["api"],
        description=d["description"],
        cassette=d["cassette"],
        provenance=d["provenance"],
        wire_types=tuple(d["wire_types"]),
        features=tuple(d["features"]),
        model=d["model"],
        prompt=d["prompt"],
        stream=bool(d.get("stream", False)),
        answer_order=d.get("answer_order", "as-called"),
        tools=tuple(t for t in d["tools"] if not is_server_tool(t)),
        server_tools=tuple(t for t in d["tools"] if is_server_tool(t)),
        turns=_turns(d["turns"]),
        path=path,
        data=d,
        history=_history(d["history"]) if d.get("history") else None,
        source=_source(d["source"]) if d.get("source") else None,
    )


def typed_scenario(document: Mapping[str, Any], path: Path) -> Scenario:
    """A scenario document already valid against the schema (a generated one), typed as the loader types
    the corpus's own."""
    return _scenario(to_plain(document), path)


def _source(d: Mapping[str, Any]) -> RecordedSource:
    return RecordedSource(
        path=d["path"],
        read=str(d["read"]),
        repository=d.get("repository"),
        commit=d.get("commit"),
        licence=d.get("licence"),
        url=d.get("url"),
        edited=d.get("edited"),
        revoiced=tuple(d.get("revoiced") or ()),
    )


def _history(raw: Mapping[str, Any]) -> PriorHistory:
    return PriorHistory(raw["api"], _turns(raw["turns"]), model=raw.get("model"), cassette=raw.get("cassette"))


def _turns(raw: Any) -> tuple[ExpectedTurn, ...]:
    return tuple(
        ExpectedTurn(
            calls=tuple(
                ExpectedCall(
                    id=c.get("id"),
                    name=c["name"],
                    arguments=c["arguments"],
                    output=c.get("output", ""),
                    wire_type=c.get("wire_type"),
                    item_id=c.get("item_id"),
                    extra=c.get("extra", {}),
                    provider_executed=bool(c.get("provider_executed", False)),
                    interrupted=bool(c.get("interrupted", False)),
                    droppable=bool(c.get("droppable", False)),
                )
                for c in t.get("calls", ())
            ),
            text=t.get("text"),
            prompt=t.get("prompt"),
            text_position=t.get("text_position"),
        )
        for t in raw
    )


def _bug(d: Mapping[str, Any], path: Path) -> BugCase:
    links = d["links"]
    return BugCase(
        id=d["id"],
        description=d["description"],
        project=d["project"],
        classes=tuple(d["classes"]),
        report=links["report"],
        fixes=tuple(links.get("fix", ())),
        scenario=d["scenario"],
        reproduction=d["reproduction"],
        expected=tuple(d["expected"]),
        mechanism=d["mechanism"],
        provider_error=d.get("provider_error"),
        path=path,
        data=d,
    )


@dataclass
class LoadedFile:
    """A case file as read, before typing: kept for `conformance check`."""

    path: Path
    root: Path
    document: Any  # with line bookkeeping


def read_case_files(case_roots: Sequence[Path]) -> tuple[list[LoadedFile], list[Problem]]:
    files: list[LoadedFile] = []
    problems: list[Problem] = []
    for root in case_roots:
        if not root.is_dir():
            problems.append(Problem(str(root), None, "case-root", "case directory does not exist"))
            continue
        for path in sorted(root.rglob("*.yaml")):
            try:
                files.append(LoadedFile(path=path, root=root, document=load_file(path)))
            except YamlError as exc:
                problems.append(Problem(exc.path, exc.line, "yaml", exc.message))
    return files, problems


def build_corpus(
    files: Sequence[LoadedFile],
    case_roots: Sequence[Path],
    cassette_roots: Sequence[Path],
    *,
    trust_shipped: bool = False,
) -> tuple[Corpus, list[Problem]]:
    """Type the files that pass the schema; report the ones that do not, with their lines.

    `trust_shipped`: skip schema validation of the corpus inside an installed wheel, which was
    checked (by `conformance check`, in CI) before it was built and cannot change after; it is
    most of the cost of loading. Files of a source checkout and users' own files are always checked.
    """
    shipped = shipped_cases() if trust_shipped else None
    corpus = Corpus({}, {}, {}, tuple(case_roots), tuple(cassette_roots))
    problems: list[Problem] = []
    seen: dict[str, Path] = {}
    for loaded in files:
        where = str(loaded.path)
        doc = loaded.document
        implied = case_id_for(loaded.root, loaded.path)
        if implied is None:
            problems.append(Problem(where, None, "layout", "case files live under wire-types/, scenarios/ or bugs/"))
            continue
        if shipped is not None and loaded.root == shipped:
            schema_problems = []
        else:
            from conformance.corpus import caseschema  # jsonschema: only when a file is validated

            schema_problems = caseschema.validate(doc, where)
        if schema_problems:
            problems.extend(schema_problems)
            continue
        kind, expected_id = implied
        if doc["kind"] != kind:
            problems.append(
                Problem(where, line_of(doc, ["kind"]), "layout", f"a {doc['kind']} case in the {kind} directory")
            )
            continue
        if doc["id"] != expected_id:
            problems.append(
                Problem(
                    where,
                    line_of(doc, ["id"]),
                    "id-path",
                    f"id {doc['id']!r} does not match the file's place; expected {expected_id!r}",
                )
            )
            continue
        if doc["id"] in seen:
            problems.append(
                Problem(where, line_of(doc, ["id"]), "id-unique", f"id {doc['id']!r} is also used by {seen[doc['id']]}")
            )
            continue
        seen[doc["id"]] = loaded.path
        plain = to_plain(doc)
        if kind == "wire-type":
            dated = limit_problems(doc, where)
            if dated:
                problems.extend(dated)
                continue
            corpus.wire_types[doc["id"]] = _wire_type(plain, loaded.path)
        elif kind == "scenario":
            corpus.scenarios[doc["id"]] = _scenario(plain, loaded.path)
        else:
            corpus.bugs[doc["id"]] = _bug(plain, loaded.path)
    return corpus, problems


def default_roots(
    extra_cases: Sequence[Path] = (), extra_cassettes: Sequence[Path] = ()
) -> tuple[list[Path], list[Path]]:
    """The user's directories first, so their cassettes resolve before bundled ones."""
    cases = [*extra_cases, bundled_cases()]
    cassettes = [*extra_cassettes]
    for root in extra_cases:
        sibling = root.parent / "cassettes"
        if sibling.is_dir() and sibling not in cassettes:
            cassettes.append(sibling)
    cassettes.append(bundled_cassettes())
    return cases, cassettes


def load_corpus(
    extra_cases: Sequence[Path] = (), extra_cassettes: Sequence[Path] = (), *, wire_types_only: bool = False
) -> Corpus:
    """Load and type the corpus; any problem is an InputError listing them all. A corpus loaded
    before from the same files is read from its snapshot (conformance/corpus/snapshot.py).
    `wire_types_only` (lint): from a snapshot, only the wire types are read, and the corpus has no
    scenarios or bug cases; without one, the whole corpus is loaded (and kept) all the same."""
    from conformance.corpus import snapshot
    from conformance.recordings.cassette import preload

    case_roots, cassette_roots = default_roots(extra_cases, extra_cassettes)
    key = snapshot.fingerprint(case_roots, cassette_roots)
    found = snapshot.read(key, wire_types_only=wire_types_only)
    if found is not None:
        fields, cassettes = found
        preload(cassettes)
        return Corpus(*fields)
    shipped = shipped_root()
    if shipped is not None and not extra_cases and not extra_cassettes:
        from conformance.corpus import shipped as wheel

        from_wheel = wheel.read(shipped)  # a fresh install: the wheel's own snapshot of its corpus
        if from_wheel is not None and isinstance(from_wheel[0], Corpus):
            snapshot.write(key, *from_wheel)
            preload(from_wheel[1])
            return from_wheel[0]
    files, problems = read_case_files(case_roots)
    corpus, more = build_corpus(files, case_roots, cassette_roots, trust_shipped=True)
    problems.extend(more)
    if problems:
        raise InputError(sorted(problems))
    cassettes = snapshot.cassettes_of(corpus.cassette_path(s) for s in corpus.scenarios.values())
    preload(cassettes)
    snapshot.write(key, corpus, cassettes)
    return corpus
