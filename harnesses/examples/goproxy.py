"""Serve a Go module directory as one version from a module proxy on disk (GOPROXY=file://DIR).

The layout is the module proxy protocol's (`<module>/@v/list`, `.info`, `.mod`, `.zip`, the zip's
entries under `<module>@<version>/`), so that `go build` resolves the module by path and version as it
will from the public proxy once the version is tagged, with no replace directive.

Usage: python goproxy.py MODULE_DIR VERSION OUT_DIR
"""

from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path


def _escaped(path: str) -> str:
    # The proxy protocol spells an upper-case letter as "!" and its lower case.
    return re.sub(r"[A-Z]", lambda m: "!" + m.group(0).lower(), path)


def publish(module_dir: Path, version: str, out: Path) -> Path:
    gomod = (module_dir / "go.mod").read_text()
    found = re.search(r"^module\s+(\S+)", gomod, re.MULTILINE)
    if found is None:
        raise SystemExit(f"{module_dir / 'go.mod'}: no module line")
    module = found.group(1)
    versions = out / _escaped(module) / "@v"
    versions.mkdir(parents=True, exist_ok=True)
    (versions / "list").write_text(version + "\n")
    (versions / f"{version}.info").write_text(json.dumps({"Version": version, "Time": "2026-01-01T00:00:00Z"}))
    (versions / f"{version}.mod").write_text(gomod)
    with zipfile.ZipFile(versions / f"{version}.zip", "w") as archive:
        for file in sorted(module_dir.rglob("*")):
            if file.is_file() and not any(part.startswith(".") for part in file.relative_to(module_dir).parts):
                archive.write(file, f"{module}@{version}/{file.relative_to(module_dir).as_posix()}")
    return versions


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    publish(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]))
