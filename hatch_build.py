"""The wheel's build step: the bundled corpus shipped loaded (conformance/corpus/shipped.py), so that
a fresh install's first run parses no YAML. Editable installs read the checkout's files instead."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CorpusSnapshot(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        sys.path.insert(0, self.root)
        try:
            from conformance.corpus import shipped, shipping
        finally:
            sys.path.remove(self.root)
        out = Path(tempfile.mkdtemp(prefix="corpus-snapshot-")) / shipped.NAME
        shipping.write(Path(self.root), out)
        build_data["force_include"][str(out)] = f"conformance/_corpus/{shipped.NAME}"
