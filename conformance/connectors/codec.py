"""The codec connector: the suite plays the tool loop, the adapter's codec translates.

For each recorded response: the codec encodes the conversation so far into a request, the
response is served, the codec decodes it, and the suite answers every decoded call with the
scenario's canned output under the call's own id.

A history begun on another API (cross-provider scenarios) reaches the encoder one of two ways.
Chained: when the adapter has a codec for that API and the scenario names the history's own
cassette, the adapter's decoder reads those responses and the suite answers their calls, so
whatever the decoder puts in an id (a signature, a provider prefix, a composite) is what the
other API's encoder is given. Otherwise the history is built from the scenario's declared turns,
as that API's decoder should have given it.
"""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from conformance.connectors.contract import Codec
from conformance.corpus.loading import ExpectedCall, ExpectedTurn, Scenario
from conformance.engine.dialects import dialect_for
from conformance.engine.dialects.base import Dialect
from conformance.engine.exchange import Exchange, Turn
from conformance.engine.faults import describe, passes_through
from conformance.engine.faults import short_traceback as short_traceback  # where the runner and older callers import it
from conformance.engine.neutral import Conversation, Message, Part, ToolCallPart, tool_calls, user
from conformance.recordings.bounds import MAX_DEPTH, json_text_depth
from conformance.recordings.cassette import Cassette


class AdapterFault(Exception):
    """The adapter raised, or returned something that is not what the contract asks for."""

    def __init__(self, phase: str, turn: int, summary: str, detail: str = "") -> None:
        self.phase = phase
        self.turn = turn
        self.summary = summary
        self.detail = detail
        super().__init__(f"{phase} of turn {turn}: {summary}")


def _copy(value: Any) -> Any:
    """A private copy for the adapter, so it cannot change what the harness keeps. The data is the
    suite's own plain JSON (the conversation, a recorded response), which a pickle round trip copies
    as it is, twice as fast as a JSON one and several times faster than deepcopy."""
    try:
        return pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    except (TypeError, ValueError, pickle.PicklingError):
        return copy.deepcopy(value)


def _call(phase: str, turn: int, fn: Any, arg: Any, passes: Callable[[BaseException], bool] = passes_through) -> Any:
    try:
        return fn(_copy(arg))
    except BaseException as exc:  # the adapter's fault (SystemExit and its own classes too), reported as an outcome
        if passes(exc):
            raise
        raise AdapterFault(phase, turn, describe(exc), short_traceback(exc)) from exc


def _plain_json(value: Any, phase: str, turn: int, what: str) -> Any:
    """A copy of what the adapter returned in plain JSON types, so that no object of the adapter's
    (a str subclass, an `__eq__` that raises) reaches the harness; anything else is the adapter's fault."""
    try:
        text = json.dumps(value)
    except RecursionError:
        raise AdapterFault(phase, turn, f"returned {what} nesting deeper than {MAX_DEPTH} levels") from None
    except BaseException as exc:  # a hostile object's methods run inside dumps
        if passes_through(exc):
            raise
        raise AdapterFault(phase, turn, f"returned {what} that is not JSON data: {describe(exc)}") from None
    if json_text_depth(text) > MAX_DEPTH:
        raise AdapterFault(phase, turn, f"returned {what} nesting deeper than {MAX_DEPTH} levels")
    return json.loads(text)


_TYPE_WORDS = {
    type(None): "null",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "an object",
}


def _kind(value: Any) -> str:
    return _TYPE_WORDS.get(type(value), "an object")


_PART_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    # type -> {field: the types it may have}; required fields are below
    "text": {"text": (str,)},
    "tool_call": {
        "name": (str,),
        "call_id": (str, type(None)),
        "arguments": (dict, str),  # an object, or the wire's text where it is not JSON
        "wire_type": (str,),
        "extra": (dict,),
        "provider_executed": (bool,),
    },
    "tool_result": {
        "call_id": (str, type(None)),
        "name": (str, type(None)),
        "wire_type": (str,),
        "extra": (dict,),
        "provider_executed": (bool,),
    },
}
_REQUIRED = {
    "text": (("text", "a text"),),
    "tool_call": (("name", "a name"), ("arguments", "arguments")),
    "tool_result": (("output", "an output"),),
}


def _part_problem(part: Any) -> str | None:
    """What is wrong with one part of a decoded message, in words; None when nothing is."""
    if not isinstance(part, dict):
        return f"a part that is {_kind(part)}, not an object"
    kind = part.get("type")
    if not isinstance(kind, str) or kind not in _PART_FIELDS:
        shown = repr(kind[:80]) if isinstance(kind, str) else _kind(kind)
        return f"a part of unknown type {shown} (known: {', '.join(_PART_FIELDS)})"
    for name, phrase in _REQUIRED[kind]:
        if name not in part or (name == "name" and part[name] is None):
            return f"a {kind} part without {phrase}"
    for name, allowed in _PART_FIELDS[kind].items():
        if name in part and not isinstance(part[name], allowed):
            wanted = " or ".join(_TYPE_WORDS[t] for t in allowed)
            return f"a {kind} part whose {name} is {_kind(part[name])}, not {wanted}"
    return None


