"""The Go kit as a module: a harness in another module requires it by path and version, with no replace."""

from __future__ import annotations

from kits_outside import OUTSIDE, identity, outcomes
from toolchains import require

from conformance.corpus.loading import Corpus

HARNESS = OUTSIDE / "go"
require("go", HARNESS / "example-harness", "harnesses/examples/build go", unit="kit-go-outside")
KIT = "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"


def test_a_harness_in_another_module_passes_with_the_kit_by_version(corpus: Corpus) -> None:
    gomod = (HARNESS / "go.mod").read_text()
    assert f"require {KIT} v0.1.0" in gomod and "replace" not in gomod
    assert set(outcomes(str(HARNESS / "example-harness"), corpus).values()) == {"pass"}


def test_the_harness_names_the_kit_version_it_was_built_with() -> None:
    assert f"{KIT} v0.1.0" in str(identity(str(HARNESS / "example-harness"))["libraries"])
