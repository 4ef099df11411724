"""Gemini Interactions (`POST /v1beta/interactions` on generativelanguage.googleapis.com; google-genai 3.6.1).

An interaction is a list of typed steps, in the response (`steps`) and in a request that sends the
history itself (`input`, a list of steps). A `function_call` step carries the call's `id`, `name` and
`arguments` (an object); the `function_result` step answering it names it in `call_id`. A
`signature` served on the call step goes back with it (js-genai's Interactions client declares one
there; google-genai 3.6.1's model does not, and keeps it as an extra field). Server steps
come in pairs the provider runs and serves together: `<tool>_call` with an `id` and `<tool>_result`
naming it in `call_id` (code execution, URL context, Google Search, Google Maps, file search, MCP
server tools, tool search, retrieval, processing). Each server step but the MCP pair may carry a
`signature`, which must go back unchanged (the wire-type cases' `returned_fields`). A server step has no tool
name of its own, so its pair goes by the call step's type (`google_search_call`); an MCP call by its
`name`.

Requests: `input` is a string, one content, a list of contents (one user turn) or a list of steps.
With `previous_interaction_id` the server holds the steps before; the body carries only the new
ones. In a list of steps, `user_input` is the user's turn; `thought`, the calls and the server
results are the model's turn, which `model_output` (its text) ends; each `function_result` is a
result of its own. Results may sit anywhere after their calls: no source says the server asks more.

Responses: the steps of the interaction; a response may begin with the `user_input` steps it was
given, which are skipped. Streams are named server-sent events whose data carry `event_type`:
`step.start` opens step `index` with the step itself, `step.delta` adds to it (`arguments_delta`
carries a function call's arguments as JSON text, in pieces; `text` the model's text;
`thought_signature` a signature), `step.stop` closes it; `interaction.created` and
`interaction.completed` carry the interaction's id.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from conformance.engine.dialects.base import DialectError, Placement
from conformance.engine.dialects.openai_responses import ResponsesItems, kinds
from conformance.engine.wire import History, Served, WireCall, WireMessage, WireResult
from conformance.recordings.cassette import HttpRequest, HttpResponse
from conformance.recordings.sse import parse_events

API = "gemini-interactions"
SIGNATURE = "signature"

# The server-run pairs: call step type -> (wire-type name stem, the field its arguments travel in).
# Which of them carry a signature that must go back is the wire-type cases' `returned_fields`.
SERVER_STEPS: dict[str, tuple[str, str | None]] = {
    "code_execution_call": ("CodeExecution", "arguments"),
    "url_context_call": ("URLContext", "arguments"),
    "google_search_call": ("GoogleSearch", "arguments"),
    "google_maps_call": ("GoogleMaps", "arguments"),
    "file_search_call": ("FileSearch", None),
    "mcp_server_tool_call": ("MCPServerTool", "arguments"),
    "tool_search_call": ("ToolSearch", "arguments"),
    "retrieval_call": ("Retrieval", "arguments"),
    "processing_call": ("Processing", None),
}


def result_type_of(call_type: str) -> str:
    return call_type[: -len("_call")] + "_result"


def _table() -> dict[str, tuple[str, dict[str, Any]]]:
    table: dict[str, tuple[str, dict[str, Any]]] = {
        "function_call": (
            "FunctionCallStep",
            {"id_field": "id", "answer": "function_result", "arguments": "arguments"},
        ),
        "function_result": ("FunctionResultStep", {"role": "output", "answer": "function_call"}),
    }
    for call_type, (stem, arguments) in SERVER_STEPS.items():
        table[call_type] = (
            f"{stem}CallStep",
            {
                "id_field": "id",
                "runner": "provider",
                "answer": result_type_of(call_type),
                "arguments": arguments,
            },
        )
        table[result_type_of(call_type)] = (
            f"{stem}ResultStep",
            {"role": "output", "runner": "provider", "answer": call_type},
        )
    return table


ITEMS = kinds(API, _table())

HOSTS = ("generativelanguage.googleapis.com",)
_CONTENT_TYPES = ("text", "image", "audio", "document", "video")
_MODEL_STEPS = ("thought",)  # steps of the model's turn that carry no tool id


@dataclass
class _Slot:
    """One step of a stream, by index."""

    path: str
    step: dict[str, Any]
    pieces: list[str] = field(default_factory=list)


def _placed(step_type: Any, step: dict[str, Any]) -> str:
    """Where a step without ids goes: the user's input apart, the model's output within its turn (its
    text ends the turn), anything else apart."""
    if step_type == "user_input" or step_type in _CONTENT_TYPES:
        return "user"
    if step_type == "model_output":
        return "turn-end"
    return "turn" if step_type in _MODEL_STEPS else "other"


class GeminiInteractions(ResponsesItems):
    api = API
    placement: Placement = "anywhere-after"
    call_type = f"{API}/FunctionCallStep"
    items = ITEMS
    hosts = HOSTS
    continuation_field = "previous_interaction_id"

    def handles(self, request: HttpRequest) -> bool:
        return request.method.upper() == "POST" and request.path.rstrip("/").endswith("/interactions")

    # --- requests --------------------------------------------------------------------------
    def history(self, body: Any, where: str = "request") -> History:
        if not isinstance(body, dict):
            raise DialectError(where, "an Interactions request is not an object")
        raw = body.get("input")
        previous = body.get("previous_interaction_id")
        continues = previous if isinstance(previous, str) and previous else None
        if raw is None:
            return History(messages=(), continues=continues)
        if isinstance(raw, str | dict):
            return History(messages=(WireMessage(0, "user", f"{where}.input"),), continues=continues)
        if not isinstance(raw, list):
            raise DialectError(f"{where}.input", "input is neither a string, a content nor a list")
        if raw and all(isinstance(s, dict) and s.get("type") in _CONTENT_TYPES for s in raw):
            return History(messages=(WireMessage(0, "user", f"{where}.input"),), continues=continues)
        return self.items_history(raw, where, continues, "step", _placed)

    # --- responses -------------------------------------------------------------------------
    def served(self, response: HttpResponse, where: str = "response") -> Served:
        if response.is_event_stream:
            return self._served_steps_stream(response, where)
        body = response.json()
        if not isinstance(body, dict):
            raise DialectError(where, "an Interaction is not an object")
        steps = body.get("steps")
        if steps is None:
            steps = []
        if not isinstance(steps, list):
            raise DialectError(f"{where}.steps", "steps is not a list")
        calls, results, text = self._read_steps([(s, f"{where}.steps[{k}]") for k, s in enumerate(steps)])
        return Served(False, calls, text, {"stream": False, "body": body}, results)

    def _read_steps(self, steps: list[tuple[Any, str]]) -> tuple[tuple[WireCall, ...], tuple[WireResult, ...], str]:
        calls: list[WireCall] = []
        results: list[WireResult] = []
        text: list[str] = []
        for step, path in steps:
            if not isinstance(step, dict):
                raise DialectError(path, "a step is not an object")
            step_type = step.get("type")
            kind = self.items.get(step_type) if isinstance(step_type, str) else None
            if kind is None:
                if step_type == "model_output":
                    text.append(_text(step.get("content")))
                continue
            provider = self.runs_by_provider(step, kind)
            if kind.role == "call":
                calls.append(self.call(step, kind, path, provider))
            elif provider:  # a client's own result echoed with its input is not served
                results.append(self.result(step, kind, path, True))
        return tuple(calls), tuple(results), "".join(text)

    def _served_steps_stream(self, response: HttpResponse, where: str) -> Served:
        events = parse_events(response.body)
        slots: dict[int, _Slot] = {}
        notes: list[str] = []
        text: list[str] = []
        final: list[tuple[Any, str]] = []
        for event in events:
            data = event.data if isinstance(event.data, dict) else {}
            name = data.get("event_type") or event.event or ""
            at = f"event[{event.index}]"
            index = data.get("index")
            if name == "step.start":
                step = data.get("step")
                if not isinstance(step, dict) or not isinstance(index, int):
                    notes.append(f"{at}: step.start without a step or an index")
                    continue
                if index in slots:
                    notes.append(f"{at}: step {index} starts twice")
                slots[index] = _Slot(f"{where}.events[{event.index}].step", dict(step))
            elif name == "step.delta":
                delta = data.get("delta")
                slot = slots.get(index) if isinstance(index, int) else None
                if not isinstance(delta, dict):
                    continue
                if slot is None:
                    notes.append(f"{at}: step.delta for index {index!r}, which no step.start opened")
                    continue
                self._add_delta(slot, delta, text)
            elif name == "interaction.completed":
                interaction = data.get("interaction")
                steps = interaction.get("steps") if isinstance(interaction, dict) else None
                if isinstance(steps, list):
                    final = [(s, f"{where}.events[{event.index}].interaction.steps[{k}]") for k, s in enumerate(steps)]
        items = [(self._joined_step(slots[k]), slots[k].path) for k in sorted(slots)] if slots else final
        calls, results, joined = self._read_steps(items)
        payload = {"stream": True, "events": [{"event": e.event, "data": e.data} for e in events]}
        return Served(True, calls, "".join(text) or joined, payload, results, tuple(notes))

    def _add_delta(self, slot: _Slot, delta: dict[str, Any], text: list[str]) -> None:
        kind = delta.get("type")
        if kind == "arguments_delta":
            if isinstance(delta.get("arguments"), str):
                slot.pieces.append(delta["arguments"])
        elif kind == "text":
            if isinstance(delta.get("text"), str) and slot.step.get("type") == "model_output":
                text.append(delta["text"])
        elif kind == "thought_signature":
            if delta.get(SIGNATURE) is not None:
                slot.step[SIGNATURE] = delta[SIGNATURE]
        elif kind == slot.step.get("type"):
            # A server step's delta carries the step's own fields (arguments, result, signature).
            slot.step.update({k: v for k, v in delta.items() if k != "type"})

    def _joined_step(self, slot: _Slot) -> dict[str, Any]:
        if not slot.pieces:
            return slot.step
        joined = "".join(slot.pieces)
        try:
            arguments: Any = json.loads(joined)
        except ValueError:
            arguments = joined  # compared as text: a stream cut before its arguments closed
        return {**slot.step, "arguments": arguments}

    # --- stored interactions ----------------------------------------------------------------
    def response_id(self, served: Served) -> str | None:
        """The id of a served interaction, which a later request's previous_interaction_id may name."""
        payload = served.payload
        if not payload.get("stream"):
            found = (payload.get("body") or {}).get("id")
            return found if isinstance(found, str) else None
        for event in payload.get("events") or []:
            data = event.get("data") if isinstance(event, dict) else None
            interaction = data.get("interaction") if isinstance(data, dict) else None
            if isinstance(interaction, dict) and isinstance(interaction.get("id"), str):
                return str(interaction["id"])
        return None


def _text(content: Any) -> str:
    parts = content if isinstance(content, list) else []
    return "".join(
        p["text"] for p in parts if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
    )
