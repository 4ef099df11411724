"""What a response's calls for the client need the request to have declared: its tools, by name or kind.

A provider calls only the tools a request declares: a function or custom tool by its name, a
client-executed built-in (Responses `computer_call`, `local_shell_call`, `shell_call`,
`apply_patch_call`, a client-run `tool_search_call`) by the tool type that enables it. A request
that declares neither could not have been served the recorded call: what the provider answers it
instead (text, most often) is not recorded, so the replay does not serve the turn and says why.

Only what the recorded request itself declared is required: a call the model made to a tool the
recorded request never declared (a hallucinated name) binds no client to declaring it. A tool the
client declared under another name (Semantic Kernel's `tools-get_weather`, a Gemini adapter's
`tools__get_weather` for `get_weather`) is told apart from one left out: the replay serves the
recorded turn with its calls under the declared names, as the provider would have answered that
request (conformance.replay.renaming), and the client is not faulted for a declaration the provider
would honour.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from conformance.engine.wire import Served, WireCall

# APIs whose requests do not carry their tools (an Azure Foundry agent's are configured on the agent).
NOT_IN_REQUEST = frozenset({"azure-foundry"})
# Responses-family client built-ins: the call's wire kind -> the tool types that let the model make it.
_BUILT_INS: Mapping[str, frozenset[str]] = {
    "ComputerToolCall": frozenset({"computer_use_preview", "computer_use", "computer"}),
    "LocalShellToolCall": frozenset({"local_shell"}),
    "FunctionShellCall": frozenset({"shell"}),
    "ApplyPatchToolCall": frozenset({"apply_patch"}),
    "ToolSearchCall": frozenset({"tool_search"}),
}
# Every tool type that lets the model call a client built-in: what a client offering one declares.
CLIENT_BUILT_IN_TYPES = frozenset().union(*_BUILT_INS.values())
# Where one tool's declaration keeps its name, for each layout the APIs use.
_NAMED = ("function", "custom", "toolSpec")
_GEMINI_LISTS = ("functionDeclarations", "function_declarations")
_PREFIX_ENDS = "-_.:/"  # what a framework puts between its plugin or namespace prefix and the tool's name


@dataclass(frozen=True)
class Tools:
    """The tools a request declares: function and custom tools by name, built-ins by type."""

    names: frozenset[str] = frozenset()
    kinds: frozenset[str] = frozenset()

    @classmethod
    def of(cls, *names: str) -> Tools:
        """The function tools of these names."""
        return cls(frozenset(names))

    def renamed(self, name: str) -> str | None:
        """The name this request declares `name` under, where it adds a prefix to it."""
        found = sorted(d for d in self.names if d.endswith(name) and len(d) > len(name) + 1)
        return next((d for d in found if d[-len(name) - 1] in _PREFIX_ENDS), None)


def prefixed(name: str, tool: str) -> bool:
    """Whether `name` is `tool` under a prefix a framework adds (`tools-get_weather`, `tools__get_weather`)."""
    return Tools.of(name).renamed(tool) == name


@dataclass(frozen=True)
class Needed:
    """One call of a served response whose tool the client's request does not declare."""

    path: str  # the call in the response
    name: str | None  # the function or custom tool's name; None for a built-in
    kinds: frozenset[str] = frozenset()  # the built-in's tool types
    renamed: str | None = None  # the name the request declares it under instead

    def missing(self) -> str:
        """What the request did not declare, in words."""
        if self.name is None:
            return f"no {' or '.join(sorted(self.kinds))} tool"
        if self.renamed is not None:
            return f"{self.name} only as {self.renamed}, a name the recorded call does not have"
        return f"no tool {self.name}"


def declared_tools(api: str, body: Any) -> Tools:
    """What a request body declares, in any of the APIs' layouts."""
    if not isinstance(body, Mapping):
        return Tools()
    tools = body.get("tools")
    if api == "bedrock-converse":
        config = body.get("toolConfig")
        tools = config.get("tools") if isinstance(config, Mapping) else None
    names: set[str] = set()
    kinds: set[str] = set()
    for tool in _each(tools):
        kind = tool.get("type")
        if isinstance(kind, str):
            kinds.add(kind)
        name = tool.get("name")
        if isinstance(name, str):
            names.add(name)
        for key in _NAMED:
            inner = tool.get(key)
            if isinstance(inner, Mapping) and isinstance(inner.get("name"), str):
                names.add(inner["name"])
        for key in _GEMINI_LISTS:
            names.update(d["name"] for d in _each(tool.get(key)) if isinstance(d.get("name"), str))
        # A Responses namespace groups function tools under one name: each is declared by its own.
        names.update(t["name"] for t in _each(tool.get("tools")) if isinstance(t.get("name"), str))
    return Tools(frozenset(names), frozenset(kinds))


def _each(value: Any) -> Iterator[Mapping[str, Any]]:
    yield from (v for v in value if isinstance(v, Mapping)) if isinstance(value, list) else ()


def _needs(call: WireCall) -> tuple[str | None, frozenset[str]]:
    kind = call.wire_type.rsplit("/", 1)[-1]
    if kind in _BUILT_INS:
        return None, _BUILT_INS[kind]
    return call.name, frozenset()


def needed(api: str, served: Served, request: Any, recorded: Any) -> list[Needed]:
    """The calls for the client in `served` whose tool the recorded request declared and `request`
    does not, in order. Nothing where the recorded request is unknown or the API's requests do not
    carry their tools."""
    if api in NOT_IN_REQUEST or not isinstance(recorded, Mapping):
        return []
    was, now = declared_tools(api, recorded), declared_tools(api, request)
    found: list[Needed] = []
    for call in served.calls:
        if call.provider_executed:
            continue
        name, kinds = _needs(call)
        if name is None and kinds:
            if kinds & was.kinds and not kinds & now.kinds:
                found.append(Needed(call.path, None, kinds & was.kinds))
        elif name and name in was.names and name not in now.names:
            found.append(Needed(call.path, name, renamed=now.renamed(name)))
    return found


def refusal(missing: list[Needed], response: str) -> str:
    """Why the client could not have been served the response, in words."""
    named = list(dict.fromkeys(n.missing() for n in missing))
    what = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"
    return f"the client's request declared {what}; the recorded {response} calls it ({missing[0].path})"
