"""What every official-SDK tool loop shares: how it talks (`Options`), and the scenario's tools.

An application declares its own function tools (name, description, JSON schema) and, for server
and built-in tools, the provider's tool definitions as its guides show them; the recording's
first request says which were declared, so `server_tools` and `recorded_extras` take those from it.
"""

from __future__ import annotations

import functools
import json
import re
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from conformance.connectors.client import ToolLoop

MAX_TURNS = 8

# Keys that mark a recorded tool as one the application describes itself (a function or custom
# tool), in each API's layout; any other recorded tool is a server or built-in tool, passed as given.
_CLIENT_TOOL_KEYS = frozenset({"input_schema", "parameters", "functionDeclarations", "function_declarations"})


@dataclass(frozen=True)
class Options:
    """How the SDKs talk to the replay; the defaults are each SDK's documented plain tool loop.

    `stream` forces streaming on or off (None: as the scenario was recorded). `responses` chooses
    how a Responses client sends its history: all of it on every turn (`resend`) or only the new
    items after `previous_response_id` (Gemini Interactions: all the steps, or the new ones after
    `previous_interaction_id`). `anthropic` runs `messages.create`/`messages.stream`
    (`messages`) or the beta tool runner over a server-held message thread (`tool-runner`).
    `gemini_api_version` overrides google-genai's default API version; `gemini_model_lookup` and
    `ollama_show` make the side requests applications make before they chat.
    """

    stream: bool | None = None
    responses: Literal["resend", "previous-response-id"] = "resend"
    anthropic: Literal["messages", "tool-runner"] = "messages"
    gemini_api_version: str | None = None
    gemini_model_lookup: bool = False
    ollama_show: bool = False

    def streams(self, loop: ToolLoop) -> bool:
        return loop.stream if self.stream is None else self.stream

    def label(self) -> str:
        parts = []
        if self.stream is not None:
            parts.append("stream" if self.stream else "no-stream")
        if self.responses != "resend":
            parts.append(self.responses)
        if self.anthropic != "messages":
            parts.append(self.anthropic)
        if self.gemini_api_version:
            parts.append(f"gemini-{self.gemini_api_version}")
        if self.gemini_model_lookup:
            parts.append("model-lookup")
        if self.ollama_show:
            parts.append("ollama-show")
        return "+".join(parts)


_BEDROCK_REGION = re.compile(r"bedrock-runtime[.-](?:fips\.)?([a-z0-9-]+)\.amazonaws")


def installed_version(package: str) -> str:
    """The installed version of a distribution, or "not installed" (an adapter's module imports without
    its library, so that its API list and skips can be shown)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def bedrock_region(base_url: str) -> str:
    """The AWS region a Bedrock runtime endpoint names; us-east-1 for one that names none (the replay)."""
    found = _BEDROCK_REGION.search(base_url)
    return found.group(1) if found else "us-east-1"


def one_attempt() -> dict[str, Any]:
    """botocore's retry settings for a single attempt, so that a provider error surfaces once."""
    return {"total_max_attempts": 1, "mode": "standard"}


def bedrock_client(loop: ToolLoop) -> Any:
    """A boto3 `bedrock-runtime` client pointed at the loop, signing with a dummy key, one attempt a call:
    what the frameworks that take a client of one's own are handed."""
    import boto3
    from botocore.config import Config

    return boto3.client(
        "bedrock-runtime",
        region_name=bedrock_region(loop.base_url),
        endpoint_url=loop.base_url,
        aws_access_key_id="conformance",
        aws_secret_access_key=loop.api_key,
        config=Config(retries=one_attempt()),
    )


@functools.cache
def tls() -> ssl.SSLContext:
    """One certificate store for every SDK client a run builds. Each SDK loads the system's
    certificates anew for every client it makes, which was most of a replayed case's time; the
    clients are given this one instead (a documented option of each SDK), which changes nothing
    they send."""
    return ssl.create_default_context()


def arguments_of(raw: Any) -> Any:
    """A call's arguments as an object, when the wire sent them as a JSON string."""
    if isinstance(raw, str):
        try:
            return json.loads(raw or "{}")
        except ValueError:
            return raw
    return raw


