"""Pins every direct dependency of the project to the oldest version pyproject.toml allows.

Prints pip constraints (`name==floor`) for the core dependencies and the named extras, so that CI
installs the floors and runs the tests against them: a floor that no longer works is found here,
not by a user. Usage: python .ci/oldest.py test > constraints.txt
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
requirements = list(project["dependencies"])
pending = list(sys.argv[1:])
while pending:
    for requirement in project["optional-dependencies"][pending.pop()]:
        own = re.fullmatch(r"toolcall-conformance\[([\w,-]+)\]", requirement)
        if own:
            pending.extend(own.group(1).split(","))
        else:
            requirements.append(requirement)
for requirement in requirements:
    floor = re.fullmatch(r"([A-Za-z0-9_.\-]+)(\[[^\]]*\])?>=([^,;\s]+).*", requirement)
    if floor:
        print(f"{floor.group(1)}=={floor.group(3)}")
