"""Violation codes: the stable catalogue, and the violation record the rules emit.

The codes are a contract (docs/violations.md documents each one; the case schema's
`violationCode` vocabulary must list exactly these; the project's tests hold all three equal).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Code:
    code: str
    severity: Severity  # in the default profile
    title: str
    hint: str
    strict_severity: Severity = "error"


CODES: dict[str, Code] = {
    c.code: c
    for c in (
        Code(
            "pairing/orphan-result",
            "error",
            "A tool result answers no call",
            "Send each result with the id of a call that the preceding assistant turn carries; "
            "when history is cut, cut a call and its results together.",
        ),
        Code(
            "pairing/missing-result",
            "error",
            "A call in the history has no result",
            "Answer every call of an assistant turn before the next turn, or drop the call with its results.",
        ),
        Code(
            "pairing/duplicate-call-id",
            "error",
            "Two calls in one request share an id",
            "Keep the provider's id for each call; when generating ids, make them unique per conversation.",
        ),
        Code(
            "pairing/duplicate-result",
            "error",
            "A call is answered twice",
            "Send one result per call; check that a retry or replay does not append the result again.",
        ),
        Code(
            "pairing/call-dropped",
            "error",
            "A call was dropped from the history while its result was kept",
            "Serialize the call and its result together; when a call is skipped, skip its result too.",
        ),
        Code(
            "pairing/by-position",
            "error",
            "A result carries another call's output: results are paired by position, not by id",
            "Look results up by call id, never by their index among the calls; parallel results "
            "may come back in any order.",
        ),
        Code(
            "pairing/not-adjacent",
            "error",
            "A result is not where the API requires it relative to its call",
            "Put every result of an assistant turn's calls in the message (or messages) right after "
            "that turn, before any other user content; when reordering or trimming history, move a "
            "call and its results as one unit.",
        ),
        Code(
            "pairing/count-mismatch",
            "error",
            "A turn's id-less results do not match its calls in number",
            "Send exactly one function response per function call of the previous turn, each with "
            "its call's name, in the same order.",
        ),
        Code(
            "pairing/output-lost",
            "error",
            "A result answers its call but does not carry the output its tool returned",
            "Send each call's own output in its result, as the tool returned it; never a placeholder "
            "or an empty text in its place, and never the output of another call of the same tool.",
        ),
        Code(
            "pairing/output-reformatted",
            "warning",
            "A result carries its call's output, altered in form",
            "Send the output as the tool returned it: its quotes, escapes and spacing are part of it, and "
            "the model reads JSON it can parse.",
        ),
        Code(
            "pairing/calls-unanswered",
            "error",
            "The client stopped after a response that asked it for calls, and never sent their results",
            "Answer every call the provider serves, or send back a result saying why it could not run (an "
            "unsupported tool, an id seen before); never end the conversation with calls outstanding.",
        ),
        Code(
            "roundtrip/id-altered",
            "error",
            "A provider-issued id comes back changed",
            "Store the provider's id when decoding and send it back byte for byte.",
        ),
        Code(
            "roundtrip/empty-id",
            "error",
            "An empty id is sent where the provider issued one",
            "Keep the decoded id; never fall back to an empty string.",
        ),
        Code(
            "roundtrip/call-lost",
            "error",
            "A call the provider issued is missing from the history sent back",
            "Keep every call of the assistant turn in the history, each with its own id.",
        ),
        Code(
            "roundtrip/ids-swapped",
            "error",
            "The item id and the call id trade places",
            "Keep the two ids apart: the item id (fc_...) goes in `id`, the correlation id (call_...) "
            "in `call_id` and in its output's `call_id`.",
        ),
        Code(
            "roundtrip/opaque-dropped",
            "error",
            "An opaque field the provider issued with a call is not sent back unchanged",
            "Carry provider fields you do not interpret (Gemini thought_signature, Anthropic caller, OpenAI namespace) "
            "in the message model and send them back on the same part, byte for byte.",
        ),
        Code(
            "roundtrip/arguments-altered",
            "error",
            "A call goes back with other arguments than the provider issued",
            "Keep the arguments the model produced as they were decoded, and send them back unchanged "
            "(the same JSON value; re-spacing is harmless), on the call they belong to.",
        ),
        Code(
            "roundtrip/name-altered",
            "error",
            "A call goes back with another name than the provider issued, or none",
            "Keep the tool name the call was decoded with (the first delta of a stream carries it) and "
            "send it back on the call; never an empty name.",
        ),
        Code(
            "roundtrip/call-invented",
            "warning",
            "A call in the history that no response served",
            "Send back the calls the provider served, as served; keep calls of the adapter's own "
            "(examples, memory) in the history the conversation starts with, or out of it.",
        ),
        Code(
            "roundtrip/invented-id",
            "warning",
            "An id is sent for a call that had none on the wire",
            "Where the provider issued no id, send none; keep generated ids inside the adapter.",
        ),
        Code(
            "format/id-length",
            "error",
            "An id is longer or shorter than the target API accepts",
            "Pass ids through unchanged; when an id must cross to another API, map it to one that "
            "fits the target's limits, on the call and on its results alike.",
        ),
        Code(
            "format/id-pattern",
            "error",
            "An id has characters or a shape the target API rejects",
            "Map ids into the target API's grammar at the boundary, the same way on calls and results.",
        ),
        Code(
            "format/item-invalid",
            "error",
            "A tool call or tool result lacks a field its API requires, or has one of another type",
            "Send every call and result with the fields the API's request type requires (a tool_calls "
            "entry's `type`, a tool_use block's `input`), each of its type; keep what was decoded.",
        ),
        Code(
            "format/tools-undeclared",
            "error",
            "A request whose history holds tool calls or results declares no tools",
            "Send the tool definitions with every request whose history holds calls or results, even one "
            "where the model should call none (tool_choice none keeps it from calling them).",
        ),
        Code(
            "format/tools-dropped",
            "error",
            "A request leaves out a tool the client was given, which the response calls",
            "Declare every tool of the application in every request of its loop, under the name the "
            "model is to call it by; the provider calls no tool the request leaves out.",
        ),
        Code(
            "decode/empty-id",
            "error",
            "The decoder produced an empty id for a call that has one on the wire",
            "Read the call's id field; a missing id is not an empty one.",
        ),
        Code(
            "decode/id-mismatch",
            "error",
            "The decoder's id differs from the call's id on the wire",
            "Use the wire id as the neutral id; keep any other identifiers in extra fields.",
        ),
        Code(
            "decode/duplicate-id",
            "error",
            "The decoder gave two calls the same id",
            "Take each call's own id; where the wire has none, generate one per call.",
        ),
        Code(
            "decode/call-missing",
            "error",
            "The decoder lost a call of the response",
            "Decode every call entry of the response, not only the first or the last.",
        ),
        Code(
            "decode/arguments-mismatch",
            "error",
            "The decoder's arguments differ from the call's arguments on the wire",
            "Parse each call's own arguments field (JSON text for OpenAI-style APIs, an object for "
            "Anthropic, Gemini and Bedrock) into the call's arguments; keep text that is not JSON as text.",
        ),
        Code(
            "decode/unstable-id",
            "warning",
            "Decoding the same response twice gives different ids",
            "Derive generated ids from the response (e.g. its id and the call's position) so that "
            "replays and retries see the same ids.",
        ),
        Code(
            "decode/hybrid-id-split",
            "error",
            "A provider-run call and its served output were decoded under different ids",
            "Give a server tool's result the id of the call it belongs to (tool_use_id, or the hybrid item's own id).",
        ),
        Code(
            "encode/unstable-id",
            "error",
            "Encoding the same history twice gives different ids",
            "Mint ids deterministically from the history (a hash of the source id, or of the name and "
            "position for id-less calls), never from a counter, the clock or a random source.",
        ),
        Code(
            "stream/id-lost",
            "error",
            "A streamed call was reassembled without its id",
            "Take the id from the delta that opens the call (the first for its index) and keep it "
            "while later deltas append arguments.",
        ),
        Code(
            "stream/calls-merged",
            "error",
            "Several streamed calls were reassembled into fewer calls",
            "Accumulate deltas per call index (and start a new call when a new id arrives).",
        ),
        Code(
            "stream/arguments-garbled",
            "error",
            "A streamed call's arguments were reassembled into something else than its fragments",
            "Append each argument fragment to the call its delta names (by index, item id or block "
            "index), in order, and parse the joined text once the call is complete.",
        ),
        Code(
            "stream/call-split",
            "error",
            "One streamed call was reassembled into several calls",
            "Join deltas by index; a delta without an id continues the call of its index.",
        ),
    )
}


def severity_of(code: str, profile: str) -> Severity:
    spec = CODES[code]
    return spec.strict_severity if profile == "strict" else spec.severity


@dataclass(frozen=True)
class Violation:
    """One broken rule, located in the exchange, written for the adapter's author."""

    code: str
    severity: Severity
    location: str
    message: str
    expected: Any = None
    received: Any = None
    hint: str = ""
    diagnosis: str | None = None
    provider_error: str | None = None
    provider_error_source: str | None = None
    related: tuple[str, ...] = field(default=())  # further locations with the same fault

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unknown violation code {self.code!r}")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["related"] = list(self.related)
        # An empty text is a value here: `received: ""` is what an adapter sent as an id, not "nothing".
        values = ("expected", "received")
        return {k: v for k, v in data.items() if v is not None and (k in values or v not in ("", []))}