def check_message(message: Any, turn: int, *, parsed: bool = False) -> Message:
    """A decoded message in plain JSON types and the neutral shape, or the adapter's fault, in words.
    `parsed`: the message was read from JSON text within the depth bound (a worker's answer), so it
    is plain JSON already and only its shape is checked."""
    plain = message if parsed else _plain_json(message, "decode", turn, "a message")
    if not isinstance(plain, dict) or not isinstance(plain.get("parts"), list):
        shown = type(message).__name__ if not isinstance(message, dict) else "a dict without a 'parts' list"
        raise AdapterFault("decode", turn, f"returned {shown}, not a Message dict with 'parts'")
    if plain.get("role") != "assistant":
        raise AdapterFault(
            "decode", turn, f"returned a message whose role is {plain.get('role')!r}; a response decodes to 'assistant'"
        )
    for k, part in enumerate(plain["parts"]):
        problem = _part_problem(part)
        if problem is not None:
            raise AdapterFault("decode", turn, f"returned {problem} (parts[{k}])")
    checked: Message = plain  # type: ignore[assignment]  # its shape was checked above
    return checked


def check_body(body: Any, turn: int, *, parsed: bool = False) -> dict[str, Any]:
    """An encoded body as a plain JSON object, or the adapter's fault, in words (`parsed` as for
    check_message)."""
    if not isinstance(body, dict):
        raise AdapterFault("encode", turn, f"returned {type(body).__name__}, not a JSON object")
    plain: dict[str, Any] = body if parsed else _plain_json(body, "encode", turn, "a body")
    return plain


def _canned(call: ToolCallPart, expected: list[ExpectedCall], used: set[int], position: int) -> ExpectedCall | None:
    """The scenario's call a decoded call stands for: by id, else by name and arguments, else by
    name, else by position. Arguments come before a bare name so that a decoder that kept only the
    second of two same-name calls is answered with that call's output, not the first one's."""
    arguments = call.get("arguments")
    tests: tuple[Callable[[ExpectedCall], bool], ...] = (
        lambda c: c.id is not None and c.id == call.get("call_id"),
        lambda c: c.name == call.get("name") and dict(c.arguments) == arguments,
        lambda c: c.name == call.get("name"),
    )
    for test in tests:
        for i, candidate in enumerate(expected):
            if i not in used and test(candidate):
                used.add(i)
                return candidate
    if position < len(expected) and position not in used:
        used.add(position)
        return expected[position]
    return None


def answers(message: Message, scenario: Scenario, turn: int, result_type: Any) -> list[Part]:
    return answer_turn(message, scenario.turns, turn, result_type, reverse=scenario.answer_order == "reversed")


def answer_turn(
    message: Message, turns: tuple[ExpectedTurn, ...], turn: int, result_type: Any, *, reverse: bool
) -> list[Part]:
    """The harness's results for a decoded turn: each call's canned output under its own id. A call
    whose run was interrupted before its tool answered gets none."""
    expected = [c for c in turns[turn].calls if not c.provider_executed] if turn < len(turns) else []
    used: set[int] = set()
    parts: list[Part] = []
    client_calls = [c for c in tool_calls(message) if not c.get("provider_executed")]
    for position, call in enumerate(client_calls):
        match = _canned(call, expected, used, position)
        if match is not None and match.interrupted:
            continue
        output = match.output if match else json.dumps({"error": "no canned output for this call"})
        parts.append(
            {
                "type": "tool_result",
                "call_id": call.get("call_id"),
                "name": call.get("name"),
                "output": output,
                "wire_type": result_type(call.get("wire_type", "")) or "",
            }
        )
    if reverse:
        parts.reverse()
    return parts


def prior_messages(scenario: Scenario) -> list[Message]:
    """A history begun on another API, as that API's decoder would have given it."""
    if scenario.history is None:
        return []
    source = dialect_for(scenario.history.api)
    messages: list[Message] = []
    for turn in scenario.history.turns:
        messages.extend(_prior_turn(turn, source, scenario.answer_order == "reversed"))
    return messages


