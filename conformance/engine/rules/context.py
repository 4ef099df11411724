"""What the rules need besides the exchange, and the one way they build a violation."""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance.corpus.loading import Corpus, ExpectedCall
from conformance.engine.dialects.base import Dialect
from conformance.engine.violations import CODES, Violation, severity_of


def canonical(value: Any) -> str | None:
    """A JSON value as one string, key order aside; text that is JSON reads as the value it holds.

    Two forms of the same arguments or output (an object, its JSON text, the text re-spaced)
    give the same string, so that they can be looked up and compared in constant time.
    """
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return json.dumps(value)
    return _canonical_value(value)


def _canonical_value(value: Any) -> str | None:
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        return None


def arguments_value(raw: Any) -> Any:
    """A call's arguments as the value they stand for, whatever form the wire or a codec gives
    them in: JSON text (OpenAI, a reassembled stream) is parsed, an absent or empty text is the
    empty object (what every API reads it as), text that is not JSON stays text (custom tools)."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


NOT_JSON = object()  # what a canned output that is plain text parses to


def json_value(text: str) -> Any:
    """The JSON value a text holds, or NOT_JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return NOT_JSON


_UNSEEN = object()


def same_arguments(a: Any, b: Any) -> bool:
    return bool(arguments_value(a) == arguments_value(b))


@dataclass
class CheckContext:
    corpus: Corpus
    dialect: Dialect
    profile: str = "default"
    # natural call id -> the canned output the scenario answers it with (codec runs)
    expected_outputs: Mapping[str, str] = field(default_factory=dict)
    tool_names: frozenset[str] = frozenset()
    # every call of the scenario, prior history included, with its canned output
    expected_calls: tuple[ExpectedCall, ...] = ()
    # sessions: the run each served response belongs to (a new run starts with a new user prompt).
    # A memory may forget an earlier run's calls, each with its results; never the current run's.
    runs: tuple[int, ...] = ()
    # the calls of the history the conversation began with (a scenario's `history:` block)
    prior_calls: tuple[ExpectedCall, ...] = ()
    # client runs: what the client's tools were called with (name, arguments). A result can only be
    # held to its tool's output when the tool ran; None (codec runs) holds every call to it.
    tools_ran: tuple[tuple[str | None, Any], ...] | None = None
    # The model the requests name, where the run knows it (the scenario's): rules whose verdict
    # depends on the model family read it, else the model the responses say served them.
    model: str | None = None
    # Lookups built once, so that finding a call's scenario counterpart costs the same at any length.
    # An id may stand for several calls: a provider that numbers calls per response serves call_0
    # again in a later turn.
    _by_id: dict[str, list[ExpectedCall]] = field(init=False, repr=False, default_factory=dict)
    _by_call: dict[tuple[str, str | None], list[ExpectedCall]] = field(init=False, repr=False, default_factory=dict)
    _by_output: dict[str | None, list[ExpectedCall]] = field(init=False, repr=False, default_factory=dict)
    _output_values: dict[str, Any] = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        for call in self.expected_calls:
            if call.id:
                self._by_id.setdefault(call.id, []).append(call)
            self._by_call.setdefault((call.name, canonical(dict(call.arguments))), []).append(call)
            if call.output.strip():
                # The output parsed here is the one the output rule compares results with.
                value = self.output_value(call.output)
                key = json.dumps(call.output) if value is NOT_JSON else _canonical_value(value)
                self._by_output.setdefault(key, []).append(call)

    def calls_answered_by(self, output: Any) -> list[ExpectedCall]:
        """The scenario calls whose canned output a result's output holds whole: as its text, or
        as one of its blocks' or values' text, or as the same JSON value."""
        found: list[ExpectedCall] = []
        stack = [output]
        while stack:
            node = stack.pop()
            for call in self._by_output.get(canonical(node), ()):
                if call not in found:
                    found.append(call)
            if isinstance(node, dict):
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
        return found

    def calls_alike(self, call: ExpectedCall) -> list[ExpectedCall]:
        """The scenario calls of the same name and arguments as `call` (itself included)."""
        return self._by_call.get((call.name, canonical(dict(call.arguments))), [call])

    def output_value(self, text: str) -> Any:
        """The JSON value a canned output holds, or NOT_JSON: parsed once per context (the scenario's
        own outputs as it is made), since every request of an exchange carries them again."""
        found = self._output_values.get(text, _UNSEEN)
        if found is _UNSEEN:
            found = self._output_values[text] = json_value(text)
        return found

    def expected_for(self, call: Any) -> ExpectedCall | None:
        """The scenario call a wire call stands for: same id, else same name and arguments."""
        same = self._by_id.get(call.call_id) if call.call_id else None
        if same is not None and len(same) == 1:
            return same[0]
        arguments = call.arguments
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = None
        found = self._by_call.get((call.name, canonical(arguments))) if isinstance(arguments, dict) else None
        if same is not None:  # one id served for several calls: the one of this name and arguments
            return next((c for c in same if found and c in found), same[0])
        return found[0] if found else None

    def tool_ran(self, call: ExpectedCall) -> bool:
        """Whether the client ran one of its tools for the call: one of its name, or one run without
        a name (a call served nameless) on its arguments. By name, not arguments: a client that
        garbled the arguments still ran the tool, and still owes its output. Asking for a tool the
        client does not have (a server tool's name) runs nothing."""
        if self.tools_ran is None:
            return True
        known = not self.tool_names or call.name in self.tool_names
        wanted = canonical(dict(call.arguments))
        return any(
            (name == call.name and known) or (not name and canonical(arguments_value(arguments)) == wanted)
            for name, arguments in self.tools_ran
        )

    def earlier_run(self, served_turn: int, request: int) -> bool:
        """Whether response `served_turn` belongs to a run before the one request `request` is part of."""
        runs = self.runs
        return served_turn < len(runs) and request < len(runs) and runs[served_turn] < runs[request]

    def replayable(self, call: Any) -> bool:
        """Whether the API takes the call back as request input (history replay): its wire type is
        request input, or is a streamed form reassembled into one (a chunk referencing its call type).
        Output-only items (Azure Foundry's server-run tool calls) are not sent back."""
        case = self.corpus.wire_types.get(call.wire_type)
        if case is None or case.request_input:
            return True
        target = str(case.data.get("references", {}).get("target", "")).split(".", 1)[0]
        into = self.corpus.wire_types.get(target)
        return into is not None and into.role == case.role and into.request_input

    def violation(
        self,
        code: str,
        location: str,
        message: str,
        *,
        wire_type: str | None = None,
        **details: Any,
    ) -> Violation:
        known = self.corpus.error_text(self.dialect.api, code, wire_type)
        return Violation(
            code=code,
            severity=severity_of(code, self.profile),
            location=location,
            message=message,
            hint=details.pop("hint", CODES[code].hint),
            provider_error=known.text if known else None,
            provider_error_source=known.source if known else None,
            **details,
        )


def dedupe(violations: Iterable[Violation], key: Callable[[Violation], Hashable]) -> list[Violation]:
    """Keep the first violation per key; later ones become its `related` locations."""
    first: dict[Hashable, Violation] = {}
    later: dict[Hashable, list[str]] = {}
    for v in violations:
        k = key(v)
        if k not in first:
            first[k] = v
        else:
            later.setdefault(k, []).append(v.location)
    return [
        Violation(**{**v.__dict__, "related": (*v.related, *later[k])}) if k in later else v for k, v in first.items()
    ]
