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
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the corpus is only needed to check these grammars against the cases
    from conformance.corpus.loading import Corpus

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


# Where the cases record no pattern or no length for an API's ids, ids this module keeps or mints are held
# to characters and a length every API here takes: the pattern of OpenAI Responses' own call ids, and the
# most common cap.
PORTABLE_PATTERN = r"[A-Za-z0-9_.:-]+"
PORTABLE_MAX = 64

# The case fields each grammar restates: a call's id and the result's reference to it. `test_ids.py`
# holds GRAMMARS equal to what `grammar_from_cases` derives from them, so the two cannot drift; the
# literal table keeps IdMap usable without loading the corpus.
RESTATES: dict[str, tuple[tuple[str, str], ...]] = {
    "openai-chat": (
        ("openai-chat/ChatCompletionMessageToolCall", "id"),
        ("openai-chat/ChatCompletionRequestToolMessage", "tool_call_id"),
    ),
    "openai-responses": (
        ("openai-responses/FunctionToolCall", "call_id"),
        ("openai-responses/FunctionToolCallOutput", "call_id"),
    ),
    "azure-foundry": (
        ("openai-responses/FunctionToolCall", "call_id"),
        ("openai-responses/FunctionToolCallOutput", "call_id"),
    ),
    "openresponses": (
        ("openresponses/FunctionCall", "call_id"),
        ("openresponses/FunctionCallOutput", "call_id"),
    ),
    "mistral-responses": (
        ("mistral-responses/FunctionCall", "call_id"),
        ("mistral-responses/FunctionCallOutput", "call_id"),
    ),
    "ollama-responses": (
        ("ollama-responses/FunctionCall", "call_id"),
        ("ollama-responses/FunctionCallOutput", "call_id"),
    ),
    "anthropic-messages": (
        ("anthropic-messages/ToolUseBlock", "id"),
        ("anthropic-messages/ToolResultBlock", "tool_use_id"),
    ),
    "ollama-messages": (
        ("ollama-messages/ToolUseBlock", "id"),
        ("ollama-messages/ToolResultBlock", "tool_use_id"),
    ),
    "bedrock-converse": (
        ("bedrock-converse/ToolUseBlock", "toolUseId"),
        ("bedrock-converse/ToolResultBlock", "toolUseId"),
    ),
    "mistral-chat": (("mistral-chat/ToolCall", "id"), ("mistral-chat/ToolMessage", "tool_call_id")),
    "gemini": (("gemini/FunctionCall", "id"), ("gemini/FunctionResponse", "id")),
    "gemini-interactions": (
        ("gemini-interactions/FunctionCallStep", "id"),
        ("gemini-interactions/FunctionResultStep", "call_id"),
    ),
    "cohere-v2": (("cohere-v2/ToolCallV2", "id"), ("cohere-v2/ToolMessageV2", "tool_call_id")),
    "ollama-chat": (("ollama-chat/ToolCall", "id"), ("ollama-chat/ToolMessage", "tool_call_id")),
}

# The grammars the cases record today (see RESTATES): every limit the format rules apply, as an error
# or as a warning, so that ids kept or minted here draw neither.
GRAMMARS: dict[str, Grammar] = {
    "openai-chat": Grammar(PORTABLE_PATTERN, 40, "call_"),
    "openai-responses": Grammar(PORTABLE_PATTERN, 64, "call_"),
    "azure-foundry": Grammar(PORTABLE_PATTERN, 64, "call_"),
    "openresponses": Grammar(PORTABLE_PATTERN, 64, "call_"),
    "mistral-responses": Grammar(PORTABLE_PATTERN, PORTABLE_MAX, "call_"),
    "ollama-responses": Grammar(PORTABLE_PATTERN, PORTABLE_MAX, "call_"),
    "ollama-messages": Grammar(PORTABLE_PATTERN, PORTABLE_MAX, "call_"),
    "anthropic-messages": Grammar(r"[a-zA-Z0-9_-]+", PORTABLE_MAX, "toolu_"),
    "bedrock-converse": Grammar(r"[a-zA-Z0-9_.:-]+", 64, "tooluse_"),
    "mistral-chat": Grammar(r"[a-zA-Z0-9]{9}", 9, "", 9),
    "gemini": Grammar(PORTABLE_PATTERN, PORTABLE_MAX, "call_"),
    "gemini-interactions": Grammar(PORTABLE_PATTERN, PORTABLE_MAX, "call_"),
    "cohere-v2": Grammar(PORTABLE_PATTERN, PORTABLE_MAX, "call_"),
    "ollama-chat": Grammar(PORTABLE_PATTERN, PORTABLE_MAX, "call_"),
}


def grammar_from_cases(corpus: Corpus, api: str) -> tuple[str, int]:
    """(pattern, max_length) of the limits the format rules apply to `api`'s call and result ids.

    A field may carry one pattern at most among the limits applied (regular expressions do not
    intersect); lengths take the smallest cap. Where the cases record none, the portable defaults.
    """
    patterns: set[str] = set()
    caps: list[int] = []
    for wire_type, id_field in RESTATES[api]:
        for limit in corpus.limits(wire_type, id_field):
            if limit.applies is None or limit.model_bound:
                continue  # a limit of some models only is not the API's grammar
            if limit.pattern is not None:
                patterns.add(limit.pattern)
            if limit.max_length is not None:
                caps.append(limit.max_length)
    if len(patterns) > 1:
        raise ValueError(f"{api}: several id patterns apply at once: {sorted(patterns)}")
    return (patterns.pop() if patterns else PORTABLE_PATTERN), min(caps, default=PORTABLE_MAX)


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
    _unanswered: list[tuple[str, str, str, str | None]] = field(default_factory=list)  # (name, key, target, source id)
    _latest: dict[str, str] = field(default_factory=dict)  # source id -> the target of its latest call

    def call(self, source_id: str | None, name: str, *, native: bool = False) -> str:
        """The target id for the next call of the history, in history order.

        `native`: the target API itself issued this id; it goes back byte for byte, whatever it is,
        `""` included (a codec that lost the id must show it, not have it papered over by a minted one).
        Only a missing id (None) is minted.
        """
        ordinal = self._ordinal
        self._ordinal += 1
        key = source_id if source_id else f"\0{name}:{ordinal}"
        if key in self._by_source:
            # Each call is mapped once per encode, so a source id seen before is another call's: ids
            # that restart every turn (Kimi-style `name:index` from servers that count per response)
            # repeat across turns. It gets its own target; its results answer it, not the earlier call.
            key = f"{key}\0{ordinal}"
        target = source_id if native and source_id is not None else self._target(source_id, name, ordinal, key)
        self._by_source[key] = target
        self._used[target] = key
        if source_id:
            self._latest[source_id] = target
        self._unanswered.append((name, key, target, source_id))
        return target

    def result(self, source_id: str | None, name: str | None = None) -> str | None:
        """The target id for the result of a call already mapped.

        A result without an id (Gemini) answers the oldest unanswered call with its name. None
        when no call matches: the caller decides whether to send the result at all.
        """
        for i, (call_name, _, target, source) in enumerate(self._unanswered):
            if (source_id and source == source_id) or (not source_id and call_name == name):
                del self._unanswered[i]
                return target
        return self._latest.get(source_id) if source_id else None

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
