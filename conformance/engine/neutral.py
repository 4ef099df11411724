"""The neutral message model that codecs translate to and from.

Plain JSON-serialisable data, so that an out-of-process adapter can speak it too:

    Message  = {"role": "user" | "assistant" | "tool" | "system", "parts": [Part, ...], "extra"?: {...}}
    Part     = {"type": "text", "text": str}
             | {"type": "tool_call", "call_id": str | None, "name": str, "arguments": object,
                "wire_type": str, "extra": {...}}
             | {"type": "tool_result", "call_id": str | None, "name": str | None, "output": str,
                "wire_type": str, "extra": {...}}

`extra` carries opaque fields that must round-trip (Gemini `thought_signature`, Anthropic
`caller`); a message's own `extra` what the provider issued with the whole turn (the OpenAI
Responses response id a stored session continues). A `tool` message holds the results of one
assistant turn's calls. A call the provider ran itself (a server tool, a hybrid item) has
`provider_executed: true`, and its result, when the wire has a separate one, sits in the same
assistant message; the harness does not answer it.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict, cast


class TextPart(TypedDict):
    type: Literal["text"]
    text: str


class ToolCallPart(TypedDict):
    type: Literal["tool_call"]
    call_id: str | None
    name: str
    arguments: Any
    wire_type: NotRequired[str]
    extra: NotRequired[dict[str, Any]]
    provider_executed: NotRequired[bool]


class ToolResultPart(TypedDict):
    type: Literal["tool_result"]
    call_id: str | None
    name: NotRequired[str | None]
    output: Any  # text for client results; the provider's content for server-tool results
    wire_type: NotRequired[str]
    extra: NotRequired[dict[str, Any]]
    provider_executed: NotRequired[bool]


Part = TextPart | ToolCallPart | ToolResultPart


class Message(TypedDict):
    role: Literal["system", "user", "assistant", "tool"]
    parts: list[Part]
    # What the provider issued with the whole turn and a later request may name (the OpenAI
    # Responses response id, which previous_response_id continues).
    extra: NotRequired[dict[str, Any]]


class ToolSpec(TypedDict):
    name: str
    description: NotRequired[str]
    parameters: NotRequired[dict[str, Any]]  # every function tool has them; a custom (free-form) tool has none
    type: NotRequired[Literal["function", "custom"]]
    # Who may call it besides the model (Anthropic programmatic tool calling: code_execution_20250825).
    allowed_callers: NotRequired[list[str]]


class Conversation(TypedDict):
    """What `encode` receives: everything needed to build the next request."""

    api: str
    model: str
    stream: bool
    tools: list[ToolSpec]
    messages: list[Message]
    # The provider keeps the session's responses (OpenAI Responses `store: true`): a request may
    # continue the last one by its id (previous_response_id) and send only what came after it.
    store: NotRequired[bool]


def tool_calls(message: Any) -> list[ToolCallPart]:
    """The tool_call parts of a decoded message, tolerating malformed adapter output."""
    if not isinstance(message, dict):
        return []
    parts = message.get("parts")
    if not isinstance(parts, list):
        return []
    return [cast(ToolCallPart, p) for p in parts if isinstance(p, dict) and p.get("type") == "tool_call"]


def text_of(message: Message) -> str:
    """The text of a message, its text parts joined: what a library's own message type holds as content."""
    return "".join(str(p.get("text", "")) for p in message["parts"] if p["type"] == "text")


def user(text: str) -> Message:
    return {"role": "user", "parts": [{"type": "text", "text": text}]}
