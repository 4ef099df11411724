"""A baseline of expected failures: the cases an adapter is known to fail, so CI fails only on new ones.

The file (YAML or JSON, `conformance/schemas/baseline.schema.json`) lists case ids with the codes
they fail with and a reason or link. Against it, a result is:

- `xfail` when the case fails with no code outside its entry's (a case failing without violations
  counts its outcome, `error`, `timeout`, `crash` or `fail`, as its code);
- left `fail` (or `error`, ...) when it fails with a code the entry does not list, or has no entry;
- `xpass` when an entry's case now passes: the entry is stale, and the run fails until it goes.

`updated` gives the file `--update-baseline` writes: stale entries dropped, every failure of the run
listed with the codes found (new ones with a placeholder reason), entries of cases not judged kept.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from conformance.corpus.problems import InputError, Problem
from conformance.engine.outcomes import CaseResult

FORMAT = "toolcall-conformance/baseline"
VERSION = 1
SCHEMA_RESOURCE = "baseline.schema.json"
PLACEHOLDER = "TODO: say why this failure is expected (a link to the issue)"
# Outcomes that fail without violations of their own: their outcome is their code.
_OUTCOME_CODES = ("error", "timeout", "crash")


@dataclass(frozen=True)
class Entry:
    case_id: str
    codes: frozenset[str]
    reason: str = ""
    link: str = ""

    def why(self) -> str:
        return " ".join(p for p in (self.reason, f"({self.link})" if self.link else "") if p)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.case_id, "codes": sorted(self.codes)}
        if self.reason:
            data["reason"] = self.reason
        if self.link:
            data["link"] = self.link
        return data


@dataclass(frozen=True)
class Baseline:
    path: Path
    entries: Mapping[str, Entry]
    adapter: str = ""

    def apply(self, result: CaseResult) -> CaseResult:
        """The result judged against the baseline (changed in place, and returned)."""
        entry = self.entries.get(result.case_id)
        found = failure_codes(result)
        if entry is None or result.outcome in ("skip", "not-run", "xfail", "xpass"):
            return result
        result.baseline = {"expected": sorted(entry.codes), "found": sorted(found), "why": entry.why()}
        if not found:
            result.outcome = "xpass"
            result.summary = (
                f"expected to fail with {', '.join(sorted(entry.codes))} by the baseline ({self.path.name}: "
                f"{entry.why()}), and passes: the entry is stale; remove it (--update-baseline does)"
            )
            return result
        new = found - entry.codes
        if new:
            result.summary = (
                f"{result.summary}; beyond the baseline's {', '.join(sorted(entry.codes))}: {', '.join(sorted(new))}"
            ).lstrip("; ")
            return result
        result.outcome = "xfail"
        result.link = entry.link or result.link
        result.summary = f"expected by the baseline ({entry.why()}): {result.summary}".rstrip(": ")
        return result

    def unknown(self, known: Iterable[str]) -> list[str]:
        """Entries whose case the corpus does not hold (renamed or removed): stale too."""
        have = set(known)
        return sorted(i for i in self.entries if i not in have)


def failure_codes(result: CaseResult) -> frozenset[str]:
    """What a result fails with: its error-severity codes, or its outcome when it fails without any."""
    if result.outcome in _OUTCOME_CODES:
        return frozenset({result.outcome})
    if result.outcome in ("fail", "xfail"):
        codes = frozenset(v.code for v in result.errors)
        return codes or frozenset({"fail"})
    return frozenset()


@cache
def schema() -> dict[str, Any]:
    text = resources.files("conformance.schemas").joinpath(SCHEMA_RESOURCE).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def load_baseline(path: Path) -> Baseline:
    """The baseline file, validated; problems are located (file:line)."""
    import jsonschema  # type: ignore[import-untyped]

    from conformance.recordings.yamlio import YamlError, line_of, load_file, to_plain

    try:
        document = load_file(path)
    except (YamlError, OSError) as exc:
        raise InputError([Problem(str(path), getattr(exc, "line", None), "baseline", _said(exc))]) from None
    errors = sorted(jsonschema.Draft202012Validator(schema()).iter_errors(to_plain(document)), key=str)
    problems = [
        Problem(
            str(path),
            line_of(document, list(e.absolute_path)),
            "baseline",
            f"{'/'.join(map(str, e.absolute_path)) or 'the document'}: {e.message}",
        )
        for e in errors
    ]
    entries: dict[str, Entry] = {}
    if not problems:
        for i, raw in enumerate(document["expected_failures"]):
            if raw["id"] in entries:
                line = line_of(document, ["expected_failures", i])
                problems.append(Problem(str(path), line, "baseline", f"{raw['id']!r} is listed twice"))
            entries[raw["id"]] = Entry(raw["id"], frozenset(raw["codes"]), raw.get("reason", ""), raw.get("link", ""))
    if problems:
        raise InputError(problems)
    return Baseline(path, entries, str(document.get("adapter", "")))


def _said(exc: BaseException) -> str:
    return getattr(exc, "message", None) or getattr(exc, "strerror", None) or str(exc)


def updated(
    baseline: Baseline | None, results: Iterable[CaseResult], known: Collection[str], adapter: str = ""
) -> dict[str, Any]:
    """The baseline document that says what this run found: each failing case with the codes it fails
    with (a reason kept where the entry had one), stale entries dropped (cases that pass, or that the
    corpus no longer holds), entries of cases this run did not judge kept."""
    old = dict(baseline.entries) if baseline else {}
    kept: dict[str, Entry] = {}
    judged: set[str] = set()
    for result in results:
        if result.outcome in ("skip", "not-run"):
            continue
        judged.add(result.case_id)
        found = failure_codes(result)
        if not found:
            continue
        before = old.get(result.case_id)
        reason = before.reason if before else PLACEHOLDER
        link = before.link if before else ""
        kept[result.case_id] = Entry(result.case_id, found, reason if (reason or link) else PLACEHOLDER, link)
    for case_id, entry in old.items():
        if case_id not in judged and case_id not in kept and case_id in known:
            kept[case_id] = entry
    who = adapter or (baseline.adapter if baseline else "")
    return {
        "format": FORMAT,
        "version": VERSION,
        **({"adapter": who} if who else {}),
        "expected_failures": [kept[i].to_json() for i in sorted(kept)],
    }


def write_baseline(path: Path, document: Mapping[str, Any]) -> None:
    """In the file's own format: JSON for `.json`, else YAML."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".json":
        text = json.dumps(document, indent=2) + "\n"
    else:
        import yaml

        text = yaml.safe_dump(dict(document), sort_keys=False, allow_unicode=True, width=100)
    path.write_text(text, encoding="utf-8")


