"""Reference codec for Mistral Responses: the OpenAI Responses codec restricted to function items.

`call_id` is the neutral call id and the one `function_call_output` repeats; the item id, where the
server gives one, rides in `extra["item_id"]` and goes back in `id`; `caller` and `namespace` go
back as they came, with the rest of the item's fields.
"""

from __future__ import annotations

from conformance.reference.openai_responses import ResponsesCodec, table

API = "mistral-responses"

ITEMS = table(
    API,
    {
        "function_call": ("FunctionCall", {"item_id": True, "arguments": "arguments"}),
        "function_call_output": ("FunctionCallOutput", {"output": True}),
    },
)


class MistralResponsesCodec(ResponsesCodec):
    api = API
    items = ITEMS
    native_apis = (API,)