def json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def restored(loop: ToolLoop, sdk: str) -> list[Any]:
    """The conversation an application restores before the session's first run: the saved request
    messages of `loop.history_wire`, sent again as the SDK's message list (empty for a new conversation).
    A raw SDK keeps no conversation of its own, so what it cannot take is said in the skip: a history
    saved in another API's wire form, and a run cut off before its tool answered, whose repair is the
    application's."""
    if loop.history and loop.history_api != loop.api:
        loop.skip(
            f"{sdk} takes a history in its own API's wire form only; one saved from {loop.history_api} "
            "is the application's to translate"
        )
    if loop.interrupted:
        loop.skip(
            f"{sdk} keeps no conversation of its own: a run cut off before its tool answered leaves the "
            "application's message list to repair"
        )
    return list(loop.history_wire)


def each_run(loop: ToolLoop, conversation: list[Any], message: Callable[[str], Any], run: Callable[[], str]) -> str:
    """The session's runs on one conversation, as an application plays them: each run's user message
    (`message(prompt)`) appended to it, then the SDK's tool loop (`run`); a run cut off before its tool
    answered ends there. The last run's answer."""
    answer = ""
    for prompt in loop.runs:
        if prompt is not None:
            conversation.append(message(prompt))
        answer = run()
    return answer


def server_tools(loop: ToolLoop) -> list[Any]:
    """The provider's own tools the recording declared (web search, code execution, MCP, shell...), as recorded."""
    return [
        t
        for t in loop.recorded_tools
        if isinstance(t, dict) and t.get("type") not in ("function", "custom") and not _CLIENT_TOOL_KEYS & t.keys()
    ]


def named_mcp_servers(loop: ToolLoop) -> list[dict[str, Any]]:
    """The Anthropic MCP servers the recording declared (its request's `mcp_servers`) that the scenario's
    `mcp_toolset` tools name, as recorded: what a client declares for a toolset to be served."""
    named = {t.get("mcp_server_name") for t in loop.server_tools if t.get("type") == "mcp_toolset"}
    servers = loop.settings.body.get("mcp_servers")
    return [s for s in servers if isinstance(s, dict) and s.get("name") in named] if isinstance(servers, list) else []


def recorded_extras(loop: ToolLoop, name: str, *, drop: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Fields the recording's definition of a function tool carries beyond name, description and schema
    (`defer_loading`, `allowed_callers`, `strict`): options an application sets on that tool."""
    plain = {"type", "name", "description", "parameters", "input_schema", "function", *drop}
    for tool in loop.recorded_tools:
        if not isinstance(tool, dict):
            continue
        function = tool.get("function")
        if tool.get("name") == name or (isinstance(function, dict) and function.get("name") == name):
            return {k: v for k, v in tool.items() if k not in plain}
    return {}


def split_settings(method: Any, settings: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The recorded request settings as the keyword arguments `method` declares, and the rest for
    the SDK's `extra_body`: an application passes `max_tokens=` or `mcp_servers=` by name where
    the SDK has them, and anything newer than the SDK through its documented escape hatch."""
    import inspect

    declared = inspect.signature(method).parameters
    named = {k: v for k, v in settings.items() if k in declared and k != "extra_body"}
    return named, {k: v for k, v in settings.items() if k not in named}


def parameters_of(tool: Mapping[str, Any]) -> dict[str, Any]:
    return dict(tool.get("parameters") or {"type": "object", "properties": {}})


def is_custom(tool: Mapping[str, Any]) -> bool:
    return tool.get("type") == "custom"


def chat_tool(tool: Mapping[str, Any], **beside: Any) -> dict[str, Any]:
    """One of the scenario's tools in the Chat Completions layout: a free-form tool as `custom`, any
    other as a function with its parameters, `beside` it what a provider's extension adds there."""
    if is_custom(tool):
        return {"type": "custom", "custom": {"name": tool["name"], "description": tool.get("description", "")}}
    function = {"name": tool["name"], "description": tool.get("description", ""), "parameters": parameters_of(tool)}
    return {"type": "function", "function": function, **beside}


def function_tools_only(loop: ToolLoop, api: str) -> None:
    """Declare the scenario unsupported when it has a free-form (custom) tool, which `api` lacks."""
    custom = [t["name"] for t in loop.tools if is_custom(t)]
    if custom:
        loop.skip(f"{api} has no free-form (custom) tools; the scenario declares {', '.join(custom)}")


def chat_function_tools(loop: ToolLoop, api: str) -> list[dict[str, Any]]:
    """The scenario's tools in the Chat Completions layout Mistral, Cohere and Ollama take."""
    function_tools_only(loop, api)
    return [chat_tool(t) for t in loop.tools]
