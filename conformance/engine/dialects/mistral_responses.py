"""Mistral Responses (`POST /v1/responses` on api.mistral.ai; mistralai 3.4.0 and later).

The Responses items of function calling: a `function_call` carries a `call_id`, which the
`function_call_output` answering it repeats, and an optional, nullable item `id`. The fields that come
with a call and go back with it (`caller`, `namespace`) are listed in its wire-type case.
Argument deltas are keyed by `item_id`.
"""

from __future__ import annotations

from conformance.engine.dialects.openai_responses import ResponsesItems, kinds

API = "mistral-responses"

ITEMS = kinds(
    API,
    {
        "function_call": (
            "FunctionCall",
            {
                "item_field": "id",
                "answer": "function_call_output",
                "arguments": "arguments",
            },
        ),
        "function_call_output": ("FunctionCallOutput", {"role": "output", "answer": "function_call"}),
    },
)

HOSTS = ("api.mistral.ai",)


class MistralResponses(ResponsesItems):
    api = API
    call_type = f"{API}/FunctionCall"
    items = ITEMS
    hosts = HOSTS
