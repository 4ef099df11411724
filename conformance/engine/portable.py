"""Text made the same on every machine: absolute paths cut to what they name, tracebacks without
the marks that differ between Python versions. Results files and the matrix carry no path of the
machine that ran them."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

__all__ = ["stable_detail", "stable_text"]

_FRAME = re.compile(r'^(?P<indent>\s*)File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<func>.+)$')
_CARETS = re.compile(r"^\s*[\^~]+\s*$")  # Python's error-location markers, which differ between versions
# An absolute path standing on its own (not inside a URL): at the start, or after a space, quote, bracket or =.
_ABSOLUTE = re.compile(r"""(?<![^\s"'(\[=])(?:[A-Za-z]:)?[/\\](?:[\w.+~-]+[/\\])+[\w.+~-]+""")
_ANCHORS = ("conformance", "cassettes", "cases")
_INLINED = frozenset({"<listcomp>", "<dictcomp>", "<setcomp>"})
_STDLIB = re.compile(r"/lib/python\d+(?:\.\d+)?/")


def _short_path(raw: str) -> str:
    """A path cut to what it names: inside site-packages, or from the corpus or package directory on."""
    path = raw.replace("\\", "/")
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in path:
            return path.rsplit(marker, 1)[1]
    stdlib = _STDLIB.split(path)
    if len(stdlib) > 1:
        return stdlib[-1]
    parts = PurePosixPath(path).parts
    found = [i for i, part in enumerate(parts) if part in _ANCHORS]
    if found:
        return "/".join(parts[found[-1] :])
    return parts[-1] if parts else path


def stable_text(text: str) -> str:
    """Absolute paths cut to what they name, so that the text is the same on every machine."""
    return _ABSOLUTE.sub(lambda m: _short_path(m.group(0)), text)


def stable_detail(detail: str) -> str:
    """A traceback the same on every machine and Python: frames as `file:line in function`, without the
    error-location markers or the frames of comprehensions, paths cut to what they name."""
    lines: list[str] = []
    skipping = False
    for line in detail.strip().splitlines():
        frame = _FRAME.match(line)
        if frame:
            # Python 3.12 inlines comprehensions (PEP 709): their frames exist only before it.
            skipping = frame["func"].strip() in _INLINED
            if not skipping:
                path = _short_path(frame["path"])
                lines.append(f"{frame['indent']}{path}:{frame['line']} in {frame['func'].strip()}")
        elif skipping and line.startswith(" "):
            continue  # the inlined frame's source line
        elif not _CARETS.match(line):
            skipping = False
            lines.append(stable_text(line.rstrip()))
    return "\n".join(lines)
