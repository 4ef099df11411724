"""Carrying tool-call ids across APIs: keep what the target accepts, map the rest deterministically.

A history begun on one API and continued on another holds ids in the first API's grammar (or none,
for Gemini). The target may reject them (Mistral takes exactly nine alphanumerics, Kimi
`functions.NAME:INDEX`, Anthropic `^[a-zA-Z0-9_-]+$`). `IdMap` gives each source call an id the
target accepts such that:

- an id the target already accepts is kept unchanged (the provider issued it, or it is valid);
- the same history maps to the same ids every time (a hash of the source id, never a counter
  or a random value), so replays and prompt caches match;
- distinct source calls get distinct target ids (collisions are re-hashed with a salt);
- a call without an id gets one from its name and its position in the conversation.

Adapters may use this module as it is; the reference codecs do.
"""

from __future__ import annotations

import hashlib
import re
import string
from dataclasses import dataclass, field

_BASE62 = string.digits + string.ascii_letters


@dataclass(frozen=True)
class Grammar:
    """What a target API accepts as a client-sent tool-call id."""

    pattern: str
    max_length: int
    prefix: str = ""  # what minted ids start with
    length: int = 24  # how many hash characters minted ids carry

    def accepts(self, value: str) -> bool:
        return len(value) <= self.max_length and re.fullmatch(self.pattern, value) is not None


# Limits as recorded in cases/wire-types (with their sources and dates there).
GRAMMARS: dict[str, Grammar] = {
    "openai-chat": Grammar(r"[A-Za-z0-9_.:-]+", 40, "call_"),
    "openai-responses": Grammar(r"[A-Za-z0-9_.:-]+", 64, "call_"),
    "azure-foundry": Grammar(r"[A-Za-z0-9_.:-]+", 64, "call_"),
    "openresponses": Grammar(r"[A-Za-z0-9_.:-]+", 64, "call_"),
    "anthropic-messages": Grammar(r"[a-zA-Z0-9_-]+", 64, "toolu_"),
    "bedrock-converse": Grammar(r"[a-zA-Z0-9_-]+", 64, "tooluse_"),
    "mistral-chat": Grammar(r"[a-zA-Z0-9]{9}", 9, "", 9),
    "gemini": Grammar(r"[A-Za-z0-9_.:-]+", 64, "call_"),
    "cohere-v2": Grammar(r"[A-Za-z0-9_.:-]+", 64, "call_"),
    "ollama-chat": Grammar(r"[A-Za-z0-9_.:-]+", 64, "call_"),
}


def _base62(digest: bytes, length: int) -> str:
    number = int.from_bytes(digest, "big")
    out: list[str] = []
    while len(out) < length:
        number, digit = divmod(number, 62)
        out.append(_BASE62[digit])
    return "".join(out)


def mint(seed: str, grammar: Grammar, salt: int = 0) -> str:
    digest = hashlib.sha256(f"{seed}#{salt}".encode()).digest()
    return grammar.prefix + _base62(digest, grammar.length)


@dataclass
class IdMap:
    """Source call -> target id, for one request. Build a fresh one per encode."""

    api: str
    _by_source: dict[str, str] = field(default_factory=dict)
    _used: dict[str, str] = field(default_factory=dict)  # target id -> source key
    _ordinal: int = 0  # calls seen so far, for Kimi's positional ids and id-less calls
    _unanswered: list[tuple[str, str, str]] = field(default_factory=list)  # (name, source key, target)

    def call(self, source_id: str | None, name: str, *, native: bool = False) -> str:
        """The target id for the next call of the history, in history order.

        `native`: the target API itself issued this id; it goes back byte for byte, whatever it is.
        """
        ordinal = self._ordinal
        self._ordinal += 1
        key = source_id if source_id else f"\0{name}:{ordinal}"
        if key in self._by_source:
            return self._by_source[key]
        target = source_id if native and source_id else self._target(source_id, name, ordinal, key)
        self._by_source[key] = target
        self._used[target] = key
        self._unanswered.append((name, key, target))
        return target

    def result(self, source_id: str | None, name: str | None = None) -> str | None:
        """The target id for the result of a call already mapped.

        A result without an id (Gemini) answers the oldest unanswered call with its name. None
        when no call matches: the caller decides whether to send the result at all.
        """
        for i, (call_name, key, target) in enumerate(self._unanswered):
            if (source_id and key == source_id) or (not source_id and call_name == name):
                del self._unanswered[i]
                return target
        return self._by_source.get(source_id) if source_id else None

    def _target(self, source_id: str | None, name: str, ordinal: int, key: str) -> str:
        if self.api == "kimi-chat":
            # Kimi's own grammar is positional: functions.NAME:INDEX over the whole conversation.
            kimi = re.fullmatch(r"functions\.[A-Za-z0-9_-]+:[0-9]+", source_id or "")
            if source_id and kimi and source_id not in self._used:
                return source_id
            return f"functions.{name}:{ordinal}"
        grammar = GRAMMARS[self.api]
        if source_id and grammar.accepts(source_id) and source_id not in self._used:
            return source_id
        salt = 0
        while True:
            target = mint(key, grammar, salt)
            if self._used.get(target, key) == key:
                return target
            salt += 1
