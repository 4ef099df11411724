"""What a response needs the request to have declared: server tools, callers of function tools, and
Anthropic's thinking.

A provider serves a server tool's items (Anthropic `server_tool_use`, a Responses
`web_search_call`, Gemini `executableCode`) only when the request declared that tool, a member of
an Anthropic toolset (a `tool_use` with `toolset_name`) only when it declared the toolset, and a call
made from code (an Anthropic `tool_use` with a programmatic `caller`, a Responses function call
with `caller.type: program`) only when the request allowed it, and Claude's thinking (Anthropic
thinking blocks, Bedrock `reasoningContent`) only to a request that turned thinking on. A client whose request declared
neither could not have been served the recorded turn: the replay says so (a `skip`), and the
corpus check holds every scenario to declaring what its responses use.

Tools are compared by family: the provider's tool `type` without its version (`web_search_20250305`
and `web_search_20260209` are both `web_search`; Responses `web_search_preview` is `web_search`).
Only the APIs whose requests declare their tools are compared; an Azure Foundry agent, whose tools
are configured on the agent and not in the request, is not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.engine.dialects import anthropic_messages, bedrock_converse
from conformance.engine.wire import Served, WireCall

# The APIs whose requests declare the server tools their responses may use.
COMPARED = frozenset({"anthropic-messages", "openai-responses", "gemini"})

# Anthropic: a server_tool_use block's name -> the family of the tool that must be declared.
_ANTHROPIC_SERVER_NAMES = {
    "web_search": "web_search",
    "web_fetch": "web_fetch",
    "code_execution": "code_execution",
    "bash_code_execution": "code_execution",
    "text_editor_code_execution": "code_execution",
    "tool_search_tool_regex": "tool_search_tool_regex",
    "tool_search_tool_bm25": "tool_search_tool_bm25",
    "advisor": "advisor",
}
# Responses: an output item's wire type -> the family of the tool that must be declared.
_RESPONSES_ITEMS = {
    "WebSearchToolCall": "web_search",
    "FileSearchToolCall": "file_search",
    "CodeInterpreterToolCall": "code_interpreter",
    "ImageGenToolCall": "image_generation",
    "MCPListTools": "mcp",
    "MCPToolCall": "mcp",
    "MCPApprovalRequest": "mcp",
    "Program": "programmatic_tool_calling",
}
# Responses: a function call's caller type -> the tool that lets a program make calls.
_RESPONSES_CALLERS = {"program": "programmatic_tool_calling"}
# Gemini: a tool object's key -> its family (the request names it by key, in either case).
_GEMINI_KEYS = {
    "codeExecution": "code_execution",
    "code_execution": "code_execution",
    "googleSearch": "google_search",
    "google_search": "google_search",
    "googleSearchRetrieval": "google_search",
    "google_search_retrieval": "google_search",
    "urlContext": "url_context",
    "url_context": "url_context",
}
# Gemini: a scenario's server tool type -> the key a request declares it by.
_GEMINI_TOOL_KEYS = {"code_execution": "codeExecution", "google_search": "googleSearch", "url_context": "urlContext"}
_GEMINI_TOOL_TYPES = {"GOOGLE_SEARCH": "google_search", "URL_CONTEXT": "url_context"}  # toolCall.toolType prefixes

_ANTHROPIC_VERSION = re.compile(r"_\d{8}$")
_RESPONSES_VERSION = re.compile(r"(_preview)?(_\d{4}_\d{2}_\d{2})?$")


@dataclass(frozen=True)
class Use:
    """One thing a served response uses that the request must have declared."""

    path: str  # where the response uses it
    family: str | None = None  # a server tool of this family
    function: str | None = None  # or a caller of this function tool (Anthropic allowed_callers)
    caller: str | None = None

    def missing(self, api: str) -> str:
        """What a request that lacks it did not declare, in words."""
        if self.function is not None:
            return f"no allowed_callers {self.caller!r} on its tool {self.function}"
        return f"no {self.family} tool" if api != "anthropic-messages" or self.family != "mcp" else "no MCP server"


@dataclass(frozen=True)
class Declared:
    """What a request (or a scenario) declares: server-tool families, and each function tool's callers."""

    families: frozenset[str] = frozenset()
    callers: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def has(self, use: Use) -> bool:
        if use.function is not None:
            return use.caller in self.callers.get(use.function, frozenset())
        return use.family in self.families


