"""The suite's closing answer: a final text turn after a recording that ends on the provider's calls.

Many public recordings stop where the provider served calls for the client, before their results
were sent. A client's tool loop goes on: it runs the tools and sends their results, the request
where ids break. The replay answers that request itself, with a turn of text that ends the loop,
so the request is judged like any other.

The answer is the recording's own last response turned into a text turn: the same envelope (model,
fields, usage, response headers, status), new ids of the same form as the recorded ones (`chatcmpl-`,
`resp_`, `msg_`, a UUID), the finish reason the provider gives a finished turn, and, where the
recording streamed, the stream the API's transport builds for a body, in the recorded framing (SSE,
a JSON array, NDJSON, AWS event-stream). The replay then serves it in whatever form the client asks,
as it serves any recorded turn. The verdict says the answer was the suite's own.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from conformance.engine.dialects.base import Dialect, DialectError
from conformance.recordings.cassette import Cassette, HttpRequest, Interaction
from conformance.replay.rebuilt import rebuilt_response
from conformance.replay.transports.base import ReframeError, Transport

# What the closing turn says: plain text, no call, nothing a client has to answer.
TEXT = "The tools have answered; this closing answer is the conformance suite's own, past the recording's end."
# The verdict's note on a case whose client was answered by it.
NOTE = "the final answer after the recording's calls is the suite's own"

Mint = Callable[[Any], Any]
Shape = Callable[[dict[str, Any], Mint], dict[str, Any]]


def closing_interaction(
    scenario_id: str, recorded: Cassette, dialect: Dialect, transport: Transport
) -> Interaction | None:
    """The interaction the replay plays after the recording: its closing answer, when the recording's
    last response holds calls for the client (not the provider's own tools); None otherwise, or when
    that response cannot be read or turned into a text turn (then the recording is played as it is)."""
    shape = _SHAPES.get(transport.api)
    if shape is None or not recorded.interactions:
        return None
    last = recorded.interactions[-1]
    if last.response.status >= 400:
        return None
    try:
        served = dialect.served(last.response, f"response[{last.index}]")
        if not any(not call.provider_executed for call in served.calls):
            return None
        body = transport.body_of(served.payload)
        if not isinstance(body, dict):
            return None
        answer = shape(json.loads(json.dumps(body)), _minter(scenario_id))
        response = rebuilt_response(last.response, served.payload, answer, transport)
    except (DialectError, ReframeError, ValueError):
        return None
    # No request was recorded for it: what a correct client sends here is not known.
    request = HttpRequest(method=last.request.method, uri=last.request.uri, headers={}, body=b"")
    return Interaction(index=len(recorded.interactions), request=request, response=response)


# --- ids of the recorded form ------------------------------------------------------------------

_PREFIX = re.compile(r"^[a-z][a-z0-9]{0,11}[_-]")
_LOWER, _UPPER, _DIGITS = "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789"


def _minter(seed: str) -> Mint:
    """Ids like a recorded one: its prefix (`chatcmpl-`, `resp_`), then as many characters of each
    kind (digits, lower and upper case letters, hexadecimal where it is all hexadecimal) in the same
    places, and every other character kept, so a UUID stays a UUID. The same seed and id give the
    same new id; anything that is not a non-empty string is kept as it is."""

    def mint(recorded: Any) -> Any:
        if not isinstance(recorded, str) or not recorded:
            return recorded
        found = _PREFIX.match(recorded)
        prefix = found.group(0) if found else ""
        rest = recorded[len(prefix) :]
        letters = [c for c in rest if c.isascii() and c.isalnum()]
        hexadecimal = bool(letters) and all(c in "0123456789abcdef" for c in letters)
        digest = hashlib.sha256(f"{seed}#closing#{recorded}".encode()).digest()
        out = []
        for k, char in enumerate(rest):
            byte = digest[k % len(digest)] + k // len(digest)
            if not (char.isascii() and char.isalnum()):
                out.append(char)
            elif hexadecimal:
                out.append("0123456789abcdef"[byte % 16])
            elif char.isdigit():
                out.append(_DIGITS[byte % 10])
            elif char.islower():
                out.append(_LOWER[byte % 26])
            else:
                out.append(_UPPER[byte % 26])
        minted = prefix + "".join(out)
        return minted if minted != recorded else prefix + "".join(reversed(out))

    return mint


def _with_prefix(recorded: Any, prefix: str) -> Any:
    """A recorded item id under another item kind's prefix (`fc_...` -> `msg_...`)."""
    if not isinstance(recorded, str):
        return recorded
    found = _PREFIX.match(recorded)
    return prefix + recorded[len(found.group(0)) :] if found else recorded


# --- one text turn per wire --------------------------------------------------------------------


def _chat(body: dict[str, Any], mint: Mint) -> dict[str, Any]:
    """Chat Completions: one choice whose message is the text, `finish_reason: stop`."""
    choices = body.get("choices")
    first = dict(choices[0]) if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    recorded = first.get("message")
    message = {k: v for k, v in recorded.items() if k not in _CALL_FIELDS} if isinstance(recorded, dict) else {}
    message.update(role="assistant", content=TEXT)
    first.update(index=first.get("index", 0), message=message, finish_reason="stop")
    return {**body, "id": mint(body.get("id")), "choices": [first]}


def _mistral_chat(body: dict[str, Any], mint: Mint) -> dict[str, Any]:
    """Mistral writes `tool_calls` on every message: `null` on one without calls."""
    out = _chat(body, mint)
    out["choices"][0]["message"]["tool_calls"] = None
    return out


_CALL_FIELDS = frozenset({"tool_calls", "function_call", "reasoning_content", "reasoning", "thinking"})


def _responses(body: dict[str, Any], mint: Mint) -> dict[str, Any]:
    """Responses: one completed `message` item of `output_text`; a chained response names the one before."""
    output = [i for i in body.get("output") or [] if isinstance(i, dict)]
    message = next((i for i in output if i.get("type") == "message"), None)
    item_id = mint(message.get("id")) if message else mint(_with_prefix(next(iter(output), {}).get("id"), "msg_"))
    item: dict[str, Any] = {"id": item_id, "type": "message", "status": "completed", "role": "assistant"}
    item["content"] = [{"type": "output_text", "text": TEXT, "annotations": [], "logprobs": []}]
    if item_id is None:
        del item["id"]
    out = {**body, "id": mint(body.get("id")), "status": "completed", "output": [item]}
    if out.get("incomplete_details") is not None:
        out["incomplete_details"] = None
    if body.get("previous_response_id"):
        out["previous_response_id"] = body.get("id")
    return out


def _messages(body: dict[str, Any], mint: Mint) -> dict[str, Any]:
    """Anthropic Messages: one text block, `stop_reason: end_turn`."""
    out = {**body, "id": mint(body.get("id")), "content": [{"type": "text", "text": TEXT}]}
    out.update(stop_reason="end_turn", stop_sequence=None)
    return out


def _gemini(body: dict[str, Any], mint: Mint) -> dict[str, Any]:
    """Gemini: one candidate whose content is one text part, `finishReason: STOP`."""
    candidates = body.get("candidates")
    first = candidates[0] if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict) else {}
    kept = {k: v for k, v in first.items() if k not in ("content", "finishMessage", "groundingMetadata")}
    candidate = {**kept, "content": {"role": "model", "parts": [{"text": TEXT}]}, "finishReason": "STOP"}
    out = {**body, "candidates": [candidate]}
    if "responseId" in out:
        out["responseId"] = mint(out["responseId"])
    return out


