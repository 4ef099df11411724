"""Construct cassettes for scenarios whose provenance is `constructed`.

No one on the project can reach a live provider, so the bundled cassettes are built from each
scenario's declared turns, in the shapes of the providers' published references and of real
recordings. The scenario is the source of truth; the cassette is derived, deterministically:
running this twice writes the same bytes.

    python scripts/construct_cassettes.py            # every constructed scenario
    python scripts/construct_cassettes.py --check    # exit 1 if a cassette is out of date
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from conformance.corpus import Scenario, load_corpus  # noqa: E402


def builder(api: str) -> Callable[[Scenario], list[dict[str, Any]]] | None:
    """`scripts/builders/<api>.py`'s `build`, or None for an API without a builder."""
    try:
        module = importlib.import_module(f"builders.{api.replace('-', '_')}")
    except ModuleNotFoundError:
        return None
    build: Callable[[Scenario], list[dict[str, Any]]] = module.build
    return build


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def render(scenario: Scenario) -> str:
    build = builder(scenario.api)
    if build is None:
        raise SystemExit(f"{scenario.id}: no cassette builder for {scenario.api} (scripts/builders/)")
    document = {
        "provenance": {
            "kind": "constructed",
            "scenario": scenario.id,
            "how": "Built by scripts/construct_cassettes.py from the scenario's turns, in the shapes of "
            "the provider's published API reference and SDK types; no live provider was called.",
        },
        "interactions": build(scenario),
        "version": 1,
    }
    return yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="report stale cassettes, write nothing")
    args = parser.parse_args(argv)
    corpus = load_corpus()
    stale = []
    for scenario in sorted(corpus.scenarios.values(), key=lambda s: s.id):
        if scenario.provenance != "constructed":
            continue
        target = ROOT / "cassettes" / scenario.cassette
        text = render(scenario)
        if target.exists() and target.read_text(encoding="utf-8") == text:
            continue
        stale.append(target)
        if not args.check:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    for path in stale:
        print(("stale: " if args.check else "wrote: ") + str(path.relative_to(ROOT)))
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    raise SystemExit(main())