def summary_lines(baseline: Baseline, results: Iterable[CaseResult], known: Collection[str]) -> list[str]:
    """What the run made of the baseline: expected failures seen, stale entries, failures it does not list."""
    results = list(results)
    expected = sum(1 for r in results if r.outcome == "xfail" and r.baseline)
    stale = [r.case_id for r in results if r.outcome == "xpass" and r.baseline]
    new = [r.case_id for r in results if r.outcome in ("fail", "error", "timeout", "crash")]
    lines = [f"baseline {baseline.path}: {expected} expected failure(s) seen, {len(stale)} stale, {len(new)} new"]
    lines += [f"  stale (passes now): {case_id}" for case_id in stale]
    lines += [f"  stale (no such case): {case_id}" for case_id in baseline.unknown(known)]
    pending = unexplained(baseline)
    if pending:
        shown = ", ".join(pending[:5]) + (f" and {len(pending) - 5} more" if len(pending) > 5 else "")
        lines.append(
            f"WARNING: {len(pending)} of the baseline's {len(baseline.entries)} entries still give the generated "
            f"reason {PLACEHOLDER!r}: write why each failure is expected, or link its issue ({shown})"
        )
    return lines


def unexplained(baseline: Baseline) -> list[str]:
    """The entries whose reason is still the placeholder `--update-baseline` wrote, with no link."""
    return [e.case_id for e in baseline.entries.values() if e.reason.strip() == PLACEHOLDER and not e.link]


def update_note(before: Baseline | None, document: Mapping[str, Any], path: Path) -> str:
    old = set(before.entries) if before else set()
    new = {e["id"] for e in document["expected_failures"]}
    return (
        f"baseline rewritten: {path} ({len(new - old)} added with a placeholder reason, "
        f"{len(old - new)} dropped, {len(new & old)} kept)"
    )
