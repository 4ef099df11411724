"""Reference codec for Azure AI Foundry Responses: the OpenAI Responses codec with Foundry's items.

Foundry's tools run on the server. Each tool call and the output item answering it are decoded as a
provider-run call and its result under the same `call_id` (never the items' own `bg_`/`bgo_` ids),
and neither goes back as input. `memory_search_call` goes back with its item id; `structured_outputs`,
`workflow_action` and `oauth_consent_request` are decoded as provider-run items under their item id
and are not sent back.
"""

from __future__ import annotations

from typing import Any

from conformance.reference.openai_responses import ITEMS, Kind, ResponsesCodec, table

API = "azure-foundry"

_SERVER_CALL = {"item_id": True, "server": True, "replay": False, "arguments": "arguments"}
_SERVER_OUTPUT = {"output": True, "server": True, "replay": False}


def _pair(call_type: str, call: str, output: str) -> dict[str, tuple[str, dict[str, Any]]]:
    return {call_type: (call, _SERVER_CALL), f"{call_type}_output": (output, _SERVER_OUTPUT)}


FOUNDRY_ITEMS: dict[str, Kind] = {
    **ITEMS,
    **table(
        API,
        {
            **_pair("a2a_preview_call", "A2AToolCall", "A2AToolCallOutput"),
            **_pair("azure_ai_search_call", "AzureAISearchToolCall", "AzureAISearchToolCallOutput"),
            **_pair("azure_function_call", "AzureFunctionToolCall", "AzureFunctionToolCallOutput"),
            **_pair("bing_custom_search_preview_call", "BingCustomSearchToolCall", "BingCustomSearchToolCallOutput"),
            **_pair("bing_grounding_call", "BingGroundingToolCall", "BingGroundingToolCallOutput"),
            **_pair("browser_automation_preview_call", "BrowserAutomationToolCall", "BrowserAutomationToolCallOutput"),
            **_pair("fabric_dataagent_preview_call", "FabricDataAgentToolCall", "FabricDataAgentToolCallOutput"),
            **_pair("memory_command_preview_call", "MemoryCommandToolCall", "MemoryCommandToolCallOutput"),
            **_pair("openapi_call", "OpenApiToolCall", "OpenApiToolCallOutput"),
            **_pair(
                "sharepoint_grounding_preview_call", "SharepointGroundingToolCall", "SharepointGroundingToolCallOutput"
            ),
            "memory_search_call": ("MemorySearchToolCall", {"ref": "id", "server": True}),
            "structured_outputs": ("StructuredOutputsOutputItem", {"ref": "id", "server": True, "replay": False}),
            "workflow_action": ("WorkflowActionOutputItem", {"ref": "id", "server": True, "replay": False}),
            "oauth_consent_request": ("OAuthConsentRequestOutputItem", {"ref": "id", "server": True, "replay": False}),
        },
    ),
}


class AzureFoundryCodec(ResponsesCodec):
    api = API
    items = FOUNDRY_ITEMS
    # Foundry serves OpenAI's item types under OpenAI's wire-type names.
    native_apis = (API, "openai-responses")
