"""The client connector: a real SDK or framework runs its own tool loop against a replayed scenario.

The adapter is a callable per API that receives a `ToolLoop` (prompt, tools whose implementations
return the scenario's canned outputs, model, base URL, the recorded request-level settings) and runs
the conversation with the library under test, unchanged. A `ReplaySession` (conformance.replay)
answers every request, along one of two paths that share its matcher, re-framer and judgement:

- in process (the default): vcrpy's patches of the Python HTTP libraries hand each request to the
  session, whatever host the client was pointed at;
- over HTTP: the replay server on 127.0.0.1, at a base URL the client is given.

Either way the replay is sealed: no socket connects anywhere else while it runs. Recording
(`--record-mode=once` and friends, against the real provider) goes through vcrpy with every
credential scrubbed, and the recorded exchange is judged the same way afterwards.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from conformance.connectors.continuing import interrupted_calls, neutral_history, runs_of, wire_history
from conformance.connectors.contract import check_client_adapter
from conformance.corpus.loading import Scenario
from conformance.engine.called_tools import prefixed
from conformance.engine.dialects.base import Dialect, DialectError
from conformance.engine.exchange import Exchange, Turn
from conformance.engine.faults import CaseTimeout
from conformance.engine.neutral import Message, ToolSpec
from conformance.engine.wire import Served
from conformance.recordings.bounds import json_or_none
from conformance.recordings.cassette import Cassette, CassetteError, load_cassette
from conformance.recordings.recording import API_KEY_VARIABLES, REPLAY_API_KEY, vcr_settings
from conformance.replay.continued import RunInterrupted, unknown_capabilities
from conformance.replay.session import ClientRun, Judge, ReplaySession

__all__ = [
    "API_KEY_VARIABLES",
    "DEFAULT_BASE_URLS",
    "REPLAY_API_KEY",
    "ClientAdapter",
    "ClientRun",
    "RequestSettings",
    "RunInterrupted",
    "ScenarioUnsupported",
    "ToolLoop",
    "base_url_of",
    "recorded_base_path",
    "run_client",
    "tool_loop",
]

# Where each API is served, for clients that take a base URL.
DEFAULT_BASE_URLS = {
    "openai-chat": "https://api.openai.com/v1",
    "openai-responses": "https://api.openai.com/v1",
    "openresponses": "https://api.openai.com/v1",
    "mistral-responses": "https://api.mistral.ai/v1",
    "ollama-responses": "http://localhost:11434/v1",
    "ollama-messages": "http://localhost:11434",
    "azure-foundry": "https://example.services.ai.azure.com/openai/v1",
    "anthropic-messages": "https://api.anthropic.com",
    "gemini": "https://generativelanguage.googleapis.com",
    "gemini-interactions": "https://generativelanguage.googleapis.com",
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
    "mistral-responses": r"/responses$",
    "ollama-responses": r"/responses$",
    "ollama-messages": r"/v1/messages$",
    "azure-foundry": r"/responses$",
    "anthropic-messages": r"/v1/messages$",
    "gemini": r"/v1[a-z0-9]*/(projects/.*/)?(publishers/google/)?models/.*$",
    "gemini-interactions": r"/v1[a-z0-9]*/interactions$",
    "ollama-chat": r"/api/chat$",
    "cohere-v2": r"/v2/chat$",
    "bedrock-converse": r"/model/.*$",
}

# Body fields that are the conversation itself, not settings of the request.
_CONVERSATION_FIELDS = frozenset({"model", "messages", "input", "contents", "tools", "stream", "stream_options"})
# Request headers that carry protocol settings (never credentials) a client may need to send again.
_SETTING_HEADERS = ("anthropic-beta", "anthropic-version", "openai-beta", "x-goog-api-client")

Replay = Literal["in-process", "server"]


def base_url_of(uri: str, api: str) -> str | None:
    """The base URL a client must use to send what the recording shows, from a recorded URI."""
    without_query = uri.split("?", 1)[0]
    match = re.search(_ENDPOINTS[api], without_query)
    return without_query[: match.start()] if match else None


class ScenarioUnsupported(Exception):  # a declaration, not a failure
    """Raised by `ToolLoop.skip`: the client cannot run this scenario, for the reason given."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True)
