"""The official `google-genai` SDK: the manual function-calling loop of the Gemini API guide.

Automatic function calling is off (`AutomaticFunctionCallingConfig(disable=True)`), so the loop is
the application's: the model's content is appended as returned (`response.candidates[0].content`,
thought signatures included), then one user content with a `function_response` part per function
call, carrying the call's `id` where the model gave one (Gemini 3) and its name. A canned output
that is a JSON object is the response itself; any other output goes as `{"result": output}`, as the
guide does. Streams (`generate_content_stream`) are read to the end and their parts joined into one
content. Server tools (Google Search, code execution) and the recorded `toolConfig` and
`generationConfig` settings are passed in `GenerateContentConfig`.

Options: another API version than the SDK's default (`HttpOptions(api_version=...)`; google-genai 3
defaults to `v1`, where the recordings were made on `v1beta`), and a model lookup (`client.models.get`)
before the first turn, as applications do to read a model's limits.
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
from conformance.engine.neutral import ToolSpec


def _response_of(output: str) -> dict[str, Any]:
    try:
        value = json.loads(output)
    except ValueError:
        value = output
    return value if isinstance(value, dict) else {"result": value}


def _schema_field(tool: ToolSpec) -> str:
    """`parameters` (Gemini's OpenAPI subset), or `parameters_json_schema` for a JSON Schema that subset
    cannot hold (a `type` listing several types, `["null", "array"]`, as ADK Go declares an optional list)."""

    def plural(node: Any) -> bool:
        if isinstance(node, dict):
            return isinstance(node.get("type"), list) or any(plural(v) for v in node.values())
        return isinstance(node, list) and any(plural(v) for v in node)

    return "parameters_json_schema" if plural(parameters_of(tool)) else "parameters"


def _config(loop: ToolLoop) -> Any:
    from google.genai import types

    function_tools_only(loop, "Gemini")
    declarations = [
        types.FunctionDeclaration.model_validate(
            {"name": t["name"], "description": t.get("description", ""), _schema_field(t): parameters_of(t)}
        )
        for t in loop.tools
    ]
    tools: list[Any] = [types.Tool(function_declarations=declarations)] if declarations else []
    tools += [types.Tool.model_validate(t) for t in server_tools(loop)]
    settings = dict(loop.settings.body)
    fields: dict[str, Any] = dict(settings.pop("generationConfig", None) or {})
    for name in ("toolConfig", "systemInstruction", "safetySettings", "cachedContent", "labels"):
        if name in settings:
            fields[name] = settings.pop(name)
    config = types.GenerateContentConfig.model_validate(fields)
    config.tools = tools
    config.automatic_function_calling = types.AutomaticFunctionCallingConfig(disable=True)
    return config


def _joined(chunks: list[Any]) -> Any:
    """The model's content from a stream: every chunk's parts, in order."""
    from google.genai import types

    parts: list[Any] = []
    for chunk in chunks:
        if chunk.candidates and chunk.candidates[0].content and chunk.candidates[0].content.parts:
            parts.extend(chunk.candidates[0].content.parts)
    return types.Content(role="model", parts=parts)


def gemini(loop: ToolLoop, options: Options) -> str:
    from google import genai
    from google.genai import types

    http = types.HttpOptions(
        base_url=loop.base_url,
        retry_options=types.HttpRetryOptions(attempts=1),
        client_args={"verify": tls()},
        async_client_args={"verify": tls(), "ssl": tls()},
    )
    if options.gemini_api_version:
        http.api_version = options.gemini_api_version
    client = genai.Client(api_key=loop.api_key, http_options=http)
    config = _config(loop)
    if options.gemini_model_lookup:
        client.models.get(model=loop.model)
    contents: list[Any] = restored(loop, "google-genai")

    def run() -> str:
        for _ in range(MAX_TURNS):
            if options.streams(loop):
                chunks = client.models.generate_content_stream(model=loop.model, contents=contents, config=config)
                content = _joined(list(chunks))
            else:
                response = client.models.generate_content(model=loop.model, contents=contents, config=config)
                content = response.candidates[0].content if response.candidates else None
            if content is None:
                return ""
            contents.append(content)
            calls = [part.function_call for part in content.parts or [] if part.function_call is not None]
            if not calls:
                return "".join(part.text or "" for part in content.parts or [] if not part.thought)
            answers = [
                types.Part(
                    function_response=types.FunctionResponse(
                        id=call.id,
                        name=call.name,
                        response=_response_of(loop.call_tool(call.name or "", call.args or {})),
                    )
                )
                for call in calls
            ]
            contents.append(types.Content(role="user", parts=answers))
        return ""

    return each_run(loop, contents, lambda prompt: types.Content(role="user", parts=[types.Part(text=prompt)]), run)
