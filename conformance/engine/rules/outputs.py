"""The output check: did each call's result carry the output the tool gave, in whatever shape the
client sent it (a string, an object, a JSON text, a JSON text inside a JSON text)?"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from conformance.engine.rules.context import NOT_JSON, CheckContext, json_value
from conformance.engine.violations import Violation
from conformance.engine.wire import History, WireCall, WireResult


def outputs(ctx: CheckContext, history: History, pairs: list[tuple[WireResult, WireCall]]) -> list[Violation]:
    """Each result carries its own call's canned output.

    Silent at the provider: the model gets another call's answer (token-js PR #36 swapped two
    cities' temperatures), or none (a placeholder such as "No result provided" under the right id).
    Visible here because the harness knows which output belongs to which call. Another call's
    output is looked for among the calls of the same turn (positional pairing swaps within a
    turn), then among every call of the scenario whose output the result carries whole.
    """
    siblings: dict[str, tuple[WireCall, ...]] = {}
    for message in history.messages:
        if len(message.calls) > 1:
            for call in message.calls:
                siblings[call.path] = message.calls
    parse = ctx.output_value
    out: list[Violation] = []
    for result, call in pairs:
        if result.provider_executed:
            continue
        own = ctx.expected_for(call)
        if own is None or own.interrupted or own.provider_executed:
            # An interrupted call never returned: what the repair says is its own. A server call's
            # output is the provider's: a client answering it is pairing/missing-result's to report.
            continue
        # Without an id to tell them apart, calls of one name and arguments (an id-less model asked
        # the same thing twice) are the same call to the wire: any of their outputs is its own.
        if own.id is not None and own.id == call.call_id:
            if mentions(result.output, own.output, parse):
                continue  # the common case: the call's own output under its own id
            # Calls of one turn with the same name and arguments ask the tool the same thing: a
            # library that runs them concurrently cannot tell which answer is whose unless it hands the
            # tool the call's id, so either output is its own (Genkit Go's tools are not told the id).
            alike = ctx.calls_alike(own)
            turn = (ctx.expected_for(sibling) for sibling in siblings.get(call.path, ()))
            twins = [own, *(c for c in turn if c is not None and c is not own and any(c is a for a in alike))]
            if any(mentions(result.output, c.output, parse) for c in twins[1:]):
                continue
        else:
            twins = ctx.calls_alike(own)
            if any(mentions(result.output, c.output, parse) for c in twins):
                continue
        other = next(
            (
                c
                for sibling in siblings.get(call.path, ())
                if sibling is not call
                and (c := ctx.expected_for(sibling)) is not None
                and all(c is not t for t in twins)
                and mentions(result.output, c.output, parse)
            ),
            None,
        ) or next((c for c in ctx.calls_answered_by(result.output) if all(c is not t for t in twins)), None)
        content = result.output if isinstance(result.output, str) else json.dumps(result.output)
        label = result.call_id if result.call_id else f"the result for {call.name}"
        if other is not None:
            out.append(
                ctx.violation(
                    "pairing/by-position",
                    result.path,
                    f"The result sent under {label!r} carries the output of another call "
                    f"({other.id or other.name} {dict(other.arguments)}): results were matched to calls by position.",
                    wire_type=result.wire_type,
                    expected=own.output,
                    received=content,
                )
            )
            continue
        if not ctx.tool_ran(own):
            continue  # the client never ran a tool for it (no such tool, no name): it had no output to lose
        shown = content if len(content) <= 80 else f"{content[:77]}..."
        if reformatted(result.output, own.output):
            out.append(
                ctx.violation(
                    "pairing/output-reformatted",
                    result.path,
                    f"The result sent under {label!r} carries the output its tool returned "
                    f"({call.name} {_shown_arguments(own.arguments)}) altered in form: it carries {shown!r}.",
                    wire_type=result.wire_type,
                    expected=own.output,
                    received=content,
                )
            )
            continue
        out.append(
            ctx.violation(
                "pairing/output-lost",
                result.path,
                f"The result sent under {label!r} does not carry the output its tool returned "
                f"({call.name} {_shown_arguments(own.arguments)}); it carries {shown!r}.",
                wire_type=result.wire_type,
                expected=own.output,
                received=content,
            )
        )
    return out


# What a client may change of an output's form and keep its content: quotes, escapes, spacing, case.
_FORM = str.maketrans("", "", "\"'`\\ \t\r\n")
_MIN_FORM = 3  # a shorter output's content is found by chance in any text


def reformatted(value: Any, text: str) -> bool:
    """Whether a result's text holds the canned output with only its form changed (every quote
    stripped, a JSON object printed as a language's own literal, re-spaced), not another text."""
    wanted = text.translate(_FORM).lower()
    if len(wanted) < _MIN_FORM:
        return False
    return any(wanted in node.translate(_FORM).lower() for node in _strings(value))


