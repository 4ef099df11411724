"""Reference codec for OpenResponses: the OpenAI Responses codec restricted to function items.

`call_id` (1 to 64 characters) is the neutral call id and the one `function_call_output` repeats;
the item id (`fc_...`) rides in `extra["item_id"]` and goes back in `id`.
"""

from __future__ import annotations

from conformance.reference.openai_responses import ResponsesCodec, table

API = "openresponses"

ITEMS = table(
    API,
    {
        "function_call": ("FunctionCall", {"item_id": True, "arguments": "arguments"}),
        "function_call_output": ("FunctionCallOutput", {"output": True}),
    },
)


class OpenResponsesCodec(ResponsesCodec):
    api = API
    items = ITEMS
    native_apis = (API,)
