"""Test clients that talk to a replay the way real SDKs do, in every form an API accepts.

Each is a tool loop over plain HTTP (urllib, so vcrpy's patches see it in process and the replay
server sees it over loopback): a codec encodes each request and decodes each response, the
scenario's tools answer through `ToolLoop.call_tool`, and a `Variant` changes only how the client
talks: whether it streams, which API version or path form it uses, the
side requests it makes, and whether it lets the server hold the history. A correct client must get
the same verdict whichever variant it uses.
"""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.connectors.contract import Codec
from conformance.engine.declarations import with_server_tools
from conformance.engine.dialects import dialect_for
from conformance.engine.neutral import Conversation, Message, Part, tool_calls, user
from conformance.recordings.cassette import HttpResponse
from conformance.reference import ADAPTER as REFERENCE

MAX_TURNS = 8
_TLS = ssl.create_default_context()  # once: loading the certificates is most of a request's cost

# The API versions and path forms each API's clients use besides the plain one.
VERSIONS: dict[str, tuple[str, ...]] = {
    "openai-chat": ("azure-deployment",),
    "mistral-chat": ("no-version-prefix",),
    "kimi-chat": ("no-version-prefix",),
    "openai-responses": ("azure-v1", "azure-dated"),
    "azure-foundry": ("azure-dated",),
    "openresponses": ("no-version-prefix",),
    "anthropic-messages": ("vertex",),
    "gemini": ("v1", "v1alpha", "vertex", "json-array"),
    "gemini-interactions": ("v1",),  # google-genai 3.6.1 sends its default, v1; the docs show v1beta
    "bedrock-converse": ("unencoded-model",),
}
# Side requests each API's SDKs make: (method, path under the root, JSON body or None).
SIDE: dict[str, Callable[[str], list[tuple[str, str, Any]]]] = {
    "openai-chat": lambda m: [("GET", f"/v1/models/{m}", None), ("GET", "/v1/models", None)],
    "mistral-chat": lambda m: [("GET", "/v1/models", None)],
    "kimi-chat": lambda m: [("GET", "/v1/models", None)],
    "openai-responses": lambda m: [("GET", f"/v1/models/{m}", None), ("POST", "/v1/responses/input_tokens", {})],
    "azure-foundry": lambda m: [("POST", "/openai/v1/responses/input_tokens", {})],
    "openresponses": lambda m: [("GET", "/v1/models", None)],
    "anthropic-messages": lambda m: [("GET", "/v1/models", None), ("POST", "/v1/messages/count_tokens", {})],
    "gemini": lambda m: [("GET", f"/v1beta/models/{m}", None), ("POST", f"/v1beta/models/{m}:countTokens", {})],
    "ollama-chat": lambda m: [("GET", "/", None), ("GET", "/api/version", None), ("POST", "/api/show", {"model": m})],
}
# APIs where the server can hold the history, and how a client asks it to.
CONTINUES = ("openai-responses", "azure-foundry", "openresponses", "anthropic-messages", "gemini-interactions")


@dataclass(frozen=True)
class Variant:
    stream: bool | None = None  # None: as the scenario says
    version: str | None = None  # a key of VERSIONS[api]
    method: str = "POST"
    side: bool = False  # make the API's side requests before every turn
    continuation: bool = False  # let the server hold the history
    ask_again_on_blank: bool = False  # send the conversation once more after a blank final answer (a retry)

    def label(self) -> str:
        parts = []
        if self.stream is not None:
            parts.append("stream" if self.stream else "no-stream")
        if self.version:
            parts.append(self.version)
        if self.method != "POST":
            parts.append(f"method-{self.method}")
        if self.side:
            parts.append("side-requests")
        if self.continuation:
            parts.append("server-history")
        if self.ask_again_on_blank:
            parts.append("ask-again-on-blank")
        return "+".join(parts) or "plain"


class ClientFailed(Exception):
    """The replay answered an error, as a provider would: the client stops, as SDKs do."""


def _root(loop: ToolLoop, base_path: str) -> str:
    """The base URL without the path the recording's client used (`/v1`), for other path forms."""
    base = loop.base_url.rstrip("/")
    return base[: -len(base_path)] if base_path and base.endswith(base_path) else base


