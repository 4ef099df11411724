"""OpenResponses (`POST /v1/responses` on the Vercel AI Gateway and other implementations).

The open specification of the Responses items: a `function_call` carries its item id (`fc_...`)
and a `call_id` of 1 to 64 characters, which the `function_call_output` answering it repeats.
Provider-specific items carry a provider slug in their type (`openai:web_search_call`) and are not
tool calls of this dialect. Argument deltas are keyed by `item_id` and `output_index`.
"""

from __future__ import annotations

from conformance.engine.dialects.openai_responses import ResponsesItems, function_items

API = "openresponses"

ITEMS = function_items(API)

HOSTS = ("ai-gateway.vercel.sh",)


class OpenResponses(ResponsesItems):
    api = API
    call_type = f"{API}/FunctionCall"
    items = ITEMS
    hosts = HOSTS
