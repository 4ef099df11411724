"""The client connector: a real SDK or framework runs its own tool loop; vcrpy serves the cassette.

The adapter is a callable per API that receives a `ToolLoop` (prompt, tools whose implementations
return the scenario's canned outputs, model, base URL) and runs the conversation with the
library under test, unchanged. vcrpy replays the scenario's cassette (matching method and path,
in order) and every live request is captured. Before a request is answered it is checked: when
the provider would reject it (an error-severity violation whose provider error text is known),
the replay serves that error in the provider's shape instead of the recorded success, so the
client fails the way it would in production.

vcrpy follows pytest-recording's conventions: `record_mode` (`--record-mode`), and the keyword
arguments of a `vcr_config` fixture, merged under the suite's own scrubbing filters.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from conformance.cassette import Cassette, CassetteError, load_cassette
from conformance.corpus import Scenario
from conformance.dialects.base import Dialect, DialectError
from conformance.exchange import Exchange, Turn
from conformance.neutral import ToolSpec
from conformance.provider_errors import error_response
from conformance.recording import vcr_settings
from conformance.violations import Violation
from conformance.wire import Served

# A dummy credential: replays never reach a provider, and recordings scrub whatever is sent.
REPLAY_API_KEY = "conformance-replay-key"

# Where a recording run finds the real credential (a replay needs none; recordings scrub it).
API_KEY_VARIABLES = {
    "openai-chat": "OPENAI_API_KEY",
    "openai-responses": "OPENAI_API_KEY",
    "openresponses": "OPENAI_API_KEY",
    "azure-foundry": "AZURE_OPENAI_API_KEY",
    "anthropic-messages": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral-chat": "MISTRAL_API_KEY",
    "kimi-chat": "MOONSHOT_API_KEY",
    "ollama-chat": "OLLAMA_API_KEY",
    "cohere-v2": "CO_API_KEY",
    "bedrock-converse": "AWS_BEARER_TOKEN_BEDROCK",
}

# Where each API is served, for clients that take a base URL.
DEFAULT_BASE_URLS = {
    "openai-chat": "https://api.openai.com/v1",
    "openai-responses": "https://api.openai.com/v1",
    "openresponses": "https://api.openai.com/v1",
    "azure-foundry": "https://example.services.ai.azure.com/openai/v1",
    "anthropic-messages": "https://api.anthropic.com",
    "gemini": "https://generativelanguage.googleapis.com",
    "mistral-chat": "https://api.mistral.ai/v1",
    "kimi-chat": "https://api.moonshot.ai/v1",
    "ollama-chat": "http://localhost:11434",
    "cohere-v2": "https://api.cohere.com",
    "bedrock-converse": "https://bedrock-runtime.us-east-1.amazonaws.com",
}


# The part of a recorded URI after the base URL a client is configured with.
_ENDPOINTS = {
    "openai-chat": r"/chat/completions$",
    "mistral-chat": r"/chat/completions$",
    "kimi-chat": r"/chat/completions$",
    "openai-responses": r"/responses$",
    "openresponses": r"/responses$",
    "azure-foundry": r"/responses$",
    "anthropic-messages": r"/v1/messages$",
    "gemini": r"/v1[a-z0-9]*/(projects/.*/)?(publishers/google/)?models/.*$",
    "ollama-chat": r"/api/chat$",
    "cohere-v2": r"/v2/chat$",
    "bedrock-converse": r"/model/.*$",
}


def base_url_of(uri: str, api: str) -> str | None:
    """The base URL a client must use to send what the recording shows, from a recorded URI."""
    without_query = uri.split("?", 1)[0]
    match = re.search(_ENDPOINTS[api], without_query)
    return without_query[: match.start()] if match else None


@dataclass
class ToolLoop:
    """What a client adapter gets: everything needed to run the scenario's conversation."""

    api: str
    model: str
    prompt: str
    stream: bool
    tools: list[ToolSpec]
    base_url: str
    api_key: str = REPLAY_API_KEY
    outputs: Sequence[tuple[str, Mapping[str, Any], str]] = ()  # (name, arguments, canned output)
    # The tools array of the first recorded request, as the provider saw it: server and built-in
    # tools (web search, code execution, MCP, shell, ...) that `tools` does not describe.
    recorded_tools: list[Any] = field(default_factory=list)
    calls: list[tuple[str, Any]] = field(default_factory=list)  # what the client's tools were called with
    _used: set[int] = field(default_factory=set)

    def call_tool(self, name: str, arguments: Any) -> str:
        """The scenario's canned output for a call: same name and arguments, else the next by name."""
        self.calls.append((name, arguments))
        if isinstance(arguments, str):
            with contextlib.suppress(ValueError):
                arguments = json.loads(arguments)
        for exact in (True, False):
            for i, (tool, args, output) in enumerate(self.outputs):
                if i in self._used or tool != name or (exact and dict(args) != arguments):
                    continue
                self._used.add(i)
                return output
        return json.dumps({"error": f"no canned output for {name}"})


