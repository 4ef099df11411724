"""The package's layers (docs/design.md): every import runs down the table, and none closes a circle.

Every import of the suite's own modules is read from the source, those inside functions and under
TYPE_CHECKING included, so that a lazy import cannot hide a dependency that runs the wrong way.
"""

from __future__ import annotations

import ast
import importlib
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGE = ROOT / "conformance"
# Lower rank first: a module may import modules of its own folder and of any lower rank.
RANK = {
    "recordings": 1,
    "corpus": 2,
    "engine": 3,
    "replay": 4,
    "connectors": 5,
    "reference": 6,
    "clients": 6,
    "reproductions": 7,
    "running": 8,
    "reports": 9,
    "check": 10,
    "importer": 11,
    "lint": 11,
    "generated": 11,
    "proxy": 12,
    "node_ids": 11,
    "plugin": 12,  # a package: options, items, state, session
    "docgen": 13,
    "commands": 14,
    "cli": 15,
    "__main__": 16,
}


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    found: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:  # the suite imports absolutely only
                named = [f"{node.module}.{alias.name}" for alias in node.names]
                # `from package import module` imports the module; the package's face only hands it on.
                targets = named if all(n in modules for n in named) else [node.module, *named]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and target != "conformance":
                    found[name].add(target)
    return found


def _layer(module: str) -> str:
    return module.split(".")[1] if module.count(".") else "conformance"


def test_every_module_has_a_layer() -> None:
    unplaced = sorted({_layer(m) for m in _imports()} - set(RANK) - {"conformance"})
    assert not unplaced, f"modules outside every layer of docs/design.md: {unplaced}"


def test_no_import_runs_up_the_layers() -> None:
    upward = [
        f"{module} imports {target}"
        for module, targets in _imports().items()
        for target in targets
        if _layer(module) in RANK and RANK[_layer(target)] > RANK[_layer(module)]
    ]
    assert not upward, "\n".join(sorted(upward))


def test_no_import_circle() -> None:
    graph = _imports()
    circles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def walk(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                circles.append([*path[path.index(target) :], target])
            elif target not in state:
                walk(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])
    assert not circles, "\n".join(" -> ".join(c) for c in circles)


@pytest.mark.parametrize(
    "spec",
    [
        "conformance:CodecAdapter",
        "conformance:ClientAdapter",
        "conformance:ToolLoop",
        "conformance:__version__",
        "conformance:CONTRACT_VERSION",
        "conformance.reference:ADAPTER",
        "conformance.clients.official_sdks:ADAPTER",
        "conformance.reproductions.genkit:GENKIT_3247",
        "conformance.cli:main",
        "conformance.plugin:pytest_addoption",
    ],
)
def test_documented_import_paths_work(spec: str) -> None:
    module, _, attribute = spec.partition(":")
    assert getattr(importlib.import_module(module), attribute) is not None
