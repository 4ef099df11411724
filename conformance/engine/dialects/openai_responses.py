"""OpenAI Responses (`POST /v1/responses`), and the dialects built on its items.

One reader for every Responses-shaped API: an API is a table of item kinds (`ITEMS`), keyed by the
item's `type`. Azure Foundry adds its server-run tool items; OpenResponses keeps only the function
items.

Ids: a call item carries two ids. `id` names the item itself (`fc_...`, what stream events call
`item_id`); `call_id` is the correlation id its output item echoes. Built-in tool items
(`web_search_call`, `mcp_call`, ...) have only `id`, which is then the correlation id, and carry
their own result. `mcp_approval_response` answers `mcp_approval_request` by its item id;
`local_shell_call_output` names its call in `call_id`, which the server matches; clients built on the
old types (the spec's properties, openai-python before #3923) put it in `id`, read when `call_id` is absent.

Requests: `input` is a string or a list of items; with `previous_response_id` or `conversation`
it holds only the new items, the rest being stored at the provider. The items the model produced
in one turn (reasoning, calls, the provider's own outputs, ending with its text) sit next to each
other, so a run of them reads as one assistant message; each client output is a message of its
own. Outputs may sit anywhere after their calls.

Streams: `response.output_item.added` carries the whole item with both ids; argument deltas carry
only `item_id` and `output_index`, and are joined to their item by `output_index`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from conformance.engine.dialects.base import DialectError, Placement
from conformance.engine.wire import History, Role, Served, WireCall, WireMessage, WireResult
from conformance.recordings.cassette import HttpRequest, HttpResponse
from conformance.recordings.sse import parse_events

API = "openai-responses"

Runner = Literal["client", "provider", "execution"]


@dataclass(frozen=True)
class ItemKind:
    """How one item `type` carries its ids."""

    wire_type: str  # the wire-type case id
    role: Literal["call", "output"]  # output: answers a call; call: everything else that has an id
    id_field: str  # calls: the correlation id; outputs: the field that names the call
    item_field: str | None = None  # calls: the item's own id, where it is not the correlation id
    answer: str | None = None  # calls: the item type that answers it; outputs: the call type answered
    # Who runs the call or produces the output: the client, the provider, or as `execution` says.
    runner: Runner = "client"
    alt_field: str | None = None  # outputs: a second field clients put the call's id in
    arguments: str | tuple[str, ...] | None = None  # the field (or fields) holding what the call asks
    # Fields of the arguments the provider fills in with what the call found (a web search's
    # `sources`, under `include`): part of the result, not of what was asked. A client may send the
    # item back without them (the provider accepts it), so they are not compared as arguments.
    served: tuple[str, ...] = ()


def kinds(api: str, table: Mapping[str, tuple[str, dict[str, Any]]]) -> dict[str, ItemKind]:
    """An item table: `type` -> (wire-type case name, ItemKind fields)."""
    out: dict[str, ItemKind] = {}
    for item_type, (name, spec) in table.items():
        spec = {"role": "call", "id_field": "call_id", **spec}
        out[item_type] = ItemKind(wire_type=f"{api}/{name}", **spec)
    return out


def function_items(api: str) -> dict[str, ItemKind]:
    """The item table of a server that speaks Responses with function calls only (Open Responses,
    Ollama's /v1/responses): `function_call` paired by `call_id`, answered by `function_call_output`."""
    return kinds(
        api,
        {
            "function_call": (
                "FunctionCall",
                {"item_field": "id", "answer": "function_call_output", "arguments": "arguments"},
            ),
            "function_call_output": ("FunctionCallOutput", {"role": "output", "answer": "function_call"}),
        },
    )


# A function-style call: its own item id beside a call_id, answered by an output item.
def _paired(answer: str, **more: Any) -> dict[str, Any]:
    return {"item_field": "id", "answer": answer, **more}


# A built-in tool item: one id, the provider runs it, its result travels inside it.
def _hybrid(**more: Any) -> dict[str, Any]:
    return {"id_field": "id", "runner": "provider", **more}


def _output(answers: str, **more: Any) -> dict[str, Any]:
    return {"role": "output", "answer": answers, **more}


ITEMS = kinds(
    API,
    {
        "function_call": (
            "FunctionToolCall",
            _paired("function_call_output", arguments="arguments"),
        ),
        "function_call_output": ("FunctionToolCallOutput", _output("function_call")),
        "custom_tool_call": (
            "CustomToolCall",
            _paired("custom_tool_call_output", arguments="input"),
        ),
        "custom_tool_call_output": ("CustomToolCallOutput", _output("custom_tool_call")),
        "computer_call": ("ComputerToolCall", _paired("computer_call_output", arguments="action")),
        "computer_call_output": ("ComputerToolCallOutput", _output("computer_call")),
        "local_shell_call": ("LocalShellToolCall", _paired("local_shell_call_output", arguments="action")),
        # The server matches `call_id` (openai-agents-python#1855); clients of the old types send `id`.
        "local_shell_call_output": (
            "LocalShellToolCallOutput",
            _output("local_shell_call", id_field="call_id", alt_field="id"),
        ),
        "shell_call": ("FunctionShellCall", _paired("shell_call_output", arguments="action")),
        "shell_call_output": ("FunctionShellCallOutput", _output("shell_call")),
        "apply_patch_call": (
            "ApplyPatchToolCall",
            _paired("apply_patch_call_output", arguments="operation"),
        ),
        "apply_patch_call_output": ("ApplyPatchToolCallOutput", _output("apply_patch_call")),
        "tool_search_call": (
            "ToolSearchCall",
            _paired("tool_search_output", runner="execution", arguments="arguments"),
        ),
        "tool_search_output": ("ToolSearchOutput", _output("tool_search_call", runner="execution")),
        # Programmatic tool calling: the provider runs the program; the calls it makes carry
        # caller.caller_id = its call_id, and its output may come in a later response.
        "program": (
            "Program",
            _paired("program_output", runner="provider", arguments=("code",)),
        ),
        "program_output": ("ProgramOutput", _output("program", runner="provider")),
        # The approval edge is keyed on the request's item id, not on a call_id.
        "mcp_approval_request": (
            "MCPApprovalRequest",
            {"id_field": "id", "answer": "mcp_approval_response", "arguments": "arguments"},
        ),
        "mcp_approval_response": (
            "MCPApprovalResponse",
            _output("mcp_approval_request", id_field="approval_request_id"),
        ),
        # WebSearchToolCall.Action(Search|OpenPage|Find) in openai-python's types: only `sources` is
        # the provider's ("the sources used in the search"); the rest is the action asked for.
        "web_search_call": ("WebSearchToolCall", _hybrid(arguments="action", served=("sources",))),
        "file_search_call": ("FileSearchToolCall", _hybrid(arguments=("queries",))),
        "code_interpreter_call": ("CodeInterpreterToolCall", _hybrid(arguments=("code",))),
        "image_generation_call": ("ImageGenToolCall", _hybrid()),
        "mcp_call": ("MCPToolCall", _hybrid(arguments="arguments")),
        "mcp_list_tools": ("MCPListTools", _hybrid(arguments=("server_label",))),
    },
)

# Items of the model's turn that carry no tool id: they join the run of the calls around them.
_ASSISTANT_ITEMS = ("reasoning", "item_reference", "compaction")
_ROLES: dict[str, Role] = {"user": "user", "system": "system", "developer": "system", "assistant": "assistant"}
_OUTPUT_VALUE = ("output", "result", "tools", "approve")


def _stored(body: dict[str, Any]) -> str | None:
    """The stored response or conversation a request continues, whose items the body leaves out."""
    conversation = body.get("conversation")
    if isinstance(conversation, dict):
        conversation = conversation.get("id")
    for value in (body.get("previous_response_id"), conversation):
        if isinstance(value, str) and value:
            return value
    return None


def _id(value: Any) -> str | None:
    return value if value is None or type(value) is str else str(value)


def _arguments(item: dict[str, Any], kind: ItemKind) -> Any:
    if item.get("type") == "computer_call" and "action" not in item and isinstance(item.get("actions"), list):
        # The GA computer tool batches actions (`actions`); the preview tool served one (`action`).
        # A batch of one is that action: clients of the GA tool send a preview call back that way.
        actions = item["actions"]
        return actions[0] if len(actions) == 1 else actions
    if isinstance(kind.arguments, str):
        value = item.get(kind.arguments)
        if kind.served and isinstance(value, dict):
            return {k: v for k, v in value.items() if k not in kind.served}
        return value
    if kind.arguments:
        return {f: item[f] for f in kind.arguments if f in item}
    return {}


def _text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "".join(p.get("text", "") for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))


