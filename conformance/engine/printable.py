"""Text from outside the suite (a harness's messages and names, an adapter's exceptions) made safe to
print: a terminal acts on control characters (ESC starts sequences that set the window's title, clear
the screen or rewrite lines already printed), and bidirectional overrides reorder what is shown. Each
such character is shown as its escape (`\\x1b`, `\\u202e`) instead; line breaks and tabs are kept
where the text may span lines."""

from __future__ import annotations

import re

# C0 and C1 controls and DEL, and the bidirectional embeddings, overrides and isolates.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_ON_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, one_line: bool = False) -> str:
    """`text` with every character a terminal would act on shown as its escape; `one_line`: line
    breaks and tabs too (a name)."""
    return (_UNSAFE_ON_ONE_LINE if one_line else _UNSAFE).sub(_escape, text)
