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

from builders.common import history_scenario  # noqa: E402

from conformance.corpus.loading import Scenario, load_corpus  # noqa: E402


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


# The builders that write sessions: a turn that opens a new run (prompt), a call whose run was cut off.
SESSION_BUILDERS = {
    "openai-chat",
    "anthropic-messages",
    "openai-responses",
    "azure-foundry",
    "openresponses",
    "mistral-responses",
    "ollama-responses",
    "gemini-interactions",
}


def render(scenario: Scenario, of: str | None = None, *, dumper: type[Any] | None = None) -> str:
    """The cassette of a scenario; `of`: the scenario whose history it plays (a history cassette).
    `dumper`: another YAML emitter of the same document (generated scenarios use libyaml's while they
    search, this one for what they write)."""
    build = builder(scenario.api)
    if build is None:
        raise SystemExit(f"{scenario.id}: no cassette builder for {scenario.api} (scripts/builders/)")
    session = any(t.prompt or any(c.interrupted for c in t.calls) for t in scenario.turns)
    if session and scenario.api not in SESSION_BUILDERS:
        raise SystemExit(f"{scenario.id}: the {scenario.api} builder does not write sessions yet")
    what = (
        f"the turns of its history on {scenario.api} (what an adapter's own {scenario.api} decoder reads in "
        "chained mode)"
        if of
        else "the scenario's turns"
    )
    document = {
        "provenance": {
            "kind": "constructed",
            "scenario": of or scenario.id,
            "how": f"Built by scripts/construct_cassettes.py from {what}, in the shapes of "
            "the provider's published API reference and SDK types; no live provider was called.",
        },
        "interactions": build(scenario),
        "version": 1,
    }
    return yaml.dump(document, Dumper=dumper or _Dumper, sort_keys=False, allow_unicode=True, width=100)


def cassettes(scenario: Scenario) -> list[tuple[Path, str]]:
    """Every cassette a constructed scenario names, with its text: its own, and its history's."""
    out = [(ROOT / "cassettes" / scenario.cassette, render(scenario))]
    if scenario.history is not None and scenario.history.cassette:
        played = history_scenario(scenario)
        out.append((ROOT / "cassettes" / scenario.history.cassette, render(played, of=scenario.id)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="report stale cassettes, write nothing")
    args = parser.parse_args(argv)
    corpus = load_corpus()
    stale = []
    for scenario in sorted(corpus.scenarios.values(), key=lambda s: s.id):
        if scenario.provenance != "constructed":
            continue
        for target, text in cassettes(scenario):
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