class RequestSettings:
    """The recorded first request's settings, for a client that must send them again.

    `body` holds every top-level field but the conversation (`model`, `messages`/`input`/`contents`,
    `tools`, `stream`): `mcp_servers`, Gemini's `toolConfig`, `tool_choice`, `max_tokens`, `store`,
    `include`, `reasoning`, `thinking`, ... `headers` holds protocol headers (`anthropic-beta`,
    `anthropic-version`, `openai-beta`); `query` the query parameters (`api-version`, `alt`); and
    `api_version` the version the recording's path or query names (`v1beta`, `2025-04-01-preview`).
    """

    body: Mapping[str, Any] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    query: Mapping[str, str] = field(default_factory=dict)
    api_version: str | None = None


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
    # The served id of each of `outputs`' calls: a tool that says which call it runs gets that call's
    # output, whatever order a library runs parallel calls in (identical calls of one tool included).
    output_ids: Sequence[str] = ()
    # The provider's own tools the scenario's responses use, as a request declares them (`{"type":
    # "code_execution_20250825", "name": "code_execution"}`, `{"type": "web_search"}`), and the client
    # built-ins the recorded request declared (`{"type": "computer_use_preview", ...}`, `{"type": "shell"}`): a client
    # declares them beside `tools`, whose function tools carry `allowed_callers` where code calls them.
    # A request that leaves one out cannot be served the recorded turn: the case is a `skip`.
    server_tools: list[dict[str, Any]] = field(default_factory=list)
    # The tools array of the first recorded request, as the provider saw it: server and built-in
    # tools (web search, code execution, MCP, shell, ...) that `tools` does not describe.
    recorded_tools: list[Any] = field(default_factory=list)
    settings: RequestSettings = field(default_factory=RequestSettings)
    scenario_id: str = ""
    # A conversation to continue (a client whose adapter `continues` "history"): the saved messages, the
    # prompt first, in the neutral model and in the wire form of `history_api`, the API they were
    # exchanged on (another than `api` for a hand-off across providers). Empty for a new conversation.
    history: list[Message] = field(default_factory=list)
    history_api: str | None = None
    history_wire: list[Any] = field(default_factory=list)
    # The user message that begins each run of the session, played in order on the same client object
    # (a client whose adapter `continues` "sessions"); None: the run continues `history` without one.
    # A plain scenario has one run, `[prompt]`.
    runs: list[str | None] = field(default_factory=list)
    # Calls whose run is cut off before the tool answers: `call_tool` raises RunInterrupted for them.
    interrupted: Sequence[tuple[str, Mapping[str, Any]]] = ()
    calls: list[tuple[str | None, Any]] = field(default_factory=list)  # what the client's tools were called with
    _used: set[int] = field(default_factory=set)
    _cut: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        if not self.runs:
            self.runs = [None] if self.history else [self.prompt]

    def call_tool(self, name: str | None, arguments: Any, call_id: str | None = None) -> str:
        """The scenario's canned output for a call: the output of the call the library names by its
        served id (a harness's toolCall carries it), else same name and arguments, else the next by name.
        A call served without a name (a broken gateway's) is answered by its arguments alone. A call the
        scenario cuts off raises RunInterrupted instead, once."""
        self.calls.append((name, arguments))
        if isinstance(arguments, str):
            with contextlib.suppress(ValueError):
                arguments = json.loads(arguments)
        for i, (tool, args) in enumerate(self.interrupted):
            if i not in self._cut and tool == name and dict(args) == arguments:
                self._cut.add(i)
                raise RunInterrupted(name)
        if call_id:
            for i, served_id in enumerate(self.output_ids):
                named = self.outputs[i][0] if i < len(self.outputs) else None
                if served_id == call_id and i not in self._used and (named == name or not name):
                    self._used.add(i)
                    return self.outputs[i][2]
        for exact in (True, False):
            for i, (tool, args, output) in enumerate(self.outputs):
                # A tool the client declared under a prefix of its own (`tools-get_weather`) is the
                # recorded one: the replay served its calls under that name.
                same_tool = tool == name or (not name and exact) or (name is not None and prefixed(name, tool))
                if i in self._used or not same_tool or (exact and dict(args) != arguments):
                    continue
                self._used.add(i)
                return output
        return json.dumps({"error": f"no canned output for {name}"})

    @property
    def server_tool_kinds(self) -> str:
        """The provider tools' types, sorted and joined, as a skip names what a library cannot declare."""
        return ", ".join(sorted({str(t.get("type")) for t in self.server_tools}))

    def skip(self, reason: str) -> None:
        """Declare the scenario unsupported by this client: the case is a `skip` with the reason."""
        raise ScenarioUnsupported(reason)


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
    # What the clients can be handed beyond a new conversation: "history" (a restored conversation,
    # `ToolLoop.history`) and "sessions" (several runs, `ToolLoop.runs`); see connectors/continuing.py.
    continues: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        check_client_adapter(
            self.name, self.clients, self.unsupported
        )  # unknown API keys would turn every case into a silent skip
        unknown = unknown_capabilities(self.continues)
        if unknown:
            raise ValueError(f"{self.name}: continues {', '.join(unknown)}; known: handoffs, history, sessions")

    def client(self, api: str) -> ClientFn | None:
        return self.clients.get(api)

    def skip_reason(self, api: str) -> str:
        return self.unsupported.get(api, f"{self.name} has no client for {api}")

    def identity(self) -> dict[str, str]:
        info = {"name": self.name, "version": self.version, "connector": "client"}
        if self.homepage:
            info["homepage"] = self.homepage
        return info


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
        output_ids=[c.id or "" for t in scenario.turns for c in t.client_calls],
        server_tools=[*(dict(t) for t in scenario.server_tools), *_client_built_ins(scenario, recorded)],
        recorded_tools=_recorded_tools(recorded),
        settings=recorded_settings(recorded, scenario.api),
        scenario_id=scenario.id,
        history=neutral_history(scenario),
        history_api=scenario.history.api if scenario.history else None,
        history_wire=wire_history(scenario, recorded),
        runs=runs_of(scenario),
        interrupted=interrupted_calls(scenario),
    )


