"""Azure AI Foundry Responses (`POST {project}/openai/v1/responses`, Azure OpenAI `/openai/responses`,
and agent endpoints `.../protocols/openai/responses`).

The OpenAI Responses items, read as OpenAI's wire types, plus Foundry's own tool items. Foundry's
tools run on the server: each `*_call` item and the `*_call_output` item answering it by `call_id`
are both served in the response, beside an item id of their own (`bg_`, `bgo_`), and neither is
accepted back as input. `memory_search_call`, `structured_outputs`, `workflow_action` and
`oauth_consent_request` carry one id, the item's, which is their correlation id; of them only
`memory_search_call` goes back as input.
"""

from __future__ import annotations

from typing import Any

from conformance.engine.dialects.openai_responses import ITEMS, ItemKind, ResponsesItems, kinds

API = "azure-foundry"


def _server_pair(call_type: str, call: str, output: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """A Foundry tool: a call and its output, both served, paired by call_id."""
    return {
        call_type: (
            call,
            {"item_field": "id", "answer": f"{call_type}_output", "runner": "provider", "arguments": "arguments"},
        ),
        f"{call_type}_output": (output, {"role": "output", "answer": call_type, "runner": "provider"}),
    }


def _single(name: str) -> tuple[str, dict[str, Any]]:
    """An item that is its own call and result, under its item id."""
    return (name, {"id_field": "id", "runner": "provider"})


FOUNDRY_ITEMS: dict[str, ItemKind] = {
    **ITEMS,
    **kinds(
        API,
        {
            **_server_pair("a2a_preview_call", "A2AToolCall", "A2AToolCallOutput"),
            **_server_pair("azure_ai_search_call", "AzureAISearchToolCall", "AzureAISearchToolCallOutput"),
            **_server_pair("azure_function_call", "AzureFunctionToolCall", "AzureFunctionToolCallOutput"),
            **_server_pair(
                "bing_custom_search_preview_call", "BingCustomSearchToolCall", "BingCustomSearchToolCallOutput"
            ),
            **_server_pair("bing_grounding_call", "BingGroundingToolCall", "BingGroundingToolCallOutput"),
            **_server_pair(
                "browser_automation_preview_call", "BrowserAutomationToolCall", "BrowserAutomationToolCallOutput"
            ),
            **_server_pair("fabric_dataagent_preview_call", "FabricDataAgentToolCall", "FabricDataAgentToolCallOutput"),
            **_server_pair("memory_command_preview_call", "MemoryCommandToolCall", "MemoryCommandToolCallOutput"),
            **_server_pair("openapi_call", "OpenApiToolCall", "OpenApiToolCallOutput"),
            **_server_pair(
                "sharepoint_grounding_preview_call", "SharepointGroundingToolCall", "SharepointGroundingToolCallOutput"
            ),
            "memory_search_call": _single("MemorySearchToolCall"),
            "structured_outputs": _single("StructuredOutputsOutputItem"),
            # Self-contained: no call precedes them and nothing answers them; the item id is the
            # id an adapter keeps for them.
            "workflow_action": _single("WorkflowActionOutputItem"),
            "oauth_consent_request": _single("OAuthConsentRequestOutputItem"),
        },
    ),
}

HOSTS = ("services.ai.azure.com", "openai.azure.com", "cognitiveservices.azure.com")


class AzureFoundry(ResponsesItems):
    api = API
    items = FOUNDRY_ITEMS
    hosts = HOSTS
