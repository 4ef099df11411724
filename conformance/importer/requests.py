"""What a recorded request says besides its calls: the model, the user's prompt, the tools declared.

Each API spells them its own way; the tools come out in the neutral form the harness hands a codec
(`{name, description, parameters}`, or `{name, type: custom, description}` for free-form tools).
Server tools (web search, code execution, ...) are the provider's own and are not declared to the
harness: their calls are served with their results.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from conformance.recordings.cassette import HttpRequest

Tool = dict[str, Any]

_CHAT_LIKE = ("openai-chat", "mistral-chat", "kimi-chat", "ollama-chat", "cohere-v2")
_RESPONSES_LIKE = ("openai-responses", "azure-foundry", "openresponses", "mistral-responses", "ollama-responses")
_GEMINI_MODEL = re.compile(r"/models/([^/:]+):")
_BEDROCK_MODEL = re.compile(r"/model/([^/]+)/converse")
_ANTHROPIC_VERTEX_MODEL = re.compile(r"/models/([^/:]+):(?:stream)?rawPredict")
_BEDROCK_INVOKE_MODEL = re.compile(r"/model/([^/]+)/invoke")
_AZURE_DEPLOYMENT = re.compile(r"/deployments/([^/]+)/")


def model(api: str, request: HttpRequest, body: Any) -> str:
    """The model the request names: in the body for most APIs, in the URL for Gemini and Bedrock."""
    if isinstance(body, dict) and isinstance(body.get("model"), str):
        return str(body["model"])
    path = unquote(request.path)
    for pattern in (_GEMINI_MODEL, _BEDROCK_MODEL, _ANTHROPIC_VERTEX_MODEL, _BEDROCK_INVOKE_MODEL, _AZURE_DEPLOYMENT):
        found = pattern.search(path)
        if found:
            return found.group(1)
    return ""


def _text_of(content: Any) -> str:
    """The text of a message's content in any of the APIs' block layouts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [_text_of(block) for block in content]
        return "\n".join(t for t in texts if t)
    if isinstance(content, dict):
        if isinstance(content.get("text"), str):
            return str(content["text"])
        if content.get("type") in ("input_text", "output_text", "text") and isinstance(content.get("text"), str):
            return str(content["text"])
    return ""


def prompt(api: str, body: Any) -> str:
    """The text of the first user message."""
    if not isinstance(body, dict):
        return ""
    if api == "gemini":
        for content in body.get("contents") or ():
            if isinstance(content, dict) and content.get("role", "user") == "user":
                return _text_of(content.get("parts"))
        return ""
    if api == "gemini-interactions":
        given = body.get("input")
        if isinstance(given, str):
            return given
        for step in given if isinstance(given, list) else ():
            if isinstance(step, dict) and step.get("type") == "user_input":
                return _text_of(step.get("content"))
        return ""
    if api in _RESPONSES_LIKE:
        given = body.get("input")
        if isinstance(given, str):
            return given
        for item in given or ():
            if isinstance(item, dict) and item.get("role") == "user":
                return _text_of(item.get("content"))
        return ""
    for message in body.get("messages") or ():
        if isinstance(message, dict) and message.get("role") == "user":
            text = _text_of(message.get("content"))
            if text:
                return text
    return ""


def user_texts(api: str, body: Any) -> list[str]:
    """The texts of a request's user messages, in order; tool results (which some APIs send as user
    messages, with no text of their own) are left out."""
    if not isinstance(body, dict):
        return []
    if api == "gemini":
        messages, key = [m for m in body.get("contents") or () if isinstance(m, dict)], "parts"
        users = [m for m in messages if m.get("role", "user") == "user"]
    elif api in _RESPONSES_LIKE:
        given = body.get("input")
        if isinstance(given, str):
            return [given]
        users, key = [m for m in given or () if isinstance(m, dict) and m.get("role") == "user"], "content"
    else:
        users = [m for m in body.get("messages") or () if isinstance(m, dict) and m.get("role") == "user"]
        key = "content"
    return [text for text in (_text_of(m.get(key)) for m in users) if text]


def new_prompt(api: str, before: Any, body: Any) -> str | None:
    """The user message a request adds after the previous one's history, if it adds one: the recording
    goes on past the tool loop's answer with another question, a run of its own."""
    earlier, now = user_texts(api, before), user_texts(api, body)
    if len(now) > len(earlier) and now[: len(earlier)] == earlier:
        return now[-1]
    return None