def _client_built_ins(scenario: Scenario, recorded: Cassette | None) -> list[dict[str, Any]]:
    """The client-executed built-ins the recorded request declared (Responses `computer_use_preview`,
    `local_shell`, `shell`, `apply_patch`, `tool_search`), as it declared them: without one the
    provider never calls it, so a client declares them beside its function tools as it does the
    scenario's server tools."""
    from conformance.engine.called_tools import CLIENT_BUILT_IN_TYPES

    have = {t.get("type") for t in scenario.server_tools}
    return [
        dict(t)
        for t in _recorded_tools(recorded)
        if isinstance(t, dict) and t.get("type") in CLIENT_BUILT_IN_TYPES and t.get("type") not in have
    ]


def _recorded_tools(recorded: Cassette | None) -> list[Any]:
    if recorded is None or not recorded.interactions:
        return []
    body = json_or_none(recorded.interactions[0].request.body)
    tools = body.get("tools") if isinstance(body, dict) else None
    return list(tools) if isinstance(tools, list) else []


def recorded_settings(recorded: Cassette | None, api: str) -> RequestSettings:
    if recorded is None or not recorded.interactions:
        return RequestSettings()
    first = recorded.interactions[0].request
    body = json_or_none(first.body)
    settings = {k: v for k, v in body.items() if k not in _CONVERSATION_FIELDS} if isinstance(body, dict) else {}
    headers = {name: first.headers[name][0] for name in _SETTING_HEADERS if first.headers.get(name)}
    from urllib.parse import parse_qsl, urlsplit

    secret = {"key", "api_key", "api-key", "apikey", "access_token", "token", "sig"}
    query = {k: v for k, v in parse_qsl(urlsplit(first.uri).query) if k.lower() not in secret}
    version = re.search(r"/(v\d+(?:alpha|beta)?\d*)/", urlsplit(first.uri).path)
    api_version = (
        query.get("api-version") or headers.get("anthropic-version") or (version.group(1) if version else None)
    )
    return RequestSettings(body=settings, headers=headers, query=query, api_version=api_version)


def _call(fn: ClientFn, loop: ToolLoop) -> tuple[BaseException | None, str | None]:
    """Run the client; what it raised (its own failure, judged with the exchange) or declared unsupported."""
    try:
        fn(loop)
    except ScenarioUnsupported as declared:
        return None, declared.reason
    except (Exception, RunInterrupted) as exc:  # a cut-off run the adapter let escape ends its session there
        return exc, None
    return None, None