def family_of(api: str, tool_type: str) -> str:
    """A declared tool type's family: its type without the version."""
    if api == "anthropic-messages":
        found = _ANTHROPIC_VERSION.sub("", tool_type)
        return "mcp" if found == "mcp_toolset" else found
    if api == "openai-responses":
        return _RESPONSES_VERSION.sub("", tool_type, count=1)
    return tool_type


def uses(api: str, served: Served) -> list[Use]:
    """What a served response uses that its request must have declared, in order."""
    if api not in COMPARED:
        return []
    found: list[Use] = []
    for call in served.calls:
        use = _use(api, call)
        if use is not None and use not in found:
            found.append(use)
    return found


def _use(api: str, call: WireCall) -> Use | None:
    kind = call.wire_type.rsplit("/", 1)[-1]
    caller = call.fields.get("caller")  # the item as served
    caller_type = caller.get("type") if isinstance(caller, Mapping) else None
    if caller_type == "direct":
        caller_type = None  # the model called it itself: what every tool allows unless it says otherwise
    if api == "anthropic-messages":
        if kind == "MCPToolUseBlock":
            return Use(call.path, family="mcp")
        if kind == "ServerToolUseBlock":
            family = _ANTHROPIC_SERVER_NAMES.get(call.name or "")
            return Use(call.path, family=family) if family else None
        toolset = call.fields.get("toolset_name")
        if kind == "ToolUseBlock" and isinstance(toolset, str) and toolset:
            # A toolset member (browser, computer): served only to a request that declared the toolset
            # (`browser_toolset_20260801`); a function tool of the same name gets a plain tool_use.
            return Use(f"{call.path}.toolset_name", family=f"{toolset}_toolset")
        if kind == "ToolUseBlock" and isinstance(caller_type, str) and call.name:
            return Use(f"{call.path}.caller", function=call.name, caller=caller_type)
        return None
    if api == "openai-responses":
        if kind in _RESPONSES_ITEMS:
            return Use(call.path, family=_RESPONSES_ITEMS[kind])
        if isinstance(caller_type, str) and caller_type in _RESPONSES_CALLERS:
            return Use(f"{call.path}.caller", family=_RESPONSES_CALLERS[caller_type])
        return None
    if kind == "ExecutableCode":
        return Use(call.path, family="code_execution")
    if kind == "ToolCall":
        tool_type = call.name or ""
        family = next((f for prefix, f in _GEMINI_TOOL_TYPES.items() if tool_type.startswith(prefix)), None)
        return Use(call.path, family=family) if family else None
    return None


def declared_by_request(api: str, body: Any) -> Declared:
    """What a request body declares, read the way its provider reads it."""
    if not isinstance(body, Mapping):
        return Declared()
    tools = body.get("tools")
    tools = [t for t in tools if isinstance(t, Mapping)] if isinstance(tools, list) else []
    families: set[str] = set()
    callers: dict[str, frozenset[str]] = {}
    if api == "gemini":
        families.update(_GEMINI_KEYS[key] for tool in tools for key in tool if key in _GEMINI_KEYS)
        return Declared(frozenset(families))
    for tool in tools:
        kind, name = tool.get("type"), tool.get("name")
        if isinstance(kind, str) and kind not in ("function", "custom") and "input_schema" not in tool:
            families.add(family_of(api, kind))
        allowed = tool.get("allowed_callers")
        if isinstance(name, str) and isinstance(allowed, list):
            callers[name] = frozenset(c for c in allowed if isinstance(c, str))
    if api == "anthropic-messages" and body.get("mcp_servers"):
        families.add("mcp")
    return Declared(frozenset(families), callers)


def server_tool_definitions(api: str, body: Any) -> list[dict[str, Any]]:
    """The server tools a request declares, as a scenario's `tools` declares them: the request's own
    definitions (Gemini's by their key, `{"type": "code_execution"}`; Anthropic's MCP servers as the
    `mcp_toolset` that names each)."""
    if api not in COMPARED or not isinstance(body, Mapping) or not isinstance(body.get("tools", []), list):
        return []
    tools = [t for t in body.get("tools") or () if isinstance(t, Mapping)]
    if api == "gemini":
        return [{"type": _GEMINI_KEYS[key]} for tool in tools for key in tool if key in _GEMINI_KEYS]
    found = [
        dict(t)
        for t in tools
        if isinstance(t.get("type"), str) and t["type"] not in ("function", "custom") and "input_schema" not in t
    ]
    servers = body.get("mcp_servers") if api == "anthropic-messages" else None
    named = {t.get("mcp_server_name") for t in found}
    for server in servers if isinstance(servers, list) else ():
        if isinstance(server, Mapping) and isinstance(server.get("name"), str) and server["name"] not in named:
            found.append({"type": "mcp_toolset", "mcp_server_name": server["name"]})
    return found


