"""Re-run the harness columns of the matrix on the current corpus, one after another.

Each column is a harness program (harnesses/, built by `harnesses/install`) and the results file it
writes under reports/results/. A column whose harness is not built is said and passed over; the
Python framework columns need their own extras, one virtual environment each (README), and are not
run here. Then `conformance matrix` and `conformance matrix --wire-types` write the reports.

    python scripts/refresh_columns.py                 # every harness column
    python scripts/refresh_columns.py rig openai-go   # these
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUST_BIN = "harnesses/rust/build"  # prints the directory of the built binaries

# column -> the harness command, run from the checkout's root
COLUMNS: dict[str, str] = {
    "vercel-ai": "node harnesses/vercel-ai/run.mjs",
    "vercel-ai-v5": "node harnesses/vercel-ai/run.mjs --major=5",
    "vercel-ai-v6": "node harnesses/vercel-ai/run.mjs --major=6",
    "vercel-ai-openai-compatible": "node harnesses/vercel-ai/run.mjs --openai-chat=compatible",
    "langchain-js": "node harnesses/langchain-js/run.mjs",
    "langchain-js-google": "node harnesses/langchain-js/run.mjs --gemini=google",
    "genkit-js": "node harnesses/genkit-js/run.mjs",
    "openai-agents-js": "node harnesses/openai-agents/run.mjs",
    "mastra": "node harnesses/mastra/run.mjs",
    "anthropic-sdk-js": "node harnesses/anthropic-sdk/run.mjs",
    "langchain4j": "java -jar harnesses/java/langchain4j/target/langchain4j-harness.jar",
    "spring-ai": "java -jar harnesses/java/spring-ai/target/spring-ai-harness.jar",
    **{
        f"genkit-go-v{v}": f"harnesses/go/run genkit-v{v}"
        for v in ("0.6.2", "0.7.0", "1.0.0", "1.3.0", "1.4.0", "1.12.0")
    },
    "openai-go": "harnesses/go/run openai-go",
    "anthropic-sdk-go": "harnesses/go/run anthropic-go",
    "genai-go": "harnesses/go/run genai-go",
    "langchaingo": "harnesses/go/run langchaingo",
    "eino": "harnesses/go/run eino",
    "rig": "{rust}/rig-harness",
    "rig-deepseek": "{rust}/rig-harness --openai-chat=deepseek",
    "async-openai": "{rust}/async-openai-harness",
}


def _rust_bin() -> str:
    done = subprocess.run([str(ROOT / RUST_BIN)], capture_output=True, text=True, cwd=ROOT)
    return done.stdout.strip().splitlines()[-1] if done.returncode == 0 and done.stdout.strip() else ""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("columns", nargs="*", metavar="COLUMN", help=f"of: {', '.join(COLUMNS)} (default: all)")
    args = parser.parse_args(argv)
    unknown = [c for c in args.columns if c not in COLUMNS]
    if unknown:
        parser.error(f"unknown column {', '.join(unknown)}")
    conformance = shutil.which("conformance") or f"{sys.executable} -m conformance.cli"
    rust = ""
    failed = []
    for column in args.columns or list(COLUMNS):
        command = COLUMNS[column]
        if "{rust}" in command:
            rust = rust or _rust_bin()
            if not rust:
                print(f"{column}: skipped, the Rust harnesses are not built ({RUST_BIN})")
                continue
            command = command.format(rust=rust)
        report = ROOT / "reports" / "results" / f"{column}.json"
        started = time.monotonic()
        done = subprocess.run(
            [*conformance.split(), "run", "--harness", command, "--report", str(report.relative_to(ROOT))],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        took = time.monotonic() - started
        last = (done.stdout.strip().splitlines() or [""])[-1]
        # run exits 1 when a case fails (the column's findings); anything else is the harness not running
        if done.returncode not in (0, 1):
            failed.append(column)
            print(f"{column}: exit {done.returncode} after {took:.0f} s\n{done.stderr.strip()[-2000:]}")
        else:
            print(f"{column}: {took:.0f} s; {last}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
