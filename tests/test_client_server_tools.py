"""How the Python framework client adapters declare a scenario's server tools to their library.

The mapping is the adapters' own code, so these run without the libraries installed; each
library's tests (tests/test_client_<library>.py) run the scenarios through it.
"""

from __future__ import annotations

from typing import Any

from conformance.clients import langchain_chat
from conformance.connectors.client import RequestSettings, ToolLoop

WEATHER: dict[str, Any] = {"name": "get_weather", "description": "", "parameters": {"type": "object", "properties": {}}}
CALENDAR = {"type": "url", "url": "https://mcp.example.com/calendar/sse", "name": "calendar"}


def _loop(api: str, server_tools: list[dict[str, Any]], **extra: Any) -> ToolLoop:
    return ToolLoop(
        api=api,
        model="m",
        prompt="p",
        stream=False,
        tools=[dict(WEATHER)],  # type: ignore[list-item]
        base_url="http://127.0.0.1:1",
        server_tools=server_tools,
        **extra,
    )


def test_langchain_binds_anthropic_server_tools_by_type_prefix() -> None:
    tools: list[dict[str, Any]] = [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
        {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
        {"type": "advisor_20260301", "name": "advisor", "model": "claude-opus-4-6"},
        {"type": "some_future_tool_20300101", "name": "future"},  # not a prefix langchain-anthropic passes on
    ]
    assert langchain_chat.server_tools(_loop("anthropic-messages", tools)) == tools[:3]
    assert langchain_chat.server_tools(_loop("ollama-messages", tools[:1])) == tools[:1]


def test_langchain_binds_an_mcp_toolset_only_beside_its_server() -> None:
    toolset = {"type": "mcp_toolset", "mcp_server_name": "calendar"}
    served = _loop("anthropic-messages", [toolset], settings=RequestSettings(body={"mcp_servers": [CALENDAR]}))
    assert langchain_chat.server_tools(served) == [toolset]
    assert langchain_chat.mcp_servers(served) == [CALENDAR]
    alone = _loop("anthropic-messages", [toolset])
    assert langchain_chat.server_tools(alone) == []
    assert langchain_chat.mcp_servers(alone) is None


def test_langchain_binds_the_responses_tools_langchain_core_knows() -> None:
    tools: list[dict[str, Any]] = [
        {"type": "web_search_preview_2025_03_11"},
        {"type": "file_search", "vector_store_ids": ["vs_1"]},
        {"type": "mcp", "server_label": "deepwiki", "require_approval": "always"},
        {"type": "programmatic_tool_calling"},  # convert_to_openai_tool rejects it
    ]
    assert langchain_chat.server_tools(_loop("openai-responses", tools)) == tools[:3]
    assert langchain_chat.server_tools(_loop("openai-chat", tools)) == []


def test_langchain_carries_allowed_callers_and_recorded_options_in_extras() -> None:
    recorded = [{**WEATHER, "defer_loading": True, "strict": True}]
    loop = _loop("anthropic-messages", [], recorded_tools=recorded)
    spec = {**WEATHER, "allowed_callers": ["code_execution_20250825"]}
    assert langchain_chat.tool_extras(loop, spec) == {
        "defer_loading": True,
        "allowed_callers": ["code_execution_20250825"],
    }  # `strict` is bind_tools' own argument, not an extra
    assert langchain_chat.tool_extras(_loop("openai-responses", [], recorded_tools=recorded), spec) == {}