ClientFn = Callable[[ToolLoop], Any]


@dataclass(frozen=True)
class ClientAdapter:
    """An adapter under test that drives a real client library through whole tool loops."""

    name: str
    version: str
    clients: Mapping[str, ClientFn]
    homepage: str = ""
    notes: str = ""
    unsupported: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from conformance.adapters import check_client_adapter

        check_client_adapter(self)  # unknown API keys would turn every case into a silent skip

    def client(self, api: str) -> ClientFn | None:
        return self.clients.get(api)

    def skip_reason(self, api: str) -> str:
        return self.unsupported.get(api, f"{self.name} has no client for {api}")

    def identity(self) -> dict[str, str]:
        info = {"name": self.name, "version": self.version, "connector": "client"}
        if self.homepage:
            info["homepage"] = self.homepage
        return info


@dataclass
class ClientRun:
    """What happened: the exchange, whether the replay refused a request, and how the client ended."""

    exchange: Exchange
    refused: list[Violation]  # violations that made the replay serve the provider's error
    recorded: int  # interactions in the cassette
    sent: int  # requests the client sent
    fault: BaseException | None = None  # what the client raised, if it raised


def tool_loop(
    scenario: Scenario, base_url: str | None, recorded: Cassette | None = None, *, live: bool = False
) -> ToolLoop:
    if base_url is None and recorded is not None and recorded.interactions:
        base_url = base_url_of(recorded.interactions[0].request.uri, scenario.api)
    key = os.environ.get(API_KEY_VARIABLES[scenario.api], REPLAY_API_KEY) if live else REPLAY_API_KEY
    return ToolLoop(
        api_key=key,
        api=scenario.api,
        model=scenario.model,
        prompt=scenario.prompt,
        stream=scenario.stream,
        tools=[dict(t) for t in scenario.tools],  # type: ignore[misc]
        base_url=base_url or DEFAULT_BASE_URLS[scenario.api],
        outputs=[(c.name, c.arguments, c.output) for t in scenario.turns for c in t.client_calls],
        recorded_tools=_recorded_tools(recorded),
    )


def _recorded_tools(recorded: Cassette | None) -> list[Any]:
    if recorded is None or not recorded.interactions:
        return []
    body = _json(recorded.interactions[0].request.body)
    tools = body.get("tools") if isinstance(body, dict) else None
    return list(tools) if isinstance(tools, list) else []


def gemini_stream_framing(response: dict[str, Any], uri: str) -> dict[str, Any]:
    """The recorded Gemini stream in the framing this request asks for.

    `streamGenerateContent` serves the same chunks as one JSON array, or as server-sent events
    when the request says `alt=sse`. Clients pick one (google-genai always asks for SSE), so a
    recording of the other framing is re-framed, chunk for chunk, rather than served as a body
    the real API would not send to this request.
    """
    if ":streamGenerateContent" not in uri:
        return response
    wants_sse = "alt=sse" in uri.split("?", 1)[-1]
    headers = {k.lower(): v for k, v in (response.get("headers") or {}).items()}
    is_sse = any("text/event-stream" in str(v) for v in headers.get("content-type", []))
    if wants_sse == is_sse:
        return response
    body = response["body"]["string"]
    text = body.decode() if isinstance(body, bytes) else str(body)
    if wants_sse:
        chunks = json.loads(text)
        framed = "".join(f"data: {json.dumps(c, separators=(',', ':'))}\r\n\r\n" for c in chunks)
        content_type = "text/event-stream"
    else:
        chunks = [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]
        framed = json.dumps(chunks)
        content_type = "application/json; charset=UTF-8"
    kept = {k: v for k, v in (response.get("headers") or {}).items() if k.lower() != "content-type"}
    return {**response, "headers": {**kept, "content-type": [content_type]}, "body": {"string": framed.encode()}}


def _is_provider_host(recorded: Cassette, api: str) -> bool:
    if api != "openai-chat":
        return True  # every other dialect is claimed by its provider's hosts only
    host = urlsplit(DEFAULT_BASE_URLS[api]).hostname
    return all(urlsplit(i.request.uri).hostname == host for i in recorded.interactions)