def tools(api: str, body: Any) -> list[Tool]:
    """The client tools the request declares, in the neutral form."""
    if not isinstance(body, dict):
        return []
    reader = _READERS.get(api, _chat_tools)
    found: list[Tool] = []
    for tool in reader(body):
        if tool.get("name") and all(t["name"] != tool["name"] for t in found):
            found.append(tool)
    return found


def _neutral(name: Any, description: Any, parameters: Any) -> Tool:
    tool: Tool = {"name": name}
    if isinstance(description, str) and description:
        tool["description"] = description
    tool["parameters"] = parameters if isinstance(parameters, dict) else {"type": "object", "properties": {}}
    return tool


def _custom(name: Any, description: Any) -> Tool:
    tool: Tool = {"name": name, "type": "custom"}
    if isinstance(description, str) and description:
        tool["description"] = description
    return tool


def _chat_tools(body: dict[str, Any]) -> list[Tool]:
    out: list[Tool] = []
    for tool in body.get("tools") or ():
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "custom" and isinstance(tool.get("custom"), dict):
            custom = tool["custom"]
            out.append(_custom(custom.get("name"), custom.get("description")))
            continue
        function = tool.get("function")
        if isinstance(function, dict):
            out.append(_neutral(function.get("name"), function.get("description"), function.get("parameters")))
    return out


def _responses_tools(body: dict[str, Any]) -> list[Tool]:
    out: list[Tool] = []
    for tool in body.get("tools") or ():
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "function":
            out.append(_neutral(tool.get("name"), tool.get("description"), tool.get("parameters")))
        elif tool.get("type") == "custom":
            out.append(_custom(tool.get("name"), tool.get("description")))
    return out


def _anthropic_tools(body: dict[str, Any]) -> list[Tool]:
    out: list[Tool] = []
    for tool in body.get("tools") or ():
        # Client tools have an input_schema; server tools have a versioned type instead.
        if isinstance(tool, dict) and tool.get("type") in (None, "custom") and "input_schema" in tool:
            neutral = _neutral(tool.get("name"), tool.get("description"), tool.get("input_schema"))
            callers = tool.get("allowed_callers")
            if isinstance(callers, list) and callers and all(isinstance(c, str) and c for c in callers):
                neutral["allowed_callers"] = list(callers)  # code may call it: the responses' callers need it
            out.append(neutral)
    return out


def _gemini_tools(body: dict[str, Any]) -> list[Tool]:
    out: list[Tool] = []
    for tool in body.get("tools") or ():
        if not isinstance(tool, dict):
            continue
        declarations = tool.get("functionDeclarations", tool.get("function_declarations")) or ()
        for declaration in declarations:
            if not isinstance(declaration, dict):
                continue
            parameters = declaration.get("parametersJsonSchema", declaration.get("parameters_json_schema"))
            if parameters is None:
                parameters = _json_schema_types(declaration.get("parameters"))
            out.append(_neutral(declaration.get("name"), declaration.get("description"), parameters))
    return out


def _json_schema_types(schema: Any) -> Any:
    """Gemini's OpenAPI-style schema (`type: OBJECT`) with JSON Schema's lower-case type names."""
    if isinstance(schema, dict):
        return {
            k: (v.lower() if k == "type" and isinstance(v, str) else _json_schema_types(v)) for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_json_schema_types(v) for v in schema]
    return schema


def _bedrock_tools(body: dict[str, Any]) -> list[Tool]:
    out: list[Tool] = []
    config = body.get("toolConfig")
    for tool in (config.get("tools") if isinstance(config, dict) else None) or ():
        spec = tool.get("toolSpec") if isinstance(tool, dict) else None
        if isinstance(spec, dict):
            schema = spec.get("inputSchema")
            parameters = schema.get("json") if isinstance(schema, dict) else None
            out.append(_neutral(spec.get("name"), spec.get("description"), parameters))
    return out


_READERS: dict[str, Callable[[dict[str, Any]], list[Tool]]] = {
    **{api: _chat_tools for api in _CHAT_LIKE},
    **{api: _responses_tools for api in _RESPONSES_LIKE},
    "anthropic-messages": _anthropic_tools,
    "ollama-messages": _anthropic_tools,
    "gemini": _gemini_tools,
    "gemini-interactions": _responses_tools,  # {"type": "function", name, description, parameters}, as Responses
    "bedrock-converse": _bedrock_tools,
}
