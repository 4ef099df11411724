"""Small helpers for the sentences the suite prints."""

from __future__ import annotations


def a(word: str) -> str:
    """`word` with its indefinite article: `an openai-chat request`, `a gemini request`, `an int`."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`1 case`, `2 cases`; `many` for irregular plurals."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"
