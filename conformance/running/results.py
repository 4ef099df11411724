"""The results JSON file: one per run, the input of the compatibility matrix."""

from __future__ import annotations

import json
import platform
import re
import sysconfig
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conformance import CONTRACT_VERSION, __version__
from conformance.engine.outcomes import INCOMPLETE, CaseResult, counts

if TYPE_CHECKING:
    from conformance.connectors.serving import ScenarioServer

FORMAT = "toolcall-conformance/results"
FORMAT_VERSION = 1
# Who a replay server's results name: the clients it served are not known to it.
SERVER_IDENTITY = {"name": "replay-server", "version": __version__, "connector": "server"}

# The checkout that holds the package: its files are named from there (`conformance/...`, `harnesses/...`).
_CHECKOUT = Path(__file__).resolve().parents[2]
# Any installed library, in whatever environment ran it: named from its site-packages directory on.
_INSTALLED = re.compile(r"(?:[A-Za-z]:)?[^\s\"'(]*[/\\](site-packages|dist-packages)[/\\]")
# Fields of a case that quote the adapter's tracebacks and messages (never the recorded traffic,
# whose paths are the provider's data: a file a shell call names stays as recorded).
_TOLD_FIELDS = ("summary", "detail")


def _machine_prefixes() -> list[tuple[str, str]]:
    """Directories of this machine as they appear in tracebacks, longest first, and what to write instead."""
    prefixes = {str(_CHECKOUT): ""}
    for name in ("stdlib", "platstdlib"):
        path = sysconfig.get_path(name)
        if path:
            prefixes[str(Path(path).resolve())] = "<python>"
            prefixes[path] = "<python>"
    return sorted(prefixes.items(), key=lambda item: -len(item[0]))


def portable(text: str) -> str:
    """`text` with this machine's paths taken out: a library's file from its `site-packages/`, the
    project's files relative to the checkout, the standard library's under `<python>`. Results files
    are committed and compared across machines; a traceback names the same frame on each of them."""
    text = _INSTALLED.sub(lambda m: f"{m.group(1)}/", text)
    for prefix, replacement in _machine_prefixes():
        text = re.sub(re.escape(prefix) + r"(?=[/\\])[/\\]?", f"{replacement}/" if replacement else "", text)
    return text


def _case_json(result: CaseResult) -> dict[str, Any]:
    data = result.to_json()
    for key in _TOLD_FIELDS:
        if isinstance(data.get(key), str):
            data[key] = portable(data[key])
    return data


def results_document(
    results: Sequence[CaseResult],
    *,
    adapter: Mapping[str, Any],
    corpus_revision: str,
    profile: str,
    apis: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The results file of one run. `results` holds every case the run selected, those it did not judge
    as `not-run`: `complete` is true only when each of them was judged."""
    ordered = sorted(results, key=lambda r: r.case_id)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "suite_version": __version__,
        "contract_version": CONTRACT_VERSION,
        "corpus_revision": corpus_revision,
        "adapter": dict(adapter),
        "profile": profile,
        "apis": list(apis) if apis else "all",
        "run_info": {"python": platform.python_version()},
        "counts": counts(ordered),
        "cases": [_case_json(r) for r in ordered],
        "complete": bool(ordered) and not any(r.outcome in INCOMPLETE for r in ordered),
    }


def served_document(server: ScenarioServer, results: Sequence[CaseResult] | None = None) -> dict[str, Any]:
    """The results file of what a replay server judged (its verdicts so far, unless given)."""
    judged = server.verdicts() if results is None else results
    return results_document(
        judged, adapter=SERVER_IDENTITY, corpus_revision=server.corpus.revision(), profile=server.profile
    )


def write_results(path: Path, document: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def read_results(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} file")
    return data