def run_client(
    fn: ClientFn,
    scenario: Scenario,
    cassette_path: Path,
    dialect: Dialect,
    judge: Judge,
    *,
    record_mode: str = "none",
    user_config: Mapping[str, Any] | None = None,
    base_url: str | None = None,
    replay: Replay = "in-process",
) -> ClientRun:
    """Run the client against the scenario; `judge` gives the violations of an exchange so far."""
    recorded: Cassette | None = load_cassette(cassette_path) if cassette_path.is_file() else None
    if recorded is None and record_mode == "none":
        raise CassetteError(str(cassette_path), "no such cassette: record it with --record-mode=once")
    if recorded is None or record_mode in ("new_episodes", "all"):
        return _record(fn, scenario, cassette_path, dialect, record_mode, user_config or {}, base_url)
    session = ReplaySession.of(scenario, recorded, judge)
    loop = tool_loop(scenario, base_url, recorded)
    try:
        if replay == "server":
            from conformance.replay.seal import sealed
            from conformance.replay.server import ReplayServer

            with ReplayServer() as server:
                loop.base_url = server.add(session, recorded_base_path(recorded, scenario.api))
                with sealed(server.address):
                    fault, unsupported = _call(fn, loop)
        else:
            with _in_process(session):
                fault, unsupported = _call(fn, loop)
    except CaseTimeout as exc:
        # What the client sent before its time ran out is judged with the timeout (replay.verdicts.timed_out).
        partial = session.finish()
        partial.tools_ran = list(loop.calls)
        raise TimedOutRun(exc.seconds, partial) from exc
    run = session.finish(fault, unsupported)
    run.tools_ran = list(loop.calls)
    return run


class TimedOutRun(CaseTimeout):
    """A client's run over its time limit, with what the replay saw of it until then."""

    def __init__(self, seconds: float, run: ClientRun) -> None:
        self.run = run
        super().__init__(seconds)


@contextlib.contextmanager
def _in_process(session: ReplaySession) -> Iterator[None]:
    from conformance.replay.intercept import intercepted
    from conformance.replay.seal import sealed

    with intercepted(session), sealed():
        yield


def recorded_base_path(recorded: Cassette, api: str) -> str:
    """The path part of the base URL the recording's client was configured with (`/v1`, `/openai/v1`)."""
    from urllib.parse import urlsplit

    base = base_url_of(recorded.interactions[0].request.uri, api) if recorded.interactions else None
    return urlsplit(base).path.rstrip("/") if base else ""


def _record(
    fn: ClientFn,
    scenario: Scenario,
    cassette_path: Path,
    dialect: Dialect,
    record_mode: str,
    user_config: Mapping[str, Any],
    base_url: str | None,
) -> ClientRun:
    """Record against the real provider through vcrpy (credentials scrubbed), then judge what was sent."""
    import vcr  # type: ignore[import-untyped]  # lazy: only client runs need it

    bodies: list[Any] = []
    live: dict[str, Any] = {}
    existing = len(load_cassette(cassette_path).interactions) if cassette_path.is_file() else 0

    def capture(request: Any) -> Any:
        # vcrpy runs this hook several times per HTTP call (on copies of the request); the calls are
        # told apart by how many responses have been played or recorded so far.
        cassette = live.get("cassette")
        if cassette is None or not re.search(_ENDPOINTS[scenario.api], request.path):
            return request
        index = sum(cassette.play_counts.values()) + len(cassette.data) - existing
        if index >= len(bodies):
            bodies.append(json_or_none(request.body))
        return request

    settings = vcr_settings(record_mode, user_config, before=capture)
    loop = tool_loop(scenario, base_url, None, live=True)
    with vcr.VCR(**settings["vcr"]).use_cassette(str(cassette_path), **settings["cassette"]) as cassette:
        live["cassette"] = cassette
        fault, unsupported = _call(fn, loop)
    try:
        recorded = load_cassette(cassette_path)
    except CassetteError:
        recorded = Cassette(str(cassette_path), ())
    turns = []
    for i, body in enumerate(bodies[: len(recorded.interactions)]):
        interaction = recorded.interactions[i]
        try:
            served = dialect.served(interaction.response, f"response[{i}]")
        except (DialectError, ValueError):
            served = Served(stream=False, calls=(), text="", payload={})
        turns.append(
            Turn(index=i, request=body, served=served, expected_request=json_or_none(interaction.request.body))
        )
    return ClientRun(
        exchange=Exchange(api=scenario.api, turns=tuple(turns)),
        refused=[],
        recorded=len(recorded.interactions),
        sent=len(bodies),
        fault=fault,
        unsupported=unsupported,
        tools_ran=list(loop.calls),
    )
