"""Re-run the harness columns of the matrix on the current corpus, one after another, on this machine.

Each column is a harness program (harnesses/, built by `harnesses/install`) and the results file it
writes under reports/results/; the columns and their commands are those of scripts/columns.json, which
the workflow's fan-out reads too. A column whose harness is not built is said and passed over; the
Python framework columns need their own extras, one virtual environment each (README), and are not
run here (`python scripts/columns.py run GROUP` runs a group, building it first). Then `conformance
matrix` and `conformance matrix --wire-types` write the reports.

    python scripts/refresh_columns.py                 # every harness column
    python scripts/refresh_columns.py rig openai-go   # these
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import columns

RUST_BIN = "harnesses/rust/build"  # prints the directory of the built binaries


def _rust_bin() -> str:
    done = subprocess.run([str(columns.ROOT / RUST_BIN)], capture_output=True, text=True, cwd=columns.ROOT)
    return done.stdout.strip().splitlines()[-1] if done.returncode == 0 and done.stdout.strip() else ""


def main(argv: Sequence[str] | None = None) -> int:
    manifest = columns.load()
    harnessed = [c.name for c in manifest.columns.values() if c.harness]
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("columns", nargs="*", metavar="COLUMN", help=f"of: {', '.join(harnessed)} (default: all)")
    args = parser.parse_args(argv)
    unknown = [c for c in args.columns if c not in harnessed]
    if unknown:
        parser.error(f"unknown column {', '.join(unknown)}")
    failed = []
    for name in args.columns or harnessed:
        column = manifest.columns[name]
        bin_dir = ""
        if "{bin}" in column.harness:
            bin_dir = _rust_bin()
            if not bin_dir:
                print(f"{name}: skipped, the Rust harnesses are not built ({RUST_BIN})")
                continue
        out = columns.ROOT / columns.RESULTS
        timings = columns.run_group(
            manifest, column.group, out, [name], build=False, bin_dir=bin_dir, record_failures=False
        )
        failed += [n for n, what, _ in timings if "failed" in what]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
