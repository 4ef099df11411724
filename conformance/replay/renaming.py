"""A recorded turn served as the provider would answer the client's request: under the names the
request declares its tools by, and without thinking it did not ask for.

Some frameworks declare every tool under a prefix of their own: Semantic Kernel's function choice
writes a kernel function as `<plugin>-<function>` (`tools-get_weather`; `tools__get_weather` on
Gemini), and a provider answers such a request with calls to `tools-get_weather`. Served as recorded,
the turn would call a tool the request never declared. Where each recorded call's tool is declared
under exactly such a prefixed name (conformance.engine.called_tools.Tools.renamed), the turn is served
as the provider would have answered that request: the same body, the calls named as the request
declares them, built into the recorded framing (SSE, a JSON array, NDJSON, AWS event-stream) the way
the suite's closing answer is (conformance.replay.closing). The verdict says so; the client's canned
tool outputs answer the prefixed name as the recorded one (conformance.connectors.client.ToolLoop).

Claude thinks only when a request asks (Anthropic's `thinking`, Bedrock's
`additionalModelRequestFields.thinking`): a request that did not is served the turn without the
thinking before its calls (conformance.engine.declarations.thinking_unasked), as the provider would
answer it, and judged on that.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from conformance.engine.called_tools import needed
from conformance.engine.declarations import declared_by_request, thinking_unasked, undeclared
from conformance.engine.dialects import anthropic_messages, bedrock_converse, dialect_for
from conformance.engine.dialects.base import Dialect, DialectError
from conformance.engine.wire import Served
from conformance.recordings.cassette import Interaction
from conformance.replay.rebuilt import rebuilt_response
from conformance.replay.transports.base import ReframeError, Transport

# The note of a turn served without its thinking (the verdict tells these apart from renamed calls).
UNTHOUGHT = "without the thinking before its calls, which the request did not ask for"
# Where a served call keeps its tool's name, per API: a `name` beside the call's other fields.
_NAME_KEYS = frozenset({"name", "tool_name"})


def renames_for(api: str, served: Served, request: Any, recorded: Any) -> dict[str, str] | None:
    """The recorded names of a turn's calls and the prefixed names `request` declares them under, when
    every tool the request lacks is declared so and it lacks nothing else ({} when it lacks none); None
    otherwise."""
    if undeclared(api, served, declared_by_request(api, request)):
        return None
    lacking = needed(api, served, request, recorded)
    if any(n.name is None or n.renamed is None for n in lacking):
        return None
    return {n.name: n.renamed for n in lacking if n.name is not None and n.renamed is not None}


def renamed_interaction(
    interaction: Interaction,
    renames: Mapping[str, str],
    dialect: Dialect,
    transport: Transport,
    where: str,
    *,
    unthought: bool = False,
) -> Interaction | None:
    """The interaction with its calls' tool names changed per `renames` (recorded -> declared), and, when
    `unthought`, without the thinking before its calls; None when its response cannot be read or built
    again (then the turn is not served)."""
    try:
        served = dialect.served(interaction.response, where)
        body = transport.body_of(served.payload)
        if not isinstance(body, dict):
            return None
        changed = _renamed(json.loads(json.dumps(body)), renames)
        if unthought:
            changed = _without_thinking(changed)
        response = rebuilt_response(interaction.response, served.payload, changed, transport)
    except (DialectError, ReframeError, ValueError):
        return None
    return Interaction(index=interaction.index, request=interaction.request, response=response)


def _without_thinking(body: dict[str, Any]) -> dict[str, Any]:
    """A response body without its thinking: Anthropic's `thinking` and `redacted_thinking` blocks, a
    Converse message's `reasoningContent` blocks. What a provider answers a request that did not ask."""
    thought = anthropic_messages.THINKING_BLOCKS
    if isinstance(body.get("content"), list):
        body["content"] = [b for b in body["content"] if not (isinstance(b, dict) and b.get("type") in thought)]
    message = (body.get("output") or {}).get("message") if isinstance(body.get("output"), dict) else None
    if isinstance(message, dict) and isinstance(message.get("content"), list):
        reasoning = bedrock_converse.REASONING
        message["content"] = [b for b in message["content"] if not (isinstance(b, dict) and reasoning in b)]
    return body


def _renamed(value: Any, renames: Mapping[str, str]) -> Any:
    """`value` with every call's tool name in `renames` replaced, at any depth; text is left alone."""
    if isinstance(value, list):
        return [_renamed(v, renames) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if key in _NAME_KEYS and isinstance(item, str) and item in renames and _is_call(value):
            out[key] = renames[item]
        else:
            out[key] = _renamed(item, renames)
    return out


def _is_call(holder: Mapping[str, Any]) -> bool:
    """Whether a mapping with a `name` is a call (or a call's function), not some other named thing."""
    return any(k in holder for k in ("arguments", "args", "input", "id", "call_id", "toolUseId", "type"))


def renamed_turn(
    api: str, interaction: Interaction, served: Served, request: Any, recorded: Any, transport: Transport, index: int
) -> tuple[Interaction, list[str]] | None:
    """Turn `index` as the replay serves it to `request` when the request declares the tools its calls
    need under prefixed names (`recorded` is the recorded request's body), with a note per renamed call;
    None when the turn is served as recorded."""
    renames = renames_for(api, served, request, recorded)
    unthought = thinking_unasked(api, served, request, recorded) is not None
    if renames is None or not (renames or unthought):
        return None
    where = f"response[{index}]"
    renamed = renamed_interaction(interaction, renames, dialect_for(api), transport, where, unthought=unthought)
    if renamed is None:
        return None
    notes = [f"{where}: {old} as {new}" for old, new in renames.items()]
    if unthought:
        notes.append(f"{where}: {UNTHOUGHT}")
    return renamed, notes
