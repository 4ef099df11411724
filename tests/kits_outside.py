"""The example harnesses of harnesses/examples, built outside the repository against the packaged kits.

`harnesses/examples/build node|go|java` (the install of the units kit-node-outside, kit-go-outside and
kit-java-outside) builds them under CONFORMANCE_KITS_OUTSIDE, by default the cache beside the Rust
harnesses' target; the tests only run what it built.
"""

from __future__ import annotations

import os
from pathlib import Path

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus
from conformance.running.runner import RunOptions, run_scenario

OUTSIDE = Path(
    os.environ.get("CONFORMANCE_KITS_OUTSIDE") or Path.home() / ".cache" / "toolcall-conformance" / "kits-outside"
)
# Scenarios a plain Chat Completions loop without streaming runs: one call, parallel calls of one tool,
# and a chain over three turns.
CASES = ("openai-chat/one-call", "openai-chat/parallel-same-tool", "openai-chat/three-turn-chain")


def outcomes(command: str, corpus: Corpus, cases: tuple[str, ...] = CASES) -> dict[str, str]:
    harness = HarnessAdapter(command)
    try:
        options = RunOptions(timeout=60)
        return {i: run_scenario(harness, corpus.scenarios[i], corpus, options=options).outcome for i in cases}
    finally:
        harness.close()


def identity(command: str) -> dict[str, object]:
    harness = HarnessAdapter(command)
    try:
        return dict(harness.identity())
    finally:
        harness.close()
