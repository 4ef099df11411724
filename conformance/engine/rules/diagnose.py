"""Naming what an altered id looks like, so a report says why, not only that."""

from __future__ import annotations

from collections.abc import Collection, Iterable


def resembles(value: str, *, names: Iterable[str], output: str) -> str:
    """What an unknown id looks like, when it looks like something: for orphan results."""
    if value in set(names):
        return "the id is a tool's name"
    if value and value == output:
        return "the id is the tool's output text"
    return ""


def diagnose(
    sent: str,
    expected: str,
    *,
    call_name: str | None,
    tool_names: Iterable[str],
    outputs: Iterable[str],
    other_ids: Collection[str],
) -> tuple[str, str]:
    """(diagnosis slug, sentence) for an id sent in place of `expected`.

    `other_ids`: the ids of the conversation's other calls (it may hold `expected` too).
    """
    names = {n for n in (call_name, *tool_names) if n}
    if sent in names:
        return "equals-tool-name", f"the id sent is the tool's name ({sent!r}), not the id the provider issued"
    if any(sent and sent == o for o in outputs):
        return "equals-result-text", "the id sent is the tool's output text, not the id the provider issued"
    if sent != expected and sent in other_ids:
        return "swapped", f"the id sent ({sent!r}) belongs to another call of the conversation"
    if expected.startswith(sent):
        return "truncated", f"the id sent is the first {len(sent)} of the id's {len(expected)} characters"
    if sent and expected.endswith(sent):
        # Kimi-style `functions.NAME:INDEX` ids cut to their index (a client that took the id for a position).
        head, _, index = expected.rpartition(":")
        if head and index == sent:
            return "truncated", f"the id sent ({sent!r}) is the index part of the provider's `name:index` id"
        return "truncated", f"the id sent is the last {len(sent)} of the id's {len(expected)} characters"
    if _concatenated(sent, expected, other_ids):
        return (
            "concatenated",
            f"the id sent ({sent!r}) is the provider's id joined with itself or with another id, as when "
            "the id repeated on every stream delta is appended instead of kept",
        )
    body = expected.split("_", 1)[-1]
    if len(body) >= 6 and body in sent:
        return "re-prefixed", f"the id sent keeps the body of the provider's id but not its prefix ({sent!r})"
    return "replaced", f"the id sent ({sent!r}) has nothing in common with the provider's"


def _concatenated(sent: str, expected: str, other_ids: Collection[str]) -> bool:
    """Whether `sent` is `expected` joined with copies of itself or of other ids, and nothing else."""
    if len(sent) <= len(expected) or expected not in sent:
        return False
    pieces = sorted({expected, *(i for i in other_ids if i and i in sent)}, key=len, reverse=True)
    rest = sent
    for piece in pieces:
        rest = rest.replace(piece, "")
    return rest == ""