def _placed(item_type: Any, item: dict[str, Any]) -> str:
    """Where a Responses input item without ids goes: a message by its role (the assistant's text
    ends the model's turn), reasoning and references within the turn, anything else apart."""
    if item_type in (None, "message"):
        role = _ROLES.get(str(item.get("role")), "other")
        return "turn-end" if role == "assistant" else role
    return "turn" if item_type in _ASSISTANT_ITEMS else "other"


@dataclass
class _Run:
    """Items of one model turn, read as one assistant message."""

    path: str
    calls: list[WireCall] = field(default_factory=list)
    results: list[WireResult] = field(default_factory=list)


@dataclass
class _Slot:
    """One output item of a stream, by output_index."""

    path: str
    item: dict[str, Any]
    pieces: list[str] = field(default_factory=list)


class ResponsesItems:
    """A Responses dialect; subclasses set the API, its item table and the hosts it serves."""

    api = API
    placement: Placement = "anywhere-after"
    call_type = f"{API}/FunctionToolCall"
    items: Mapping[str, ItemKind] = ITEMS
    hosts: tuple[str, ...] = ()  # host suffixes this dialect claims
    other_hosts: tuple[str, ...] = ()  # host suffixes claimed by another Responses dialect

    def handles(self, request: HttpRequest) -> bool:
        if request.method.upper() != "POST" or not request.path.rstrip("/").endswith("/responses"):
            return False
        host = request.host.lower()
        if self.hosts:
            return host.endswith(self.hosts)
        return not host.endswith(self.other_hosts)

    # --- reading items ---------------------------------------------------------------------
    def runs_by_provider(self, item: dict[str, Any], kind: ItemKind) -> bool:
        if kind.runner == "execution":
            return item.get("execution") == "server"
        return kind.runner == "provider"

    def call(self, item: dict[str, Any], kind: ItemKind, path: str, provider: bool) -> WireCall:
        item_id = _id(item.get(kind.item_field)) if kind.item_field else None
        return WireCall(
            _id(item.get(kind.id_field)),
            _id(item.get("name")) or str(item.get("type")),
            _arguments(item, kind),
            kind.wire_type,
            path,
            kind.id_field,
            item_id,
            kind.item_field or "id",
            provider_executed=provider,
            # What must come back besides the ids is the wire-type case's `returned_fields`, read by the rules.
            fields=item,
        )

    def result(self, item: dict[str, Any], kind: ItemKind, path: str, provider: bool) -> WireResult:
        field_name = kind.id_field
        if kind.alt_field and kind.id_field not in item and kind.alt_field in item:
            field_name = kind.alt_field
        called = self.items.get(kind.answer or "")
        output = None
        for key in _OUTPUT_VALUE:
            if key in item:
                output = item[key]
                break
        return WireResult(
            _id(item.get(field_name)),
            output,
            kind.wire_type,
            path,
            field_name,
            # Without a call_id (tool_search_output may have none) an output answers a call by name.
            _id(item.get("name")) or (kind.answer if called else None),
            provider,
        )

    # --- requests --------------------------------------------------------------------------
    def history(self, body: Any, where: str = "request") -> History:
        if not isinstance(body, dict):
            raise DialectError(where, "a Responses request is not an object")
        raw = body.get("input")
        continues = _stored(body)
        if raw is None:
            return History(messages=(), continues=continues)
        if isinstance(raw, str):
            return History(messages=(WireMessage(0, "user", f"{where}.input"),), continues=continues)
        if not isinstance(raw, list):
            raise DialectError(f"{where}.input", "input is neither a string nor a list of items")
        return self.items_history(raw, where, continues, "item", _placed)

    def items_history(
        self, raw: list[Any], where: str, continues: str | None, noun: str, placed: Callable[[Any, Any], str]
    ) -> History:
        """A history of items in order, the model's calls and the provider's outputs of one turn
        gathered into its assistant message. `placed(type, item)` says where an item without ids
        goes: a role of its own ("user", "system", "other"), "turn" (part of the model's turn) or
        "turn-end" (part of it, and the last: calls after it are a turn of their own)."""
        messages: list[WireMessage] = []
        run: _Run | None = None

        def close() -> None:
            nonlocal run
            if run is not None:
                messages.append(WireMessage(len(messages), "assistant", run.path, tuple(run.calls), tuple(run.results)))
                run = None

        def add(role: Role, path: str, results: tuple[WireResult, ...] = ()) -> None:
            close()
            messages.append(WireMessage(len(messages), role, path, (), results))

        for i, item in enumerate(raw):
            path = f"{where}.input[{i}]"
            if not isinstance(item, dict):
                raise DialectError(path, f"an input {noun} is not an object")
            item_type = item.get("type")
            kind = self.items.get(item_type) if isinstance(item_type, str) else None
            if kind is None:
                place = placed(item_type, item)
                if place in ("turn", "turn-end"):
                    run = run or _Run(path)
                    if place == "turn-end":
                        close()
                else:
                    add(place, path)  # type: ignore[arg-type]  # a role
                continue
            provider = self.runs_by_provider(item, kind)
            if kind.role == "output" and not provider:
                add("tool", path, (self.result(item, kind, path, False),))
                continue
            run = run or _Run(path)
            if kind.role == "call":
                run.calls.append(self.call(item, kind, path, provider))
            else:
                run.results.append(self.result(item, kind, path, True))
        close()
        return History(messages=tuple(messages), continues=continues)

    # --- responses -------------------------------------------------------------------------
    def served(self, response: HttpResponse, where: str = "response") -> Served:
        if response.is_event_stream:
            return self._served_stream(response, where)
        body = response.json()
        if not isinstance(body, dict) or not isinstance(body.get("output"), list):
            raise DialectError(where, "a Responses response needs an 'output' list")
        items = [(item, f"{where}.output[{k}]") for k, item in enumerate(body["output"])]
        calls, results, text = self._read_output(items)
        return Served(False, calls, text, {"stream": False, "body": body}, results)

    def _read_output(self, items: list[tuple[Any, str]]) -> tuple[tuple[WireCall, ...], tuple[WireResult, ...], str]:
        calls: list[WireCall] = []
        results: list[WireResult] = []
        text: list[str] = []
        for item, path in items:
            if not isinstance(item, dict):
                raise DialectError(path, "an output item is not an object")
            item_type = item.get("type")
            kind = self.items.get(item_type) if isinstance(item_type, str) else None
            if kind is None:
                if item_type == "message":
                    text.append(_text(item))
                continue
            if kind.role == "call":
                calls.append(self.call(item, kind, path, self.runs_by_provider(item, kind)))
            else:
                results.append(self.result(item, kind, path, True))
        # An output the provider served beside its call means the provider ran the call.
        answered = {r.call_id for r in results if r.call_id}
        calls = [c if c.call_id not in answered else _provider_run(c) for c in calls]
        return tuple(calls), tuple(results), "".join(text)

    def _served_stream(self, response: HttpResponse, where: str) -> Served:
        events = parse_events(response.body)
        slots: dict[int, _Slot] = {}
        notes: list[str] = []
        text: list[str] = []
        final: list[tuple[Any, str]] = []
        for event in events:
            data = event.data if isinstance(event.data, dict) else {}
            name = data.get("type") or event.event or ""
            at = f"event[{event.index}]"
            index = data.get("output_index")
            if name in ("response.output_item.added", "response.output_item.done"):
                item = data.get("item")
                if not isinstance(item, dict) or not isinstance(index, int):
                    notes.append(f"{at}: {name} without an item or an output_index")
                    continue
                slot = slots.get(index)
                if slot is None:
                    if name.endswith(".done"):
                        notes.append(f"{at}: output_index {index} is done without having been added")
                    slots[index] = _Slot(f"{where}.events[{event.index}].item", dict(item))
                    continue
                for key in ("id", "call_id"):
                    if key in slot.item and slot.item.get(key) and item.get(key) != slot.item.get(key):
                        notes.append(
                            f"{at}: output_index {index} is done with {key} {item.get(key)!r}, "
                            f"added as {slot.item.get(key)!r}"
                        )
                slot.item = {**item, **{k: slot.item[k] for k in ("id", "call_id") if slot.item.get(k)}}
                slot.pieces.clear()  # the done item is whole
            elif name.endswith(("_arguments.delta", "_input.delta")):
                slot = slots.get(index) if isinstance(index, int) else None
                if slot is None:
                    notes.append(f"{at}: {name} for output_index {index!r}, which no item opened")
                    continue
                if data.get("item_id") and slot.item.get("id") and data["item_id"] != slot.item["id"]:
                    notes.append(
                        f"{at}: {name} names item {data['item_id']!r}, but output_index {index} is {slot.item['id']!r}"
                    )
                if isinstance(data.get("delta"), str):
                    slot.pieces.append(data["delta"])
            elif name == "response.output_text.delta" and isinstance(data.get("delta"), str):
                text.append(data["delta"])
            elif name in ("response.completed", "response.incomplete", "response.failed"):
                output = (data.get("response") or {}).get("output")
                if isinstance(output, list):
                    final = [
                        (item, f"{where}.events[{event.index}].response.output[{k}]") for k, item in enumerate(output)
                    ]
        if slots:
            items = [(self._joined(slots[k]), slots[k].path) for k in sorted(slots)]
        else:
            items = final
            if final:
                notes.append("the stream announces no output items; read from its final response")
        calls, results, joined_text = self._read_output(items)
        payload = {"stream": True, "events": [{"event": e.event, "data": e.data} for e in events]}
        return Served(True, calls, "".join(text) or joined_text, payload, results, tuple(notes))

    def _joined(self, slot: _Slot) -> dict[str, Any]:
        if not slot.pieces:
            return slot.item
        kind = self.items.get(str(slot.item.get("type")))
        field_name = kind.arguments if kind and isinstance(kind.arguments, str) else "arguments"
        return {**slot.item, field_name: "".join(slot.pieces)}

    # --- stored responses -------------------------------------------------------------------
    def response_id(self, served: Served) -> str | None:
        """The id of a served response, which a later request's previous_response_id may name."""
        payload = served.payload
        if not payload.get("stream"):
            found = (payload.get("body") or {}).get("id")
            return found if isinstance(found, str) else None
        for event in payload.get("events") or []:
            data = event.get("data") if isinstance(event, dict) else None
            response = data.get("response") if isinstance(data, dict) else None
            if isinstance(response, dict) and isinstance(response.get("id"), str):
                return str(response["id"])
        return None

    # --- the rest of the contract ----------------------------------------------------------
    def result_type(self, call_wire_type: str) -> str | None:
        for kind in self.items.values():
            if kind.wire_type == call_wire_type and kind.role == "call":
                answer = self.items.get(kind.answer or "")
                return answer.wire_type if answer else None
        return None


def _provider_run(call: WireCall) -> WireCall:
    return replace(call, provider_executed=True)


class OpenAIResponses(ResponsesItems):
    other_hosts = ("services.ai.azure.com", "openai.azure.com", "cognitiveservices.azure.com", "ai-gateway.vercel.sh")
