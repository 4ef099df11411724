"""How the Python framework client adapters declare a scenario's server tools to their library.

The mapping is the adapters' own code, so these run without the libraries installed; each
library's tests (tests/test_client_<library>.py) run the scenarios through it.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients import langchain_chat, litellm_sdk, pydantic_ai
from conformance.connectors.client import RequestSettings, ScenarioUnsupported, ToolLoop

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


def test_pydantic_ai_native_tool_classes_by_api() -> None:
    anthropic: list[dict[str, Any]] = [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 3, "cache_control": {"type": "ephemeral"}},
        {"type": "web_fetch_20250910", "name": "web_fetch", "max_uses": 3},
        {"type": "code_execution_20250825", "name": "code_execution"},
        {"type": "advisor_20260301", "name": "advisor", "model": "claude-opus-4-6"},
        {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
        {"type": "mcp_toolset", "mcp_server_name": "calendar"},
        {"type": "memory_20250818", "name": "memory"},  # MemoryTool needs a client-run memory tool: left out
    ]
    served = _loop("anthropic-messages", anthropic, settings=RequestSettings(body={"mcp_servers": [CALENDAR]}))
    assert pydantic_ai.native_tool_specs(served) == [
        ("WebSearchTool", {"max_uses": 3}),
        ("WebFetchTool", {"max_uses": 3}),
        ("CodeExecutionTool", {}),
        ("AdvisorTool", {"model": "claude-opus-4-6"}),
        ("ToolSearch", {"strategy": "regex"}),
        ("MCPServerTool", {"id": "calendar", "url": CALENDAR["url"]}),
    ]
    responses: list[dict[str, Any]] = [
        {"type": "web_search_preview_2025_03_11", "search_context_size": "medium"},
        {"type": "file_search", "vector_store_ids": ["vs_1"], "max_num_results": 1},
        {"type": "code_interpreter", "container": {"type": "auto"}},
        {"type": "image_generation"},
        {"type": "mcp", "server_label": "deepwiki", "server_url": "https://mcp.example", "require_approval": "never"},
    ]
    assert pydantic_ai.native_tool_specs(_loop("openai-responses", responses)) == [
        ("WebSearchTool", {"search_context_size": "medium"}),
        ("FileSearchTool", {"file_store_ids": ["vs_1"], "max_num_results": 1}),
        ("CodeExecutionTool", {}),
        ("ImageGenerationTool", {}),
        ("MCPServerTool", {"id": "deepwiki", "url": "https://mcp.example"}),
    ]
    gemini = [{"type": "google_search"}, {"type": "url_context"}, {"type": "code_execution"}]
    assert pydantic_ai.native_tool_specs(_loop("gemini", gemini)) == [
        ("WebSearchTool", {}),
        ("WebFetchTool", {}),
        ("CodeExecutionTool", {}),
    ]


def test_pydantic_ai_names_the_responses_built_in_it_has_no_class_for() -> None:
    with pytest.raises(
        ScenarioUnsupported, match="no native tool for the Responses built-in programmatic_tool_calling"
    ):
        pydantic_ai.native_tool_specs(_loop("openai-responses", [{"type": "programmatic_tool_calling"}]))


def test_pydantic_ai_declares_no_mcp_server_that_asks_for_approval() -> None:
    mcp = {"type": "mcp", "server_label": "deepwiki", "server_url": "https://mcp.example", "require_approval": "always"}
    with pytest.raises(ScenarioUnsupported, match="require_approval 'never'"):
        pydantic_ai.native_tool_specs(_loop("openai-responses", [mcp]))


def test_pydantic_ai_declares_no_mcp_toolset_without_its_server() -> None:
    toolset = {"type": "mcp_toolset", "mcp_server_name": "calendar"}
    assert pydantic_ai.native_tool_specs(_loop("anthropic-messages", [toolset])) == []


def test_litellm_declares_anthropic_mcp_servers_as_its_mcp_tool() -> None:
    toolset = {"type": "mcp_toolset", "mcp_server_name": "calendar"}
    other = {"type": "url", "url": "https://mcp.example.com/other", "name": "other"}  # named by no toolset
    body = {"mcp_servers": [CALENDAR, other]}
    tools = litellm_sdk.mcp_tools(_loop("anthropic-messages", [toolset], settings=RequestSettings(body=body)))
    assert tools == [
        {"type": "mcp", "server_label": "calendar", "server_url": CALENDAR["url"], "require_approval": "never"}
    ]
    assert litellm_sdk.mcp_tools(_loop("anthropic-messages", [])) == []


def test_litellm_sets_allowed_callers_on_anthropic_function_tools_only() -> None:
    loop = _loop("anthropic-messages", [])
    loop.tools[0]["allowed_callers"] = ["code_execution_20250825"]
    assert litellm_sdk._chat_tools(loop)[0]["allowed_callers"] == ["code_execution_20250825"]
    loop.api = "openai-chat"
    assert "allowed_callers" not in litellm_sdk._chat_tools(loop)[0]


def test_litellm_lets_gemini_run_its_tools_beside_functions_when_the_recording_did() -> None:
    combined = RequestSettings(body={"toolConfig": {"includeServerSideToolInvocations": True}})
    assert litellm_sdk.gemini_options(_loop("gemini", [], settings=combined)) == {
        "include_server_side_tool_invocations": True
    }
    assert litellm_sdk.gemini_options(_loop("gemini", [])) == {}


def test_langchain_binds_no_mcp_toolset_naming_another_server() -> None:
    toolset = {"type": "mcp_toolset", "mcp_server_name": "mail"}
    loop = _loop("anthropic-messages", [toolset], settings=RequestSettings(body={"mcp_servers": [CALENDAR]}))
    assert langchain_chat.server_tools(loop) == []
    assert langchain_chat.mcp_servers(loop) is None
