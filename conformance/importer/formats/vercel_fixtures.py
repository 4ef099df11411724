"""The Vercel AI SDK's provider fixtures: `__fixtures__/NAME.json` (a response body) and
`__fixtures__/NAME.chunks.txt` (a stream, one JSON chunk a line).

They hold responses only, with no request, host or path: the API is told by the package and source
folder the fixture lives in (`packages/anthropic/...`, `packages/openai/src/responses/...`), and the
request beside each response is an empty stand-in, marked `responses_only` in the cassette's
provenance. Lint checks such a response on its own (ids, stream reassembly); import refuses it,
because a scenario needs what the client sent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conformance.importer.formats.text import read_text
from conformance.recordings import eventstream
from conformance.recordings.bounds import BoundsError, parse_json
from conformance.recordings.cassette import Cassette, CassetteError, HttpRequest, HttpResponse, Interaction

_CHAT = "/v1/chat/completions"
# (package, source folder or None) -> (base URL, path, streamed path or None)
_APIS: dict[tuple[str, str | None], tuple[str, str, str | None]] = {
    ("openai", "chat"): ("https://api.openai.com", _CHAT, None),
    ("openai", "responses"): ("https://api.openai.com", "/v1/responses", None),
    ("azure", "responses"): ("https://api.openai.com", "/v1/responses", None),
    ("azure", "chat"): ("https://api.openai.com", _CHAT, None),
    ("anthropic", None): ("https://api.anthropic.com", "/v1/messages", None),
    ("google", None): (
        "https://generativelanguage.googleapis.com",
        "/v1beta/models/gemini-2.5-flash:generateContent",
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    ),
    ("amazon-bedrock", None): (
        "https://bedrock-runtime.us-east-1.amazonaws.com",
        "/model/anthropic.claude-3-haiku/converse",
        "/model/anthropic.claude-3-haiku/converse-stream",
    ),
    ("cohere", None): ("https://api.cohere.com", "/v2/chat", None),
    ("mistral", None): ("https://api.mistral.ai", _CHAT, None),
    ("xai", None): ("https://api.x.ai", _CHAT, None),
    ("groq", None): ("https://api.groq.com", "/openai/v1/chat/completions", None),
    ("deepseek", None): ("https://api.deepseek.com", _CHAT, None),
    ("moonshotai", None): ("https://api.moonshot.ai", _CHAT, None),
    ("alibaba", None): ("https://dashscope-intl.aliyuncs.com", "/compatible-mode/v1/chat/completions", None),
    ("openai-compatible", None): ("http://localhost:8080", _CHAT, None),
    ("perplexity", None): ("https://api.perplexity.ai", _CHAT, None),
    ("open-responses", None): ("http://localhost:8080", "/v1/responses", None),
}


def is_fixture(path: Path) -> bool:
    return "__fixtures__" in path.parts and path.name.endswith((".json", ".chunks.txt"))


def _api(path: Path) -> tuple[str, str, str | None]:
    parts = path.parts
    package = parts[parts.index("packages") + 1] if "packages" in parts else ""
    folder = path.parent.parent.name if path.parent.name == "__fixtures__" else None
    found = _APIS.get((package, folder)) or _APIS.get((package, None))
    if found is None:
        raise CassetteError(
            str(path),
            f"a Vercel AI SDK fixture of package {package!r} (folder {folder!r}): not an API whose tool calls the "
            "suite reads (its package and folder tell the API; the fixture holds no request)",
        )
    return found


def _bedrock_frames(chunks: list[Any], path: Path) -> bytes:
    """Bedrock's stream chunks framed as the event stream they came in (`{"contentBlockDelta": {...}}`)."""
    frames = b""
    for number, chunk in enumerate(chunks, 1):
        if not isinstance(chunk, dict) or not chunk:
            shape = '`{"messageStart": {...}}`'
            raise CassetteError(str(path), f"stream chunk {number} is not an event name and its payload ({shape})")
        (name, payload), *_ = chunk.items()
        headers = {":event-type": name, ":content-type": "application/json", ":message-type": "event"}
        frames += eventstream.encode(headers, json.dumps(payload).encode("utf-8"))
    return frames


def load(path: Path) -> Cassette:
    base, plain_path, stream_path = _api(path)
    text = read_text(path)
    streamed = path.name.endswith(".chunks.txt")
    try:
        if streamed:
            lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
            chunks = [parse_json(line, f"line {n}") for n, line in lines]
        else:
            parse_json(text, "the fixture")
    except BoundsError as exc:
        raise CassetteError(str(path), str(exc)) from None
    if streamed and "bedrock" in base:
        body, content_type = _bedrock_frames(chunks, path), "application/vnd.amazon.eventstream"
    elif streamed:
        body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks).encode("utf-8")
        content_type = "text/event-stream"
    else:
        body, content_type = text.encode("utf-8"), "application/json"
    # The stand-in request: an empty history in the API's own shape, so the response is read alone.
    history = "input" if plain_path.endswith("/responses") else "contents" if "gemini" in plain_path else "messages"
    empty: dict[str, Any] = {history: []}
    request_body = json.dumps({**empty, **({"stream": True} if streamed else {})}).encode("utf-8")
    uri = base + (stream_path if streamed and stream_path else plain_path)
    interaction = Interaction(
        index=0,
        request=HttpRequest(method="POST", uri=uri, headers={"content-type": ("application/json",)}, body=request_body),
        response=HttpResponse(status=200, headers={"content-type": (content_type,)}, body=body),
    )
    return Cassette(path=str(path), interactions=(interaction,), provenance={"responses_only": True})