def _target(loop: ToolLoop, api: str, stream: bool, version: str | None) -> tuple[str, dict[str, str]]:
    """The URL and query of a turn, in the variant's form."""
    base = loop.base_url.rstrip("/")
    model = loop.model
    path_of_base = urlsplit(base).path
    if api in ("openai-chat", "mistral-chat", "kimi-chat"):
        if version == "azure-deployment":
            root = _root(loop, "/v1")
            return f"{root}/openai/deployments/{model}/chat/completions", {"api-version": "2024-10-21"}
        if version == "no-version-prefix":
            return f"{_root(loop, '/v1')}/chat/completions", {}
        return f"{base}/chat/completions", {}
    if api in ("openai-responses", "azure-foundry", "openresponses", "mistral-responses", "ollama-responses"):
        root = _root(loop, path_of_base if path_of_base.endswith(("/v1", "/openai/v1")) else "")
        for suffix in ("/openai/v1", "/v1"):
            if base.endswith(suffix):
                root = base[: -len(suffix)]
        if version == "azure-v1":
            return f"{root}/openai/v1/responses", {}
        if version == "azure-dated":
            return f"{root}/openai/responses", {"api-version": "2025-04-01-preview"}
        if version == "no-version-prefix":
            return f"{root}/responses", {}
        return f"{base}/responses", {}
    if api in ("anthropic-messages", "ollama-messages"):
        if version == "vertex":
            action = "streamRawPredict" if stream else "rawPredict"
            path = f"/v1/projects/p/locations/us-east5/publishers/anthropic/models/{model}:{action}"
            return base + path, {}
        return f"{base}/v1/messages", {}
    if api == "gemini":
        action = "streamGenerateContent" if stream else "generateContent"
        query = {"alt": "sse"} if stream and version != "json-array" else {}
        if version == "vertex":
            return f"{base}/v1/projects/p/locations/global/publishers/google/models/{model}:{action}", query
        prefix = version if version in ("v1", "v1alpha") else "v1beta"
        return f"{base}/{prefix}/models/{model}:{action}", query
    if api == "gemini-interactions":
        return f"{base}/{version or 'v1beta'}/interactions", {}
    if api == "bedrock-converse":
        operation = "converse-stream" if stream else "converse"
        name = model if version == "unencoded-model" else quote(model, safe="")
        return f"{base}/model/{name}/{operation}", {}
    if api == "ollama-chat":
        return f"{base}/api/chat", {}
    if api == "cohere-v2":
        return f"{base}/v2/chat", {}
    raise KeyError(api)


