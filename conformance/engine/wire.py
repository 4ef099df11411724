"""Wire items: what a dialect parses request and response bodies into, for the rules to read.

Every item keeps the JSON path it was found at, so that a violation can point at the byte that
is wrong (`request[1].messages[3].tool_call_id`). Items check their own types as they are made:
an id or a name that is not a string (an integer id, a `"function"` that is a string) is refused
there, at its path, so that no rule ever meets one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, dataclass_transform

from conformance.recordings.bounds import MAX_DEPTH, json_text_depth

Role = Literal["system", "user", "assistant", "tool", "other"]


class DialectError(ValueError):
    """A body that does not have the shape its dialect requires; `path` locates it."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"{path}: {message}")


def _kind(value: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", list: "a list", dict: "an object"}
    return names.get(type(value), f"a {type(value).__name__}")


def _text(value: Any, path: str, what: str, *, optional: bool = True) -> None:
    if isinstance(value, str) or (optional and value is None):
        return
    shown = repr(value) if isinstance(value, int | float | bool) else ""
    raise DialectError(path, f"{what} is {_kind(value)}{f' ({shown})' if shown else ''}, not a string")


_Item = TypeVar("_Item")


@dataclass_transform(frozen_default=True)
def _wire_item(cls: type[_Item]) -> type[_Item]:
    """Wire items are read-only: the type checker holds every use to that. At run time they are
    plain slotted dataclasses, because a long history builds hundreds of thousands of them and a
    frozen dataclass's `__init__` costs about three times as much (one `object.__setattr__` call
    per field)."""
    made: Callable[[type[_Item]], type[_Item]] = dataclass(slots=True)
    return made(cls)


@_wire_item
class WireCall:
    """A tool call as it stands on the wire."""

    call_id: str | None  # the correlation id (None where the wire has none)
    name: str | None
    arguments: Any  # the wire's own form: a JSON string for OpenAI, an object for Anthropic
    wire_type: str  # a wire-type case id, e.g. openai-chat/ChatCompletionMessageToolCall
    path: str  # JSON path of the call in its body
    id_field: str = "id"  # the field carrying call_id, relative to path
    item_id: str | None = None  # the item's own id where it differs from call_id (Responses)
    item_field: str = "id"  # the field carrying item_id, relative to path
    # Fields the provider issued that must come back byte for byte (Gemini thought_signature,
    # Anthropic caller), keyed by their path relative to `path`.
    opaque: Mapping[str, Any] = field(default_factory=dict)
    # Run by the provider (server tools, hybrid items): no client result answers it.
    provider_executed: bool = False
    # Opaque fields the serving model takes the call back without: dropping one loses the model's
    # state, but the provider does not refuse the request (Gemini before 3 and thoughtSignature).
    optional_opaque: tuple[str, ...] = ()
    # The item (or block) as it stands on the wire, where the API's wire-type cases name fields of it
    # that must come back (`returned_fields`): the rules read those from the case data, not the dialect.
    # Not part of the call's identity: two readings of one call compare equal whatever else the item holds.
    fields: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        # A long history builds one of these per call: the common, valid case costs a few type tests.
        call_id, name, item_id, arguments = self.call_id, self.name, self.item_id, self.arguments
        if call_id is not None and type(call_id) is not str:
            _text(call_id, self.id_path, "the call id")
        if name is not None and type(name) is not str:
            _text(name, f"{self.path}.name", "the tool name")
        if item_id is not None and type(item_id) is not str:
            _text(item_id, self.item_path, "the item id")
        # Nesting deeper than MAX_DEPTH needs more than MAX_DEPTH characters.
        if type(arguments) is str and len(arguments) > MAX_DEPTH and json_text_depth(arguments) > MAX_DEPTH:
            raise DialectError(f"{self.path}.arguments", f"the arguments nest deeper than {MAX_DEPTH} levels")
        if type(self.opaque) is not dict and not isinstance(self.opaque, Mapping):
            raise DialectError(self.path, "the call's opaque fields are not a mapping")

    @property
    def id_path(self) -> str:
        return f"{self.path}.{self.id_field}"

    @property
    def item_path(self) -> str:
        return f"{self.path}.{self.item_field}"


@_wire_item
class WireResult:
    """A tool result as it stands on the wire."""

    call_id: str | None
    output: Any
    wire_type: str
    path: str
    id_field: str = "tool_call_id"
    name: str | None = None  # the wire's function name, where it has one (Gemini pairs by name)
    provider_executed: bool = False  # a server tool's result, served inside the assistant turn

    def __post_init__(self) -> None:
        call_id, name = self.call_id, self.name
        if call_id is not None and type(call_id) is not str:
            _text(call_id, self.id_path, "the result's call id")
        if name is not None and type(name) is not str:
            _text(name, f"{self.path}.name", "the result's tool name")

    @property
    def id_path(self) -> str:
        return f"{self.path}.{self.id_field}"


@_wire_item
class WireMessage:
    """One message (or item) of a request's history."""

    index: int
    role: Role
    path: str
    calls: tuple[WireCall, ...] = ()
    results: tuple[WireResult, ...] = ()


@dataclass(frozen=True)
class History:
    """A request body, parsed: its messages in order."""

    messages: tuple[WireMessage, ...]
    # The stored response or conversation the request continues (OpenAI Responses
    # previous_response_id, conversation): the calls and results before it are not in the body.
    continues: str | None = None

    def calls(self) -> list[WireCall]:
        return [c for m in self.messages for c in m.calls]

    def results(self) -> list[WireResult]:
        return [r for m in self.messages for r in m.results]


@dataclass(frozen=True)
class Served:
    """A response as served: its calls after stream reassembly, and the payload a codec decodes."""

    stream: bool
    calls: tuple[WireCall, ...]
    text: str
    payload: dict[str, Any]  # {"stream": False, "body": ...} or {"stream": True, "events": [...]}
    results: tuple[WireResult, ...] = field(default=())  # server-tool results served with their calls
    notes: tuple[str, ...] = field(default=())  # oddities seen while reassembling
