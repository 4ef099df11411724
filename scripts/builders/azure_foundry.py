"""Azure AI Foundry Responses responses and requests, in the shapes of the Foundry OpenAPI and of
azure-ai-agentserver-responses (ids as its id generator mints them: prefix, partition key, entropy)."""

from __future__ import annotations

from typing import Any

from builders import responses_common
from builders.responses_common import OPENAI_TYPES, Flavor
from conformance.corpus.loading import Scenario

API = "azure-foundry"

FOUNDRY_TYPES = {
    "a2a_preview_call": "A2AToolCall",
    "azure_ai_search_call": "AzureAISearchToolCall",
    "azure_function_call": "AzureFunctionToolCall",
    "bing_custom_search_preview_call": "BingCustomSearchToolCall",
    "bing_grounding_call": "BingGroundingToolCall",
    "browser_automation_preview_call": "BrowserAutomationToolCall",
    "fabric_dataagent_preview_call": "FabricDataAgentToolCall",
    "memory_command_preview_call": "MemoryCommandToolCall",
    "openapi_call": "OpenApiToolCall",
    "sharepoint_grounding_preview_call": "SharepointGroundingToolCall",
    "memory_search_call": "MemorySearchToolCall",
    "structured_outputs": "StructuredOutputsOutputItem",
    "workflow_action": "WorkflowActionOutputItem",
    "oauth_consent_request": "OAuthConsentRequestOutputItem",
}
# Not in the request Item union: the server runs these tools and serves both halves.
OUTPUT_ONLY = frozenset(
    {t for t in FOUNDRY_TYPES if t.endswith("_call") and t != "memory_search_call"}
    | {f"{t}_output" for t in FOUNDRY_TYPES if t.endswith("_call") and t != "memory_search_call"}
    | {"structured_outputs", "workflow_action", "oauth_consent_request"}
)
AGENT = {"type": "agent_reference", "name": "support-agent", "version": "3"}

FLAVOR = Flavor(
    api=API,
    uri="https://contoso-foundry.services.ai.azure.com/api/projects/support/openai/v1/responses",
    types={
        **{item_type: f"openai-responses/{name}" for item_type, name in OPENAI_TYPES.items()},
        **{item_type: f"{API}/{name}" for item_type, name in FOUNDRY_TYPES.items()},
    },
    model_version=lambda model: model,
    azure_ids=True,
    output_only=OUTPUT_ONLY,
    extra_body={"agent_reference": AGENT},
    extra_request={"agent_reference": AGENT},
)


def build(scenario: Scenario) -> list[dict[str, Any]]:
    return responses_common.build(FLAVOR, scenario)