def _interactions(body: dict[str, Any], mint: Mint) -> dict[str, Any]:
    """Gemini Interactions: one `model_output` step, `status: completed`."""
    step = {"type": "model_output", "content": [{"type": "text", "text": TEXT}]}
    return {**body, "id": mint(body.get("id")), "status": "completed", "steps": [step]}


def _converse(body: dict[str, Any], mint: Mint) -> dict[str, Any]:
    """Bedrock Converse: one text block, `stopReason: end_turn` (the body has no id)."""
    message = {"role": "assistant", "content": [{"text": TEXT}]}
    return {**body, "output": {"message": message}, "stopReason": "end_turn"}


def _ollama(body: dict[str, Any], mint: Mint) -> dict[str, Any]:
    """Ollama's chat: the message's content, `done_reason: stop` (the body has no id)."""
    return {**body, "message": {"role": "assistant", "content": TEXT}, "done": True, "done_reason": "stop"}


def _cohere(body: dict[str, Any], mint: Mint) -> dict[str, Any]:
    """Cohere v2: one text content item, `finish_reason: COMPLETE`."""
    message = {"role": "assistant", "content": [{"type": "text", "text": TEXT}]}
    return {**body, "id": mint(body.get("id")), "message": message, "finish_reason": "COMPLETE"}


_SHAPES: Mapping[str, Shape] = {
    "openai-chat": _chat,
    "mistral-chat": _mistral_chat,
    "kimi-chat": _chat,
    "openai-responses": _responses,
    "azure-foundry": _responses,
    "openresponses": _responses,
    "mistral-responses": _responses,
    "ollama-responses": _responses,
    "anthropic-messages": _messages,
    "ollama-messages": _messages,
    "gemini": _gemini,
    "gemini-interactions": _interactions,
    "bedrock-converse": _converse,
    "ollama-chat": _ollama,
    "cohere-v2": _cohere,
}


def shaped_apis() -> frozenset[str]:
    """The APIs whose recordings get a closing answer."""
    return frozenset(_SHAPES)
