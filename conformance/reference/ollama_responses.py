"""Reference codec for Ollama's Responses endpoint: the OpenAI Responses codec restricted to
function items. `call_id` is the neutral call id; the item id Ollama mints rides in
`extra["item_id"]` and goes back in `id` (Ollama ignores it, OpenAI's server would not)."""

from __future__ import annotations

from conformance.reference.openai_responses import ResponsesCodec, table

API = "ollama-responses"

ITEMS = table(
    API,
    {
        "function_call": ("FunctionCall", {"item_id": True, "arguments": "arguments"}),
        "function_call_output": ("FunctionCallOutput", {"output": True}),
    },
)


class OllamaResponsesCodec(ResponsesCodec):
    api = API
    items = ITEMS
    native_apis = (API,)
