"""The official `google-genai` SDK on the Interactions API: the function-calling loop of its guide.

`client.interactions.create(model=..., input=..., tools=...)`, the tools as `{"type": "function", name,
description, parameters}` beside the server tools the recording declared. After each interaction the
loop runs the `function_call` steps and answers each with a `function_result` step carrying the call's
`id` as `call_id` and its `name`; the canned output goes as the result, a string. By default the whole
history goes back on every turn (`store=False`): the prompt as a `user_input` step, every step the model
produced as the SDK parsed it (dumped to JSON, server steps and signatures included), then the results;
with `Options(responses="previous-response-id")` the loop lets the server hold it and sends only the
results with `previous_interaction_id`. A stream (`stream=True`) is read to the end and its steps rebuilt
from `step.start` and `step.delta` (the `arguments_delta` pieces joined). google-genai 3.6.1 sends the
client's API version in the path, `v1` unless `Options(gemini_api_version=...)` says another.
Retries are off (`HttpRetryOptions(attempts=1)`).
"""

from __future__ import annotations

import json
from typing import Any

from conformance.clients.official_sdks.common import (
    MAX_TURNS,
    Options,
    each_run,
    function_tools_only,
    parameters_of,
    restored,
    server_tools,
    tls,
)
from conformance.connectors.client import ToolLoop


def _dumped(step: Any) -> dict[str, Any]:
    """A parsed step as the JSON the API takes back."""
    if isinstance(step, dict):
        return dict(step)
    dumped: dict[str, Any] = step.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def _streamed_steps(events: Any) -> tuple[list[dict[str, Any]], str | None]:
    """The steps of a stream, rebuilt from its events, and the interaction's id."""
    steps: dict[int, dict[str, Any]] = {}
    pieces: dict[int, list[str]] = {}
    texts: dict[int, list[str]] = {}
    interaction_id: str | None = None
    for event in events:
        kind = getattr(event, "event_type", None)
        if kind in ("interaction.created", "interaction.completed"):
            interaction_id = getattr(event.interaction, "id", None) or interaction_id
        elif kind == "step.start":
            steps[event.index] = _dumped(event.step)
        elif kind == "step.delta" and event.index in steps:
            delta = _dumped(event.delta)
            if delta.get("type") == "arguments_delta":
                pieces.setdefault(event.index, []).append(delta.get("arguments") or "")
            elif delta.get("type") == "text":
                texts.setdefault(event.index, []).append(delta.get("text") or "")
            elif delta.get("type") == "thought_signature" and delta.get("signature"):
                steps[event.index]["signature"] = delta["signature"]
            elif delta.get("type") == steps[event.index].get("type"):
                steps[event.index].update({k: v for k, v in delta.items() if k != "type"})
    for index, joined in pieces.items():
        steps[index]["arguments"] = json.loads("".join(joined) or "{}")
    for index, text in texts.items():
        steps[index]["content"] = [*(steps[index].get("content") or []), {"type": "text", "text": "".join(text)}]
    return [steps[k] for k in sorted(steps)], interaction_id


def _text(steps: list[dict[str, Any]]) -> str:
    return "".join(
        c.get("text") or ""
        for s in steps
        if s.get("type") == "model_output"
        for c in s.get("content") or []
        if isinstance(c, dict) and c.get("type") == "text"
    )


def gemini_interactions(loop: ToolLoop, options: Options) -> str:
    from google import genai
    from google.genai import types

    function_tools_only(loop, "Gemini Interactions")
    http = types.HttpOptions(
        base_url=loop.base_url,
        retry_options=types.HttpRetryOptions(attempts=1),
        client_args={"verify": tls()},
        async_client_args={"verify": tls(), "ssl": tls()},
    )
    if options.gemini_api_version:
        http.api_version = options.gemini_api_version
    client = genai.Client(api_key=loop.api_key, http_options=http)
    tools: list[Any] = [
        {"type": "function", "name": t["name"], "description": t.get("description", ""), "parameters": parameters_of(t)}
        for t in loop.tools
    ]
    tools += server_tools(loop)
    stateful = options.responses == "previous-response-id"
    history: list[Any] = restored(loop, "google-genai")
    new: list[Any] = list(history)
    previous: str | None = None

    def run() -> str:
        nonlocal new, previous
        for _ in range(MAX_TURNS):
            request: dict[str, Any] = {"model": loop.model, "tools": tools}
            if stateful:
                request["input"] = new
                if previous:
                    request["previous_interaction_id"] = previous
            else:
                request.update(input=history, store=False)
            if options.streams(loop):
                steps, previous = _streamed_steps(client.interactions.create(**request, stream=True))
            else:
                interaction = client.interactions.create(**request)
                steps = [_dumped(s) for s in interaction.steps or []]
                previous = interaction.id
            steps = [s for s in steps if s.get("type") != "user_input"]  # the input, echoed
            history.extend(steps)
            calls = [s for s in steps if s.get("type") == "function_call"]
            if not calls:
                new = []
                return _text(steps)
            new = [
                {
                    "type": "function_result",
                    "call_id": call["id"],
                    "name": call["name"],
                    "result": loop.call_tool(call["name"], call.get("arguments") or {}),
                }
                for call in calls
            ]
            history.extend(new)
        return ""

    def begin(prompt: str) -> Any:
        step = {"type": "user_input", "content": [{"type": "text", "text": prompt}]}
        new.append(step)
        return step

    return each_run(loop, history, begin, run)
