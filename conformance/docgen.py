"""Parts of the docs generated from data, so that they cannot go stale: `conformance docs [--check]`.

Each generated part sits between two markers in its page,

    <!-- BEGIN generated: NAME (conformance docs) -->
    ...
    <!-- END generated: NAME -->

and everything outside the markers is hand-written. The parts:

- `scenarios` in each `docs/apis/<api>.md`: the API's scenarios, from the corpus;
- `pytest-options` and `run-options` in `docs/plugin.md`: the options the pytest plugin registers
  (read from its own `pytest_addoption`) and those of `conformance run` (its argument parser);
- `genkit-go-versions` in `docs/findings.md`: each Genkit Go version's outcomes, from the results files
  the matrix is made of (`reports/results/genkit-go-v*.json`);
- `grammars` in `docs/generated.md`: each API's dimensions of generated scenarios, their values and
  evidence, from conformance/generated/grammar.py;
- `official-sdk-failures` in `docs/adapters.md`: the cases the official SDKs fail, from the digest
  `docs/data/official-sdks.json` of a results run of `conformance.clients.official_sdks:ADAPTER`
  (`conformance docs --sdk-results RESULTS.json` makes the digest), with the notes of
  `docs/data/official-sdks.notes.yaml` that say why.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

COMMAND = "conformance docs"
SDK_DIGEST = Path("data") / "official-sdks.json"
SDK_NOTES = Path("data") / "official-sdks.notes.yaml"
_MARKERS = re.compile(
    r"(<!-- BEGIN generated: (?P<name>[\w-]+) \(conformance docs\) -->\n)"
    r"(?P<body>.*?)"
    r"(<!-- END generated: (?P=name) -->)",
    re.S,
)


class DocsError(ValueError):
    """A page without the markers of a part it should hold, or data that cannot be read."""


@dataclass(frozen=True)
class Page:
    path: Path  # relative to the docs directory
    parts: Mapping[str, str]  # part name -> the generated Markdown


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


# --- scenarios ------------------------------------------------------------------------------------
def scenarios_table(corpus: Any, api: str) -> str:
    chosen = sorted((s for s in corpus.scenarios.values() if s.api == api), key=lambda s: s.id)
    lines = [
        f"{len(chosen)} scenarios (from `cases/scenarios/{api}/`):",
        "",
        "| scenario | what it checks | features |",
        "|---|---|---|",
    ]
    for scenario in chosen:
        short = scenario.id.split("/", 1)[1]
        features = ", ".join(scenario.features)
        lines.append(f"| `{short}` | {_cell(scenario.description)} | {_cell(features)} |")
    return "\n".join(lines) + "\n"


# --- options --------------------------------------------------------------------------------------
class _Recorder:
    """Stands in for pytest's parser: records what the plugin's `pytest_addoption` registers."""

    def __init__(self) -> None:
        self.options: list[tuple[tuple[str, ...], dict[str, Any]]] = []
        self.ini: dict[str, str] = {}

    def getgroup(self, *_: Any, **__: Any) -> _Recorder:
        return self

    def addoption(self, *names: str, **attrs: Any) -> None:
        self.options.append((names, attrs))

    def addini(self, name: str, help: str, **_: Any) -> None:  # pytest's own keyword
        self.ini[name] = help


def pytest_options_table() -> str:
    from conformance import plugin

    recorder = _Recorder()
    plugin.pytest_addoption(recorder)  # type: ignore[arg-type]
    lines = ["| option | ini key | meaning |", "|---|---|---|"]
    for names, attrs in recorder.options:
        dest = str(attrs.get("dest", ""))
        value = ""
        if attrs.get("action") not in ("store_true",):
            choices = attrs.get("choices")
            value = "=" + ("\\|".join(choices) if choices else str(attrs.get("metavar") or "VALUE"))
        shown = " or ".join(f"`{n}{value}`" for n in names)
        ini = f"`{dest}`" if dest in recorder.ini else ""
        lines.append(f"| {shown} | {ini} | {_cell(attrs.get('help', ''))} |")
    return "\n".join(lines) + "\n"


def run_options_table(run: argparse.ArgumentParser) -> str:
    """The options of `conformance run`, from its parser (the command line hands it over: it is the
    command line's, and this module is one of its commands)."""
    lines = ["| option | meaning |", "|---|---|"]
    for action in run._actions:  # argparse keeps them here, and nowhere public
        if not action.option_strings or action.help == argparse.SUPPRESS or "--help" in action.option_strings:
            continue
        value = ""
        if action.nargs != 0:
            value = " " + (
                "{" + ",".join(action.choices) + "}"
                if action.choices
                else (action.metavar if isinstance(action.metavar, str) else "VALUE")
            )
        names = ", ".join(f"`{n}{value}`" for n in action.option_strings)
        default = f" (default: {action.default})" if action.default not in (None, False) else ""
        lines.append(f"| {names} | {_cell((action.help or '') + default)} |")
    return "\n".join(lines) + "\n"


# --- official SDK failures ------------------------------------------------------------------------
def sdk_digest(results: Mapping[str, Any]) -> dict[str, Any]:
    """What the docs need of a results run of the official SDKs: the failing cases, nothing else (no
    tracebacks, which name the machine's paths)."""
    from conformance.engine.outcomes import FAILING

    failures = []
    for case in results.get("cases", ()):
        if case.get("outcome") in FAILING:
            codes = sorted({v["code"] for v in case.get("violations", ()) if v.get("severity") == "error"})
            failures.append(
                {"id": case["id"], "outcome": case["outcome"], "codes": codes, "summary": case.get("summary", "")}
            )
    adapter = results.get("adapter") or {}
    return {
        "format": "toolcall-conformance/sdk-failures",
        "adapter": {"name": adapter.get("name", ""), "version": adapter.get("version", "")},
        "corpus_revision": results.get("corpus_revision", ""),
        "failures": failures,
    }


def sdk_failures_list(digest: Mapping[str, Any], notes: Mapping[str, str]) -> str:
    adapter = digest.get("adapter") or {}
    lines = [
        f"From a run of `{adapter.get('name', '')}` ({_cell(adapter.get('version', ''))}) on corpus "
        f"`{digest.get('corpus_revision', '')}`: {len(digest['failures'])} cases fail.",
        "",
    ]
    for failure in digest["failures"]:
        what = ", ".join(failure["codes"]) if failure["codes"] else failure["summary"]
        note = notes.get(failure["id"], "not traced to the SDK's source yet")
        lines.append(f"- `{failure['id']}` ({failure['outcome']}: {_cell(what)}): {' '.join(note.split())}")
    return "\n".join(lines) + "\n"


def _load_sdk(docs: Path) -> tuple[dict[str, Any], dict[str, str]]:
    from conformance.recordings.yamlio import load_data

    try:
        digest = json.loads((docs / SDK_DIGEST).read_text(encoding="utf-8"))
        notes_path = docs / SDK_NOTES
        notes = load_data(notes_path.read_text(encoding="utf-8"), notes_path) if notes_path.is_file() else {}
    except (OSError, ValueError) as exc:
        raise DocsError(f"{docs / SDK_DIGEST}: {exc}") from None
    return digest, {str(k): str(v) for k, v in (notes or {}).items()}


# --- results ----------------------------------------------------------------------------------------
RESULTS = Path("..") / "reports" / "results"  # beside docs/: the results the matrix is made of


def versions_table(results_dir: Path, library: str) -> str:
    """One row per version of `library` among the results files: its outcomes over the whole corpus."""
    from conformance.reports.matrix.layout import version_key
    from conformance.running.results import read_results

    found = []
    for path in sorted(results_dir.glob("*.json")):
        try:
            data = read_results(path)
        except (OSError, ValueError) as exc:
            raise DocsError(f"{path}: {exc}") from None
        if data["adapter"].get("name") == library:
            found.append(data)
    if not found:
        raise DocsError(f"{results_dir}: no results of {library}")
    rows = ["| Version | pass | fail | error | skip | of |", "|---|---|---|---|---|---|"]
    for data in sorted(found, key=lambda d: version_key(str(d["adapter"]["version"]))):
        c = data["counts"]
        errors = sum(c.get(o, 0) for o in ("error", "crash", "timeout"))
        skips = c.get("skip", 0) + c.get("not-run", 0)
        rows.append(
            f"| {data['adapter']['version']} | {c['pass']} | {c['fail']} | {errors} | {skips} | {sum(c.values())} |"
        )
    revisions = sorted({str(d["corpus_revision"]) for d in found})
    rows += ["", f"From `reports/results/` on corpus {', '.join(f'`{r}`' for r in revisions)}."]
    return "\n".join(rows) + "\n"


# --- pages ----------------------------------------------------------------------------------------
def pages(docs: Path, corpus: Any, run: argparse.ArgumentParser) -> list[Page]:
    from conformance.connectors.contract import known_apis

    out = [Page(Path("apis") / f"{api}.md", {"scenarios": scenarios_table(corpus, api)}) for api in known_apis()]
    out.append(
        Page(Path("plugin.md"), {"pytest-options": pytest_options_table(), "run-options": run_options_table(run)})
    )
    digest, notes = _load_sdk(docs)
    out.append(Page(Path("adapters.md"), {"official-sdk-failures": sdk_failures_list(digest, notes)}))
    out.append(Page(Path("cases.md"), {"scenario-counts": scenario_counts_table(corpus, sorted(known_apis()))}))
    out.append(Page(Path("generated.md"), {"grammars": grammar_tables()}))
    out.append(Page(Path("..") / "README.md", {"api-table": api_table(corpus, known_apis())}))
    out.append(Page(Path("findings.md"), {"genkit-go-versions": versions_table(docs / RESULTS, "genkit-go")}))
    return out


# --- generated scenarios --------------------------------------------------------------------------
def grammar_tables() -> str:
    """Each API's dimensions of generation, with their values and evidence (conformance/generated/grammar.py)."""
    from conformance.generated.grammar import GRAMMARS, MEANING

    lines = ["| dimension | what it is |", "|---|---|"]
    lines += [f"| `{name}` | {_cell(text)} |" for name, text in MEANING.items()]
    for api in sorted(GRAMMARS):
        grammar = GRAMMARS[api]
        ids = f"`{grammar.ids.call}`" + (f", items `{grammar.ids.item}`" if grammar.ids.item else "")
        lines += [
            "",
            f"### {api}",
            "",
            f"Model and wire types from `{grammar.template}`; call ids minted as {ids}.",
            "",
            "| dimension | values | evidence |",
            "|---|---|---|",
        ]
        for dimension in grammar.dimensions:
            evidence = "; ".join(
                f"`{e.where}`: {_cell(e.what)}" if e.kind == "corpus" else f"[{_cell(e.what)}]({e.where})"
                for e in dimension.evidence
            )
            values = ", ".join(f"`{v}`" for v in dimension.values)
            lines.append(f"| `{dimension.name}` | {values} | {evidence} |")
    return "\n".join(lines) + "\n"


# What the README says of an API beside its name: the forms its traffic takes that a reader looks for.
_API_NOTES = {
    "openai-chat": "and OpenAI-compatible servers",
    "gemini": "SSE and JSON-array streams",
    "gemini-interactions": "steps, server steps, `previous_interaction_id`",
    "bedrock-converse": "event-stream",
}


def api_table(corpus: Any, apis: Sequence[str]) -> str:
    """Each API with its wire types and its constructed and recorded scenarios, as the README lists them."""
    rows = ["| API | wire types | scenarios: constructed | recorded |", "|---|---|---|---|"]
    for api in apis:
        types = sum(1 for w in corpus.wire_types.values() if w.api == api)
        own = [s for s in corpus.scenarios.values() if s.api == api]
        recorded = sum(1 for s in own if s.recorded)
        note = f" ({_API_NOTES[api]})" if api in _API_NOTES else ""
        rows.append(f"| `{api}`{note} | {types} | {len(own) - recorded} | {recorded} |")
    return "\n".join(rows) + "\n"


def scenario_counts_table(corpus: Any, apis: Sequence[str]) -> str:
    """Constructed and recorded scenarios per API, and in all."""
    rows = ["| API | constructed | recorded |", "|---|---|---|"]
    totals = [0, 0]
    for api in apis:
        own = [s for s in corpus.scenarios.values() if s.api == api]
        recorded = sum(1 for s in own if s.recorded)
        totals[0] += len(own) - recorded
        totals[1] += recorded
        rows.append(f"| `{api}` | {len(own) - recorded} | {recorded} |")
    rows.append(f"| all | {totals[0]} | {totals[1]} |")
    return "\n".join(rows) + "\n"


def rendered(text: str, parts: Mapping[str, str], where: Path) -> str:
    """`text` with each generated part replaced; every part must have its markers."""
    seen: set[str] = set()

    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in parts:
            return match.group(0)
        seen.add(name)
        return match.group(1) + parts[name] + match.group(4)

    result = _MARKERS.sub(replace, text)
    missing = sorted(set(parts) - seen)
    if missing:
        raise DocsError(f"{where}: no markers for the generated part(s) {', '.join(missing)}")
    return result


def outputs(docs: Path, corpus: Any, run: argparse.ArgumentParser) -> dict[Path, str]:
    """Every page with generated parts, as it should read."""
    out: dict[Path, str] = {}
    for page in pages(docs, corpus, run):
        path = Path(os.path.normpath(docs / page.path))  # the README sits beside docs/
        out[path] = rendered(path.read_text(encoding="utf-8"), page.parts, path)
    return out


def stale(docs: Path, corpus: Any, run: argparse.ArgumentParser) -> list[Path]:
    return [path for path, text in outputs(docs, corpus, run).items() if path.read_text(encoding="utf-8") != text]


def write(docs: Path, corpus: Any, run: argparse.ArgumentParser, say: Callable[[str], None] = print) -> list[Path]:
    written = []
    for path, text in outputs(docs, corpus, run).items():
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
            say(f"wrote {path}")
    return written


def write_sdk_digest(docs: Path, results: Path) -> Path:
    from conformance.running.results import read_results

    digest = sdk_digest(read_results(results))
    target = docs / SDK_DIGEST
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(digest, indent=2) + "\n", encoding="utf-8")
    return target
