"""The Node kit as a package: a harness outside the repository installs it by name and version and runs."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from kits_outside import OUTSIDE, outcomes
from toolchains import require

from conformance.connectors.harness import HarnessAdapter
from conformance.corpus.loading import Corpus
from conformance.running.runner import RunOptions, run_scenario

HARNESS = OUTSIDE / "node"
INSTALLED = HARNESS / "node_modules" / "@toolcall-conformance" / "harness-kit"
require("node", INSTALLED / "package.json", "harnesses/examples/build node", unit="kit-node-outside")


def test_a_harness_outside_the_repository_passes_with_the_packed_kit(corpus: Corpus) -> None:
    assert outcomes(f"node {HARNESS / 'harness.mjs'}", corpus) == dict.fromkeys(
        ("openai-chat/one-call", "openai-chat/parallel-same-tool", "openai-chat/three-turn-chain"), "pass"
    )
    # The package as npm unpacked it, with its types, not a link into this repository.
    assert not INSTALLED.is_symlink() and (INSTALLED / "index.d.ts").is_file()
    declared = json.loads((HARNESS / "package.json").read_text())["dependencies"]
    assert declared == {"@toolcall-conformance/harness-kit": "^1.0.0"}


def _script(name: str, body: str) -> Path:
    # Beside the example, so that the import resolves the installed package.
    path = HARNESS / name
    path.write_text('import { installedVersions, log, serve } from "@toolcall-conformance/harness-kit";\n' + body)
    return path


def test_a_rejection_the_library_leaves_unhandled_is_that_case_s_error_not_a_crash(corpus: Corpus) -> None:
    script = _script(
        "rejecting.mjs",
        """
await serve({
  root: import.meta.url,
  implementation: () => ({ name: "rejecting", version: "0", apis: ["openai-chat"] }),
  run: async (c) => {
    if (c.id.endsWith("/one-call")) {
      Promise.reject(new Error("a promise nobody awaited"));
      await new Promise((resolve) => setTimeout(resolve, 20000));
    }
    return { output: "" };
  },
});
""",
    )
    harness = HarnessAdapter(f"node {script}")
    try:
        started = time.monotonic()
        first = run_scenario(harness, corpus.scenarios["openai-chat/one-call"], corpus, options=RunOptions(timeout=60))
        elapsed = time.monotonic() - started
        second = run_scenario(
            harness, corpus.scenarios["openai-chat/parallel-same-tool"], corpus, options=RunOptions(timeout=60)
        )
    finally:
        harness.close()
    assert first.outcome == "error" and "a promise nobody awaited" in (first.summary or ""), first.summary
    assert elapsed < 15  # answered when the rejection came, not at the run's end or a restart
    assert second.outcome == "fail"  # the same process answered the next case (it sent no request)


def test_installed_versions_finds_a_package_npm_nested_under_another(tmp_path: Path) -> None:
    nested = HARNESS / "node_modules" / "some-parent" / "node_modules" / "nested-only"
    nested.mkdir(parents=True, exist_ok=True)
    (nested / "package.json").write_text(json.dumps({"name": "nested-only", "version": "2.0.1"}))
    script = _script(
        "versions.mjs",
        "const names = ['nested-only', '@toolcall-conformance/harness-kit', 'absent'];\n"
        "log(JSON.stringify(installedVersions(import.meta.url, names)));\n",
    )
    done = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=60, check=True)
    versions = json.loads(done.stderr.strip().splitlines()[-1])
    kit = json.loads((Path(__file__).resolve().parents[1] / "harnesses" / "node-kit" / "package.json").read_text())
    expected = {"nested-only": "2.0.1", "@toolcall-conformance/harness-kit": kit["version"], "absent": "not installed"}
    assert versions == expected