def with_server_tools(api: str, body: Mapping[str, Any], server_tools: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A request body with a scenario's server tools added to its `tools`, in the API's layout (Gemini's
    by key, `{"codeExecution": {}}`): what a client built on a codec sends to declare them."""
    out = dict(body)
    if api not in COMPARED or not server_tools:
        return out
    added = [
        {_GEMINI_TOOL_KEYS.get(str(t["type"]), str(t["type"])): {}} if api == "gemini" else dict(t)
        for t in server_tools
    ]
    out["tools"] = [*(out.get("tools") or []), *added]
    return out


def declared_by_scenario(api: str, tools: Iterable[Mapping[str, Any]]) -> Declared:
    """What a scenario's `tools` declare: its server tools by type, its function tools' allowed_callers."""
    families: set[str] = set()
    callers: dict[str, frozenset[str]] = {}
    for tool in tools:
        kind = tool.get("type")
        if isinstance(kind, str) and kind not in ("function", "custom"):
            families.add(family_of(api, kind))
        allowed = tool.get("allowed_callers")
        if isinstance(tool.get("name"), str) and isinstance(allowed, list):
            callers[str(tool["name"])] = frozenset(str(c) for c in allowed)
    return Declared(frozenset(families), callers)


def undeclared(api: str, served: Served, declared: Declared) -> list[Use]:
    """What the response uses that the declarations leave out."""
    return [u for u in uses(api, served) if not declared.has(u)]


def refusal_reason(api: str, missing: Sequence[Use], response: str) -> str:
    """Why the client could not have been served a response, in words."""
    named = list(dict.fromkeys(u.missing(api) for u in missing))
    what = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"
    them = "it" if len(named) == 1 else "them"
    return f"the client's request declared {what}; the recorded {response} uses {them} ({missing[0].path})"


def unserved_reason(api: str, served: Served, body: Any, recorded: Any, response: str) -> str | None:
    """Why a request could not have been served the recorded response, or None: a server tool or
    caller it did not declare, or a tool of its own that the response calls and the request leaves
    out (`recorded` is the recorded request, which says which tools the response needed)."""
    from conformance.engine.called_tools import needed, refusal

    missing = undeclared(api, served, declared_by_request(api, body))
    if missing:
        return refusal_reason(api, missing, response)
    unasked = thinking_unasked(api, served, body, recorded)
    if unasked is not None:
        setting, provider = _THINKING_SETTING[api]
        return (
            f"the client's request did not turn thinking on ({setting}); the recorded {response} "
            f"carries the thinking before a call ({unasked}), which {provider} sends only to a request that asks"
        )
    calls = needed(api, served, body, recorded)
    return refusal(calls, response) if calls else None


# Claude's thinking settings under which a response carries thinking blocks.
_THINKING_ON = frozenset({"enabled", "adaptive"})
# Per API: the opaque key of the thinking before a call, and the setting and provider that say it is asked for.
_THINKING_KEY = {"anthropic-messages": anthropic_messages.THINKING, "bedrock-converse": bedrock_converse.REASONING}
_THINKING_SETTING = {
    "anthropic-messages": ("`thinking: {type: enabled}`", "Anthropic"),
    "bedrock-converse": ("`additionalModelRequestFields.thinking: {type: enabled}`", "Claude on Bedrock"),
}


def _thinking_on(api: str, body: Any) -> bool:
    if not isinstance(body, Mapping):
        return False
    if api == "bedrock-converse":
        fields = body.get("additionalModelRequestFields")
        body = fields if isinstance(fields, Mapping) else {}
    thinking = body.get("thinking")
    return isinstance(thinking, Mapping) and thinking.get("type") in _THINKING_ON


def thinking_unasked(api: str, served: Served, body: Any, recorded: Any = None) -> str | None:
    """Where a served response holds the thinking before a call that a request without thinking turned on
    could not have been sent, or None. Claude thinks only when asked: on Anthropic's API always; on
    Bedrock where the recorded request asked (a model that reasons unasked is recorded without the
    setting). Judged on what was served only: a client that asked is judged on sending the thinking back
    (`roundtrip/opaque-dropped`)."""
    key = _THINKING_KEY.get(api)
    if key is None or _thinking_on(api, body):
        return None
    if api == "bedrock-converse" and not _thinking_on(api, recorded):
        return None
    return next((call.path for call in served.calls if call.opaque.get(key)), None)
