"""Per adapter: the one-line summary, and an SVG badge its README can embed.

The badge is written here as text (a flat, shields-style badge), so the same counts always give the same
bytes: widths come from a fixed table of Verdana 11px advances, not from a font on the machine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from xml.sax.saxutils import escape

from conformance.engine.outcomes import FAILING, OUTCOMES

LABEL = "tool-call ids"
GREEN, YELLOW, RED, GREY = "#4c1", "#dfb317", "#e05d44", "#9f9f9f"

# Advance widths of Verdana at 11px, in pixels; other characters count as 7.
_WIDTHS = {
    " ": 3.87, "!": 4.33, '"': 5.05, "#": 9.0, "%": 11.84, "&": 7.99, "'": 2.95, "(": 4.99, ")": 4.99,
    "*": 7.0, "+": 9.0, ",": 4.0, "-": 4.99, ".": 4.0, "/": 4.99, ":": 4.99, ";": 4.99, "<": 9.0,
    "=": 9.0, ">": 9.0, "?": 6.0, "@": 11.0, "[": 4.99, "]": 4.99, "_": 7.0, "|": 4.99,
    "A": 7.52, "B": 7.58, "C": 7.68, "D": 8.48, "E": 6.96, "F": 6.32, "G": 8.53, "H": 8.27, "I": 4.63,
    "J": 5.0, "K": 7.62, "L": 6.12, "M": 9.27, "N": 8.23, "O": 8.66, "P": 6.63, "Q": 8.66, "R": 7.65,
    "S": 7.52, "T": 6.78, "U": 8.05, "V": 7.52, "W": 10.88, "X": 7.54, "Y": 6.77, "Z": 7.54,
    "a": 6.61, "b": 6.85, "c": 5.73, "d": 6.85, "e": 6.55, "f": 3.87, "g": 6.85, "h": 6.96, "i": 3.02,
    "j": 3.79, "k": 6.51, "l": 3.02, "m": 10.7, "n": 6.96, "o": 6.68, "p": 6.85, "q": 6.85, "r": 4.69,
    "s": 5.73, "t": 4.33, "u": 6.96, "v": 6.51, "w": 8.99, "x": 6.51, "y": 6.51, "z": 5.79,
}  # fmt: skip


def scope(apis: Sequence[str], of: int | None) -> str:
    """`over 1 of 11 APIs (openai-chat)`, or `over all 11 APIs`: what the pass count is out of."""
    if of is not None and len(apis) == of:
        return f"over all {of} APIs"
    names = f" ({', '.join(apis)})" if 0 < len(apis) <= 4 else ""
    total = f" of {of}" if of is not None else ""
    return f"over {len(apis)}{total} API{'s' if (of or len(apis)) != 1 else ''}{names}"


def summary_line(
    name: str,
    version: str,
    counts: Mapping[str, int],
    revision: str,
    *,
    apis: Sequence[str] | None = None,
    of: int | None = None,
    complete: bool = True,
    failure: str | None = None,
) -> str:
    """`reference 0.1.0: 93/93 pass over all 11 APIs (corpus sha256:…)`, with every other outcome that
    occurred. `counts` are those of the APIs the adapter serves, `apis`, out of `of` in the corpus; a column
    that could not run says which stage failed (`build failed`) instead."""
    who = f"{name} {version}".strip()
    if failure:
        return f"{who}: {failure} failed, no case ran (corpus {revision})"
    total = sum(counts.get(o, 0) for o in OUTCOMES)
    others = [f"{counts[o]} {o}" for o in OUTCOMES if o != "pass" and counts.get(o)]
    line = f"{who}: {counts.get('pass', 0)}/{total} pass" + "".join(f", {o}" for o in others)
    if apis is not None:
        line += f", {scope(apis, of)}"
    if not complete:
        line += ", incomplete run"
    return f"{line} (corpus {revision})"


def message(counts: Mapping[str, int], apis: int | None = None) -> str:
    total = sum(counts.get(o, 0) for o in OUTCOMES)
    if not total:
        return "no results"
    served = f" on {apis} API{'s' if apis != 1 else ''}" if apis is not None else ""
    return f"{counts.get('pass', 0)}/{total} pass{served}"


def color(counts: Mapping[str, int]) -> str:
    """Green when nothing fails (skips and expected failures do not), yellow when at least 80% pass, else red."""
    total = sum(counts.get(o, 0) for o in OUTCOMES)
    failing = sum(counts.get(o, 0) for o in FAILING)
    if not total:
        return GREY
    if not failing:
        return GREEN
    return YELLOW if counts.get("pass", 0) >= 0.8 * total else RED


def text_width(text: str) -> float:
    return sum(_WIDTHS.get(ch, 7.0) for ch in text)


def _num(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def badge_svg(label: str, value: str, fill: str, title: str = "") -> str:
    """A flat badge: `label` on grey, `value` on `fill`."""
    left, right = round(text_width(label)) + 10, round(text_width(value)) + 10
    width = left + right
    title = title or f"{label}: {value}"
    texts = []
    for text, start, span in ((label, 0, left), (value, left, right)):
        x, length, body = _num(start + span / 2), _num(span - 10), escape(text)
        texts.append(
            f'    <text x="{x}" y="15" fill="#010101" fill-opacity=".3" textLength="{length}">{body}</text>\n'
            f'    <text x="{x}" y="14" textLength="{length}">{body}</text>\n'
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" '
        f'aria-label="{escape(label)}: {escape(value)}">\n'
        f"  <title>{escape(title)}</title>\n"
        '  <linearGradient id="s" x2="0" y2="100%">\n'
        '    <stop offset="0" stop-color="#bbb" stop-opacity=".1"/>\n'
        '    <stop offset="1" stop-opacity=".1"/>\n'
        "  </linearGradient>\n"
        f'  <clipPath id="r"><rect width="{width}" height="20" rx="3" fill="#fff"/></clipPath>\n'
        '  <g clip-path="url(#r)">\n'
        f'    <rect width="{left}" height="20" fill="#555"/>\n'
        f'    <rect x="{left}" width="{right}" height="20" fill="{fill}"/>\n'
        f'    <rect width="{width}" height="20" fill="url(#s)"/>\n'
        "  </g>\n"
        '  <g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" '
        'font-size="11">\n' + "".join(texts) + "  </g>\n</svg>\n"
    )


def adapter_badge(counts: Mapping[str, int], summary: str, apis: int | None = None, failure: str | None = None) -> str:
    """The badge of one column: its pass count over the cases of the `apis` APIs it serves, coloured by what
    failed; the summary as its title. A column that could not run says so, in red."""
    if failure:
        return badge_svg(LABEL, f"{failure} failed", RED, title=summary)
    return badge_svg(LABEL, message(counts, apis), color(counts), title=summary)
