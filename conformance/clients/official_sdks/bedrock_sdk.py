"""Amazon Bedrock through the AWS SDK for Python: the Converse tool loop of the Bedrock user guide.

`converse`: the output message is appended as returned, then one user message with a `toolResult`
block per `toolUse` block, under its `toolUseId`; a canned output that is a JSON object goes as a
`json` content block, any other as `text`, as the guide's examples do. `converse_stream`: the
guide's accumulation of the stream's events (`contentBlockStart` opens a tool use, its
`contentBlockDelta` input fragments are joined and parsed at `contentBlockStop`, text and reasoning
deltas are joined) into the assistant message.

The client is `boto3.client("bedrock-runtime", ...)` where boto3 is installed, else the same client
from `botocore.session` (boto3's clients are botocore's), pointed at `loop.base_url`, making one
attempt (`retries={"total_max_attempts": 1}`). A replay signs with a dummy key; a recording uses
the SDK's own credential chain (`AWS_BEARER_TOKEN_BEDROCK`, profiles, ...).
"""

from __future__ import annotations

import functools
import importlib
import json
from typing import Any

from conformance.clients.official_sdks.common import (
    MAX_TURNS,
    Options,
    bedrock_region,
    each_run,
    function_tools_only,
    one_attempt,
    parameters_of,
    restored,
)
from conformance.connectors.client import REPLAY_API_KEY, ToolLoop


def _client(loop: ToolLoop) -> Any:
    from botocore.config import Config

    settings: dict[str, Any] = {
        "region_name": bedrock_region(loop.base_url),
        "endpoint_url": loop.base_url,
        "config": Config(retries=one_attempt()),
    }
    if loop.api_key == REPLAY_API_KEY:
        settings.update(aws_access_key_id="conformance", aws_secret_access_key=loop.api_key)
    try:
        boto3 = importlib.import_module("boto3")
    except ImportError:
        return _botocore_session().create_client("bedrock-runtime", **settings)
    return boto3.client("bedrock-runtime", **settings)


@functools.cache
def _botocore_session() -> Any:
    """One session a process, as boto3 keeps its default session, so the service model loads once."""
    import botocore.session

    return botocore.session.get_session()


def _tool_config(loop: ToolLoop) -> dict[str, Any]:
    function_tools_only(loop, "Bedrock Converse")
    specs = [
        {
            "toolSpec": {
                "name": t["name"],
                "description": t.get("description", ""),
                "inputSchema": {"json": parameters_of(t)},
            }
        }
        for t in loop.tools
    ]
    return {"tools": specs}


def _result(loop: ToolLoop, use: dict[str, Any]) -> dict[str, Any]:
    output = loop.call_tool(use["name"], use.get("input") or {})
    try:
        value = json.loads(output)
    except ValueError:
        value = None
    content = [{"json": value}] if isinstance(value, dict) else [{"text": output}]
    return {"toolResult": {"toolUseId": use["toolUseId"], "content": content}}


def _streamed_message(events: Any) -> tuple[dict[str, Any], str | None]:
    """The assistant message and stop reason, accumulated from `converse_stream` events."""
    blocks: dict[int, dict[str, Any]] = {}
    fragments: dict[int, list[str]] = {}
    role, stop = "assistant", None
    for event in events:
        if "messageStart" in event:
            role = event["messageStart"].get("role", role)
        elif "contentBlockStart" in event:
            index = event["contentBlockStart"]["contentBlockIndex"]
            start = event["contentBlockStart"].get("start") or {}
            if "toolUse" in start:
                blocks[index] = {"toolUse": {**start["toolUse"], "input": {}}}
        elif "contentBlockDelta" in event:
            index = event["contentBlockDelta"]["contentBlockIndex"]
            delta = event["contentBlockDelta"].get("delta") or {}
            if "text" in delta:
                block = blocks.setdefault(index, {"text": ""})
                block["text"] += delta["text"]
            elif "toolUse" in delta:
                fragments.setdefault(index, []).append(delta["toolUse"].get("input", ""))
            elif "reasoningContent" in delta:
                # Reasoning goes back with its signature, as the extended-thinking guide requires.
                piece = delta["reasoningContent"]
                block = blocks.setdefault(index, {"reasoningContent": {"reasoningText": {"text": ""}}})
                reasoning = block["reasoningContent"]["reasoningText"]
                reasoning["text"] += piece.get("text", "")
                if "signature" in piece:
                    reasoning["signature"] = piece["signature"]
        elif "contentBlockStop" in event:
            index = event["contentBlockStop"]["contentBlockIndex"]
            if index in fragments and "toolUse" in blocks.get(index, {}):
                blocks[index]["toolUse"]["input"] = json.loads("".join(fragments.pop(index)) or "{}")
        elif "messageStop" in event:
            stop = event["messageStop"].get("stopReason")
    return {"role": role, "content": [blocks[i] for i in sorted(blocks)]}, stop


def bedrock_converse(loop: ToolLoop, options: Options) -> str:
    client = _client(loop)
    request: dict[str, Any] = {
        "modelId": loop.model,
        **{k: v for k, v in loop.settings.body.items() if k != "toolConfig"},
        "toolConfig": _tool_config(loop),
    }
    messages: list[Any] = restored(loop, "boto3")

    def run() -> str:
        for _ in range(MAX_TURNS):
            if options.streams(loop):
                message, stop = _streamed_message(client.converse_stream(messages=messages, **request)["stream"])
            else:
                response = client.converse(messages=messages, **request)
                message, stop = response["output"]["message"], response.get("stopReason")
            messages.append(message)
            uses = [block["toolUse"] for block in message.get("content", []) if "toolUse" in block]
            if stop != "tool_use" or not uses:
                return "".join(block.get("text", "") for block in message.get("content", []))
            messages.append({"role": "user", "content": [_result(loop, use) for use in uses]})
        return ""

    return each_run(loop, messages, lambda prompt: {"role": "user", "content": [{"text": prompt}]}, run)