def _json(body: bytes | str | None) -> Any:
    if body is None:
        return None
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None


def run_client(
    fn: ClientFn,
    scenario: Scenario,
    cassette_path: Path,
    dialect: Dialect,
    judge: Callable[[Exchange], list[Violation]],
    *,
    record_mode: str = "none",
    user_config: Mapping[str, Any] | None = None,
    base_url: str | None = None,
) -> ClientRun:
    """Run the client against the cassette; `judge` gives the violations of an exchange so far."""
    import vcr  # type: ignore[import-untyped]  # lazy: only client runs need it

    recorded: Cassette | None = load_cassette(cassette_path) if cassette_path.is_file() else None
    replaying = recorded is not None and record_mode in ("none", "once")
    # The error texts in the corpus are the providers' own. A recording made against another
    # server speaking a provider's wire (Gemini's or Ollama's OpenAI-compatible endpoints) may
    # accept what the provider rejects: there the violations stand, but no error is served.
    authoritative = recorded is not None and _is_provider_host(recorded, scenario.api)
    bodies: list[Any] = []
    refused: list[Violation] = []
    live: dict[str, Any] = {}

    parsed: dict[int, Served] = {}

    def served_at(cassette: Cassette, i: int) -> Served:
        # Each recorded response is parsed once: every request is judged on the turns before it.
        if i not in parsed:
            parsed[i] = dialect.served(cassette.interactions[i].response, f"response[{i}]")
        return parsed[i]

    def turns_so_far() -> tuple[Turn, ...]:
        assert recorded is not None
        out = []
        for i, body in enumerate(bodies[: len(recorded.interactions)]):
            out.append(Turn(index=i, request=body, served=served_at(recorded, i), expected_request=None))
        return tuple(out)

    loaded = len(recorded.interactions) if recorded is not None else 0

    def capture(request: Any) -> Any:
        # vcrpy runs this hook several times per HTTP call (on copies of the request); the calls
        # are told apart by how many responses have been played or recorded so far.
        cassette = live.get("cassette")
        if cassette is None:
            return request
        if replaying and not re.search(_ENDPOINTS[scenario.api], request.path):
            # A side request the recording does not hold (e.g. LiteLLM's Ollama /api/show model
            # lookup): no interaction answers it, so it must not take the next interaction's slot.
            return request
        index = sum(cassette.play_counts.values()) + len(cassette.data) - loaded
        if index < len(bodies):
            return request
        bodies.append(_json(request.body))
        if replaying and scenario.api == "gemini" and index < len(cassette.data):
            stored_request, stored_response = cassette.data[index]
            cassette.data[index] = (stored_request, gemini_stream_framing(stored_response, request.uri))
        if authoritative and replaying and recorded is not None and index < len(recorded.interactions) and not refused:
            try:
                found = judge(Exchange(api=scenario.api, turns=turns_so_far()))
            except DialectError:
                found = []
            here = [
                v
                for v in found
                if v.severity == "error" and v.provider_error and v.location.startswith(f"request[{index}]")
            ]
            if here:
                refused.extend(here)
                error = error_response(scenario.api, here[0].provider_error or "")
                cassette.data[index] = (cassette.data[index][0], error)
        return request

    settings = vcr_settings(record_mode, user_config or {}, before=capture)
    loop = tool_loop(scenario, base_url, recorded, live=not replaying)
    fault: BaseException | None = None
    my_vcr = vcr.VCR(**settings["vcr"])
    with my_vcr.use_cassette(str(cassette_path), **settings["cassette"]) as cassette:
        live["cassette"] = cassette
        try:
            fn(loop)
        except Exception as exc:  # the client's own failure: judged with the exchange below
            fault = exc
    if recorded is None:
        try:
            recorded = load_cassette(cassette_path)
        except CassetteError:
            recorded = Cassette(str(cassette_path), ())
    turns = []
    if not replaying:
        parsed.clear()  # what was recorded just now, not what was there before
    for i, body in enumerate(bodies[: len(recorded.interactions)]):
        try:
            served = served_at(recorded, i)
        except (DialectError, ValueError):
            served = Served(stream=False, calls=(), text="", payload={})
        expected = _json(recorded.interactions[i].request.body)
        turns.append(Turn(index=i, request=body, served=served, expected_request=expected))
    return ClientRun(
        exchange=Exchange(api=scenario.api, turns=tuple(turns)),
        refused=refused,
        recorded=len(recorded.interactions),
        sent=len(bodies),
        fault=fault,
    )
