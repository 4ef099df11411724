"""A request that forces a tool call cannot be answered with a final text turn.

Every provider documents a setting under which the model must call a tool and answers with no text
of its own: OpenAI Chat Completions and Responses `tool_choice: "required"` or a named tool (the
model "must call one or more tools"; a named one "forces the model to call that tool"), Mistral
`"any"` or `"required"`, Anthropic `tool_choice` `{"type": "any"}` or `{"type": "tool"}` (Claude
"must use one of the provided tools"), Gemini `toolConfig.functionCallingConfig.mode: ANY` (the
model "is constrained to always predicting function calls only"), Bedrock Converse
`toolConfig.toolChoice` `any` or `tool` ("no text is generated"), Cohere v2 `tool_choice: "REQUIRED"`.

A client that forces the choice where the recorded request did not (smolagents sends `"required"`
on every step and ends its loop with a `final_answer` tool) asks for a turn the recording does not
hold: under that setting the provider calls a tool again where the recording answers in text. What
it would call, with what arguments, is not recorded, so the replay makes none up: the conversation
ends at that request, which is judged with every request before it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.engine.wire import Served

_FORCING_WORDS = frozenset({"required", "any"})  # tool_choice strings that force a call, in any case
_NAMED_TYPES = frozenset({"function", "custom", "tool", "any", "allowed_tools"})  # object choices that force one


def forcing(api: str, body: Any) -> str | None:
    """The request's setting that forces a tool call, as the request writes it; None when it has none."""
    if not isinstance(body, Mapping):
        return None
    if api == "gemini":
        config = _first(body, "toolConfig", "tool_config")
        calling = _first(config, "functionCallingConfig", "function_calling_config")
        mode = calling.get("mode") if isinstance(calling, Mapping) else None
        return (
            f"toolConfig.functionCallingConfig.mode {mode}" if isinstance(mode, str) and mode.upper() == "ANY" else None
        )
    if api == "bedrock-converse":
        config = body.get("toolConfig")
        choice = config.get("toolChoice") if isinstance(config, Mapping) else None
        if isinstance(choice, Mapping) and ("any" in choice or "tool" in choice):
            return f"toolConfig.toolChoice {next(k for k in ('any', 'tool') if k in choice)}"
        return None
    choice = body.get("tool_choice")
    if isinstance(choice, str):
        return f'tool_choice "{choice}"' if choice.lower() in _FORCING_WORDS else None
    if isinstance(choice, Mapping):
        kind = choice.get("type")
        if kind == "allowed_tools" and choice.get("mode") != "required":
            return None  # allowed tools in "auto" mode may still answer in text
        if isinstance(kind, str) and (kind in _NAMED_TYPES or kind not in ("auto", "none")):
            return f'tool_choice {{"type": "{kind}"}}'
    return None


def _first(node: Any, *keys: str) -> Any:
    if not isinstance(node, Mapping):
        return None
    return next((node[k] for k in keys if k in node), None)


def forced_past(api: str, served: Served, request: Any, recorded: Any, response: str) -> str | None:
    """Why the recorded response cannot answer `request`, when it forces a tool call the recorded
    request did not and the response calls no tool (a final text); None otherwise."""
    if served.calls:
        return None
    setting = forcing(api, request)
    if setting is None or forcing(api, recorded) is not None:
        return None
    return (
        f"the request forces a tool call ({setting}), under which the provider calls a tool again and "
        f"answers no text; the recorded {response} is a final text answer, and what the provider would "
        "have called is not recorded: the conversation ends at that request"
    )


def forced_after_end(api: str, last: Served, request: Any, response: str) -> str | None:
    """Why a request past the recorded final answer ends the conversation, when it forces a tool call.

    Some tool loops ask once more after the model's answer, forcing a tool of their own that ends the
    loop (dspy's ReAct forces `submit`; smolagents' `final_answer`): under that setting the provider
    calls the tool, and what it would call is not recorded. As with a forced request inside the
    recording, the conversation ends there; the requests before it are judged. A request that forces
    nothing past a final answer is the client asking again, which its verdict says."""
    if last.calls:
        return None
    setting = forcing(api, request)
    if setting is None:
        return None
    return (
        f"after the final answer ({response}) the client asked again, forcing a tool call ({setting}), as "
        "its loop ends by design; the provider would call a tool there, and what it would call is not "
        "recorded: the conversation ends at that request"
    )
