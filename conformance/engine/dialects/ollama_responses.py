"""Ollama's OpenAI-compatible Responses endpoint (`POST /v1/responses` on an Ollama server).

Ollama translates Responses to its chat API: a `function_call` it serves carries an item id it
mints per response (`fc_<response id>_<index>`, or `fc_<random>_<index>` in a stream) beside the
`call_id` of the model's tool call (`call_` and eight characters); on the way back only `call_id`
counts: the call becomes a chat tool call of that id, and a `function_call_output` a tool message
naming it.
"""

from __future__ import annotations

from conformance.engine.dialects.openai_responses import ResponsesItems, function_items

API = "ollama-responses"

ITEMS = function_items(API)

# ollama.com serves the API for its cloud models. A local server (localhost:11434 by default) is not
# claimed by host: other OpenAI-compatible servers run on localhost too.
HOSTS = ("ollama.com",)


class OllamaResponses(ResponsesItems):
    api = API
    call_type = f"{API}/FunctionCall"
    items = ITEMS
    hosts = HOSTS
