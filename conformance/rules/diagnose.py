"""Naming what an altered id looks like, so a report says why, not only that."""

from __future__ import annotations

from collections.abc import Iterable


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
    other_ids: Iterable[str],
) -> tuple[str, str]:
    """(diagnosis slug, sentence) for an id sent in place of `expected`."""
    names = {n for n in (call_name, *tool_names) if n}
    if sent in names:
        return "equals-tool-name", f"the id sent is the tool's name ({sent!r}), not the id the provider issued"
    if any(sent and sent == o for o in outputs):
        return "equals-result-text", "the id sent is the tool's output text, not the id the provider issued"
    if sent in set(other_ids):
        return "swapped", f"the id sent ({sent!r}) belongs to another call of the conversation"
    if expected.startswith(sent):
        return "truncated", f"the id sent is the first {len(sent)} of the id's {len(expected)} characters"
    body = expected.split("_", 1)[-1]
    if len(body) >= 6 and body in sent:
        return "re-prefixed", f"the id sent keeps the body of the provider's id but not its prefix ({sent!r})"
    return "replaced", f"the id sent ({sent!r}) has nothing in common with the provider's"
