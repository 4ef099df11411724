"""Generated scenarios made real: typed, their cassettes written by the corpus's own builders.

The builders (scripts/builders/, driven by scripts/construct_cassettes.py) are the ones that write
every constructed scenario's cassette; the wheel ships them beside the corpus, so generation works
from an installed suite as from a checkout.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from conformance.corpus.loading import Corpus, Scenario, typed_scenario
from conformance.corpus.paths import bundled_root


def _renderer() -> Any:
    scripts = bundled_root() / "scripts"
    if not (scripts / "construct_cassettes.py").is_file():
        raise RuntimeError(f"the cassette builders are not installed (looked in {scripts})")
    if str(scripts) not in sys.path:
        sys.path.insert(0, str(scripts))
    return importlib.import_module("construct_cassettes")


def _literal(dumper: Any, value: str) -> Any:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


# libyaml's emitter, where PyYAML has it: the same document in a fraction of the time, for the
# scenarios a search runs; what is written out is the corpus's own rendering.
_FAST: type[Any] | None = None
if getattr(yaml, "__with_libyaml__", False):
    _FAST = type("_FastDumper", (yaml.CSafeDumper,), {})
    _FAST.add_representer(str, _literal)


def cassette_text(scenario: Scenario, *, fast: bool = False) -> str:
    """The cassette the builders write for the scenario, as construct_cassettes writes it (`fast`:
    the same document by libyaml, when present)."""
    text: str = _renderer().render(scenario, dumper=_FAST if fast else None)
    return text


def case_text(document: Mapping[str, Any]) -> str:
    """The case file of a scenario document, as the corpus writes its own."""
    return yaml.safe_dump(dict(document), sort_keys=False, allow_unicode=True, width=100)


def write(document: Mapping[str, Any], root: Path, *, case_file: bool = True) -> tuple[Path, Path, Scenario]:
    """The scenario's case file under root/cases/scenarios/ and its cassette under root/cassettes/
    (the layout `--conformance-cases ROOT/cases` reads, cassettes beside): both paths, and the scenario.
    Without `case_file`, only the cassette is written (quickly: a search's scenario, judged and dropped)."""
    case = root / "cases" / "scenarios" / f"{document['id']}.yaml"
    scenario = typed_scenario(document, case)
    cassette = root / "cassettes" / str(document["cassette"])
    cassette.parent.mkdir(parents=True, exist_ok=True)
    if case_file:
        case.parent.mkdir(parents=True, exist_ok=True)
        case.write_text(case_text(document), encoding="utf-8")
    cassette.write_text(cassette_text(scenario, fast=not case_file), encoding="utf-8")
    return case, cassette, scenario


def corpus_with(base: Corpus, scenario: Scenario, cassettes: Path) -> Corpus:
    """The base corpus's wire types and cassettes, with the one scenario, its cassette found first."""
    return Corpus(
        base.wire_types,
        {scenario.id: scenario},
        {},
        base.case_roots,
        (cassettes, *base.cassette_roots),
    )