def _shown_arguments(arguments: Any) -> str:
    return json.dumps(dict(arguments), ensure_ascii=False) if isinstance(arguments, dict) else str(arguments)


def mentions(value: Any, text: str, parse: Callable[[str], Any] = json_value) -> bool:
    """Whether a result's output (text, blocks or an object, by API) carries a canned output.

    Text carries it when it contains it, or holds the same JSON value however spaced; an object
    or a list of blocks when one of its values does. An empty output is carried only by a result
    that carries no text at all (or the JSON text of the empty text): the empty string is
    contained in every text. The tool's `name`
    beside it is no text of the output (the AI SDK wraps a Gemini result as `{"name", "content"}`).
    """
    if not text or text.isspace():
        # The JSON text of the empty text ('""', from a client that encodes every output) carries none.
        return not any(node.strip() and parse(node) != "" for node in _strings(value, skipped=("type", "name")))
    if type(value) is str and text in value:
        return True  # the common case: the text itself, parsed by nobody
    wanted = parse(text)
    structured = wanted is not NOT_JSON
    if structured:
        # The value itself (Gemini's response), or a block holding it (Bedrock's json block).
        if value == wanted:
            return True
        if type(value) is list:
            for block in value:
                if block == wanted or (type(block) is dict and wanted in block.values()):
                    return True
    # One walk looks for the text in every string and for the value in every node; strings that
    # may hold JSON are parsed only when neither is found, and then walked the same way: a client
    # may send the output inside a JSON text of its own (`json.dumps({"result": output})`), where
    # the output's quotes and line breaks are escaped, so it is found only once that text is read.
    # Each parse yields strings shorter than the text parsed, so the walk ends.
    stack = [value]
    while stack:
        encoded: list[str] = []
        while stack:
            node = stack.pop()
            if isinstance(node, str):
                if text in node:
                    return True
                if node[:1] in _JSON_OPENERS:
                    encoded.append(node)
                continue
            if structured and node == wanted:
                return True
            if isinstance(node, dict):
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
        for node in encoded:
            inner = json_value(node)
            if inner is NOT_JSON or isinstance(inner, (int, float, bool)) or inner is None:
                continue
            if structured and inner == wanted:
                return True
            stack.append(inner)
    return _reshaped(value, wanted)


_JSON_OPENERS = ("{", "[", '"')  # the first character of a JSON text that may hold an output


def _reshaped(value: Any, wanted: Any) -> bool:
    """Whether a result carries an object output in another shape: every value of it, other than
    the `type` naming its kind, is text the result holds, and one is long enough to tell it apart
    (a screenshot's image URL sent as an `input_image` block where the API names it
    `computer_screenshot`). Outputs holding numbers or short texts are held to their JSON value."""
    if not isinstance(wanted, dict):
        return False
    leaves: list[Any] = []
    stack: list[Any] = [wanted]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(v for k, v in node.items() if k != "type")
        elif isinstance(node, list):
            stack.extend(node)
        else:
            leaves.append(node)
    if not leaves or not all(isinstance(leaf, str) for leaf in leaves) or max(map(len, leaves)) < 16:
        return False
    held = _strings(value)
    return all(any(leaf in text for text in held) for leaf in leaves)


def _strings(value: Any, skipped: tuple[str, ...] = ("type",)) -> list[str]:
    """The text a result carries: its strings, except the `type` that names a block's kind (and the
    values of any other `skipped` key)."""
    stack = [value]
    found: list[str] = []
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, dict):
            stack.extend(v for k, v in node.items() if k not in skipped)
        elif isinstance(node, list):
            stack.extend(node)
    return found