def _prior_turn(turn: ExpectedTurn, source: Dialect, reverse: bool) -> list[Message]:
    if not turn.calls:
        return [{"role": "assistant", "parts": [{"type": "text", "text": turn.text or ""}]}]
    parts: list[Part] = []
    for call in turn.calls:
        wire_type = call.wire_type or source.call_type
        part: ToolCallPart = {
            "type": "tool_call",
            "call_id": call.id,
            "name": call.name,
            "arguments": dict(call.arguments),
            "wire_type": wire_type,
        }
        if call.extra:
            part["extra"] = dict(call.extra)
        if call.provider_executed:
            part["provider_executed"] = True
        parts.append(part)
        result_type = source.result_type(wire_type)
        if call.provider_executed and result_type:
            parts.append(
                {
                    "type": "tool_result",
                    "call_id": call.id,
                    "name": call.name,
                    "output": call.output,
                    "wire_type": result_type,
                    "provider_executed": True,
                }
            )
    results: list[Part] = [
        {
            "type": "tool_result",
            "call_id": call.id,
            "name": call.name,
            "output": call.output,
            "wire_type": source.result_type(call.wire_type or source.call_type) or "",
        }
        for call in turn.client_calls
    ]
    if reverse:
        results.reverse()
    turn_messages: list[Message] = [{"role": "assistant", "parts": parts}]
    if results:
        turn_messages.append({"role": "tool", "parts": results})
    return turn_messages


@dataclass(frozen=True)
class PlayedHistory:
    """A history begun on another API, played through the adapter's own codec for that API."""

    codec: Codec
    cassette: Cassette
    dialect: Dialect


@dataclass
class _Decoded:
    turns: list[Turn] = field(default_factory=list)
    decoded: list[Any] = field(default_factory=list)
    redecoded: list[Any] = field(default_factory=list)


def _play_history(
    scenario: Scenario, played: PlayedHistory, passes: Callable[[BaseException], bool]
) -> tuple[list[Message], _Decoded]:
    """The history's responses decoded by the adapter, each turn's calls answered by the harness."""
    assert scenario.history is not None
    messages: list[Message] = []
    record = _Decoded()
    reverse = scenario.answer_order == "reversed"
    for interaction in played.cassette:
        i = interaction.index
        served = played.dialect.served(interaction.response, f"history.response[{i}]")
        message = check_message(_call("history decode", i, played.codec.decode, served.payload, passes), i)
        again = check_message(_call("history decode", i, played.codec.decode, served.payload, passes), i)
        record.turns.append(Turn(index=i, request=None, served=served))
        record.decoded.append(message)
        record.redecoded.append(again)
        messages.append(message)
        results = answer_turn(message, scenario.history.turns, i, played.dialect.result_type, reverse=reverse)
        if results:
            messages.append({"role": "tool", "parts": results})
    return messages, record


def run_codec(
    codec: Codec,
    scenario: Scenario,
    cassette: Cassette,
    dialect: Dialect,
    history: PlayedHistory | None = None,
    passes: Callable[[BaseException], bool] = passes_through,
) -> Exchange:
    """The scenario's tool loop through the codec. `passes` says which exceptions from the codec end the
    run rather than become its fault: in the suite's own process an interrupt is the person's Ctrl-C;
    in an adapter's worker process it is only something the adapter raised."""
    prior = _Decoded()
    if history is not None and scenario.history is not None:
        begun, prior = _play_history(scenario, history, passes)
    else:
        begun = prior_messages(scenario)
    conversation: Conversation = {
        "api": scenario.api,
        "model": scenario.model,
        "stream": scenario.stream,
        "tools": [dict(t) for t in scenario.tools],  # type: ignore[misc]
        "messages": [user(scenario.prompt), *begun],
    }
    if (scenario.data.get("session") or {}).get("previous_response_id"):
        conversation["store"] = True
    turns: list[Turn] = []
    decoded: list[Any] = []
    redecoded: list[Any] = []
    for interaction in cassette:
        i = interaction.index
        served = dialect.served(interaction.response, f"response[{i}]")
        prompt = scenario.turns[i].prompt if i < len(scenario.turns) else None
        if prompt:
            conversation["messages"].append(user(prompt))  # a new run of the session begins
        body = check_body(_call("encode", i, codec.encode, conversation, passes), i)
        # Encoded again from the same conversation: ids minted by the adapter must not change.
        again_body = check_body(_call("encode", i, codec.encode, conversation, passes), i)
        try:
            recorded = interaction.request.json()
        except ValueError:
            recorded = None
        turns.append(Turn(index=i, request=body, served=served, expected_request=recorded, request_again=again_body))
        message = check_message(_call("decode", i, codec.decode, served.payload, passes), i)
        again = check_message(_call("decode", i, codec.decode, served.payload, passes), i)
        decoded.append(message)
        redecoded.append(again)
        conversation["messages"].append(message)
        results = answers(message, scenario, i, dialect.result_type)
        if results:
            conversation["messages"].append({"role": "tool", "parts": results})
    return Exchange(
        api=scenario.api,
        turns=tuple(turns),
        decoded=tuple(decoded),
        redecoded=tuple(redecoded),
        history_api=scenario.history.api if prior.turns and scenario.history else None,
        history_turns=tuple(prior.turns),
        history_decoded=tuple(prior.decoded),
        history_redecoded=tuple(prior.redecoded),
    )