def _send(method: str, url: str, body: Any, headers: dict[str, str] | None = None) -> HttpResponse:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("content-type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30, context=_TLS) as response:  # a replay's URL
            raw_headers = {k.lower(): (v,) for k, v in response.headers.items()}
            return HttpResponse(response.status, raw_headers, response.read())
    except urllib.error.HTTPError as error:
        raw_headers = {k.lower(): (v,) for k, v in error.headers.items()}
        return HttpResponse(error.code, raw_headers, error.read())


def _with_stream(api: str, body: dict[str, Any], stream: bool) -> dict[str, Any]:
    if api in ("gemini", "bedrock-converse"):
        return body  # the path says it
    return {**body, "stream": stream}


class _Continuation:
    """A client that lets the server hold the history: after the first turn it sends only what is new
    (the tool results), with a pointer to the reply the server holds."""

    def __init__(self, api: str, codec: Codec) -> None:
        self.api = api
        self.codec = codec
        self.key = "messages" if api in ("anthropic-messages", "ollama-messages") else "input"
        self.previous: str | None = None

    def body(self, conversation: Conversation, full: dict[str, Any], new: list[Message]) -> dict[str, Any]:
        if self.previous is None:
            if self.api in ("anthropic-messages", "ollama-messages"):
                return {**full, "thread": {"type": "create"}}
            return {**full, "store": True}
        items = self.codec.encode({**conversation, "messages": new}).get(self.key) or []
        if self.api in ("anthropic-messages", "ollama-messages"):
            kept = {k: v for k, v in full.items() if k not in ("system", "tools")}
            thread = {"type": "continue", "previous_message_id": self.previous}
            return {**kept, self.key: items, "thread": thread}
        if self.api == "gemini-interactions":
            return {**full, self.key: items, "store": True, "previous_interaction_id": self.previous}
        return {**full, self.key: items, "store": True, "previous_response_id": self.previous}


def codec_client(codec: Codec, variant: Variant) -> Callable[[ToolLoop], None]:
    def run(loop: ToolLoop) -> None:
        from conformance.replay.transports import transport_for

        api = loop.api
        dialect = dialect_for(api)
        stream = loop.stream if variant.stream is None else variant.stream
        conversation: Conversation = {
            "api": api,
            "model": loop.model,
            "stream": stream,
            "tools": list(loop.tools),
            "messages": [user(loop.prompt)],
        }
        continuation = _Continuation(api, codec) if variant.continuation else None
        new: list[Message] = []  # what the server does not hold yet
        asked_again = False
        root = _root(loop, urlsplit(loop.base_url).path)
        for _ in range(MAX_TURNS):
            if variant.side:
                for method, path, body in SIDE[api](loop.model):
                    side = _send(method, root + path, body)
                    if side.status >= 400:
                        raise ClientFailed(f"side request {method} {path}: {side.status} {side.text()[:200]}")
            # The codec encodes function tools; the scenario's server tools are declared beside them.
            full = _with_stream(api, with_server_tools(api, codec.encode(conversation), loop.server_tools), stream)
            body = continuation.body(conversation, full, new) if continuation else full
            url, query = _target(loop, api, stream, variant.version)
            if variant.version == "vertex" and api == "anthropic-messages":
                body = {k: v for k, v in body.items() if k not in ("model", "stream")}
                body["anthropic_version"] = "vertex-2023-10-16"
            response = _send(variant.method, url + (f"?{urlencode(query)}" if query else ""), body)
            if response.status >= 400:
                raise ClientFailed(f"{response.status}: {response.text()[:300]}")
            served = dialect.served(response)
            message: Message = codec.decode(served.payload)
            conversation["messages"].append(message)
            if continuation is not None:
                continuation.previous = transport_for(api).body_of(served.payload).get("id")
            calls = [c for c in tool_calls(message) if not c.get("provider_executed")]
            blank = not any(p.get("type") == "text" and str(p.get("text", "")).strip() for p in message["parts"])
            if not calls and variant.ask_again_on_blank and blank and not asked_again:
                asked_again = True
                conversation["messages"].pop()  # the blank answer is dropped and the question asked again
                continue
            if not calls:
                return
            results: list[Part] = [
                {
                    "type": "tool_result",
                    "call_id": c.get("call_id"),
                    "name": c.get("name"),
                    "output": loop.call_tool(str(c.get("name")), c.get("arguments")),
                    "wire_type": dialect.result_type(c.get("wire_type", "")) or "",
                }
                for c in calls
            ]
            answer: Message = {"role": "tool", "parts": results}
            conversation["messages"].append(answer)
            new = [answer]

    return run


def adapter(variant: Variant, codecs: Any = None, name: str = "reference-http") -> ClientAdapter:
    chosen = codecs if codecs is not None else REFERENCE.codecs
    return ClientAdapter(
        name=f"{name}[{variant.label()}]",
        version="0",
        clients={api: codec_client(codec, variant) for api, codec in chosen.items()},
    )


def variants_for(api: str) -> list[Variant]:
    """Every way the API's clients may talk, each changing one thing from the plain client."""
    # Not a lower-case method: HTTP methods are case-sensitive (RFC 9110), and the replay server's HTTP
    # stack refuses `post` with a 400, as a provider's front end does.
    found = [Variant(stream=True), Variant(stream=False)]
    found += [Variant(version=v) for v in VERSIONS.get(api, ())]
    if api in SIDE:
        found.append(Variant(side=True))
    if api in CONTINUES:
        found.append(Variant(continuation=True))
    return found


def with_stream(variant: Variant, stream: bool) -> Variant:
    return replace(variant, stream=stream)
