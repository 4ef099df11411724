"""One recorded conversation turned into a scenario: what the provider served, what the client sent back.

The turns are the responses as served (ids, names, arguments, opaque fields, the provider's own
results for server tools). A call's canned output is what the client answered it with in the next
request. Calls the first request already carries, which no response of the conversation served,
become the scenario's `history`: on the API that served them earlier in the cassette (a
conversation moved from one provider to another), else on the conversation's own API (a history
the client built).

A conversation the client's own requests contradict is refused: a served call sent back with
another id, name or arguments, or dropped, or left without a result while the conversation goes
on. Such a recording shows a client's fault, not a conversation a correct adapter can replay.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.corpus.loading import Corpus
from conformance.engine.conversations import Conversation, Split, Step, carries, parsed_arguments, same_arguments
from conformance.engine.declarations import family_of, server_tool_definitions
from conformance.engine.dialects import dialect_for
from conformance.engine.returned import returned
from conformance.engine.rules.alignment import align_turn
from conformance.engine.rules.context import CheckContext
from conformance.engine.wire import History, WireCall, WireMessage, WireResult
from conformance.importer import requests


class Refused(Exception):
    """A conversation that cannot become a scenario, and why."""


@dataclass
class Derived:
    """A scenario document without its id, description and cassette path, which the caller names."""

    document: dict[str, Any]
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Answer:
    output: str
    position: tuple[int, int]  # (message, result) in the request that answered: the answer order


def derive(conversation: Conversation, whole: Split, corpus: Corpus) -> Derived:
    for step in conversation.steps:
        if not step.ok:
            status = step.interaction.response.status
            raise Refused(f"response[{step.index}] is an HTTP {status} error, not a served turn")
    streams = {s.served.stream for s in conversation.steps}
    if len(streams) > 1:
        raise Refused("the conversation mixes streamed and unstreamed responses; a scenario is one or the other")
    api = conversation.api
    dialect = conversation.dialect
    ctx = CheckContext(corpus=corpus, dialect=dialect)
    first = conversation.steps[0]
    notes: list[str] = []

    turns: list[dict[str, Any]] = []
    orders: list[str] = []
    for k, step in enumerate(conversation.steps):
        following = conversation.steps[k + 1] if k + 1 < len(conversation.steps) else None
        answers = _answers(step, following, ctx) if following is not None else {}
        if following is None and step.served.calls:
            answers, where = _answers_elsewhere(step, whole, ctx)
            if where:
                notes.append(f"the outputs of response[{step.index}]'s calls are those sent in {where}")
            elif any(_needs_result(ctx, c) for c in step.served.calls):
                answers = _suite_answers(step, ctx)
                notes.append(
                    f"the recording ends on response[{step.index}]'s calls: the client's outputs for them "
                    "were never sent, so their canned outputs are the suite's own"
                )
        turn = _turn(step, answers, dialect.call_type, corpus)
        asked = _asked_again(conversation.steps[k - 1], step, ctx) if k else None
        turns.append({"prompt": asked, **turn} if asked else turn)
        orders.append(_order(step, answers, ctx))

    history, origin = _history(first, whole, ctx)
    if not any(t.get("calls") for t in turns) and not history:
        raise Refused("no tool calls: no response serves one and the first request carries none")

    answer_order = "reversed" if "reversed" in orders and "as-called" not in orders else "as-called"
    if "other" in orders:
        notes.append("the client answered some parallel calls in an order that is neither the calls' nor its reverse")

    tools = _tools(conversation, history)
    if tools[1]:
        notes.append(tools[1])

    document: dict[str, Any] = {
        "kind": "scenario",
        "api": api,
        "provenance": "recorded",
        "wire_types": _wire_types(conversation, origin, history),
        "features": _features(turns, history, origin, api, conversation, corpus, answer_order),
        "model": requests.model(api, first.interaction.request, first.body),
        "prompt": requests.prompt(api, first.body),
        "stream": conversation.steps[0].served.stream,
        "answer_order": answer_order,
        "tools": tools[0],
    }
    if history:
        document["history"] = {"api": origin, "turns": history}
    document["turns"] = turns
    return Derived(document, notes)


# --- served turns -------------------------------------------------------------------------------


def _asked_again(before: Step, step: Step, ctx: CheckContext) -> str | None:
    """The question a request asks after the tool loop before it ended in an answer (no call of the
    previous response awaits a result): a run of a session, which a client's single tool loop never
    sends. A user text sent beside tool results is part of the loop, not a new run."""
    if any(_needs_result(ctx, c) for c in before.served.calls):
        return None
    return requests.new_prompt(ctx.dialect.api, before.body, step.body)


def _needs_result(ctx: CheckContext, call: WireCall) -> bool:
    return not call.provider_executed and ctx.dialect.result_type(call.wire_type) is not None


def suite_output(name: str, number: int) -> str:
    """The canned output of a call the recording never answered: the suite's own words, as a JSON object.

    One per call, never empty: an empty output cannot be told from a result the client lost or
    replaced with a placeholder of its own, and equal outputs hide results handed to the wrong call.
    A JSON object, as tools mostly return and as some libraries require (a Gemini functionResponse's
    `response` is an object; Spring AI parses a tool's result as JSON to build it).
    """
    return json.dumps(
        {"suite_output": number, "tool": name or "the tool", "note": "the recording never sent this result"},
        separators=(",", ":"),
    )


def _suite_answers(step: Step, ctx: CheckContext) -> dict[int, _Answer]:
    needing = [i for i, call in enumerate(step.served.calls) if _needs_result(ctx, call)]
    return {
        i: _Answer(suite_output(step.served.calls[i].name or "", n), (-1, n)) for n, i in enumerate(needing, start=1)
    }


def _arguments(call: WireCall, custom: bool) -> dict[str, Any]:
    value = parsed_arguments(call.arguments)
    if custom:
        return {"input": call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)}
    if isinstance(value, dict):
        return value
    if call.provider_executed:
        return {"input": value}
    raise Refused(f"{call.path}: the arguments of {call.name} are not a JSON object: {str(call.arguments)[:80]!r}")


def output_text(value: Any) -> str:
    """A result's output as the text a canned output is: text as it is, text blocks joined, else JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(b, dict) and set(b) <= {"type", "text"} for b in value):
        texts = [b.get("text") for b in value]
        if all(isinstance(t, str) for t in texts):
            return "".join(str(t) for t in texts)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def request_form(corpus: Corpus, wire_type: str) -> str:
    """The wire type a streamed form is sent back as (a chunk becomes its call)."""
    case = corpus.wire_types.get(wire_type)
    if case is None or case.request_input:
        return wire_type
    target = str(case.data.get("references", {}).get("target", "")).split(".", 1)[0]
    return target if target in corpus.wire_types else wire_type


def _expected(call: WireCall, output: str, plain_type: str, corpus: Corpus) -> dict[str, Any]:
    custom = call.wire_type.endswith("CustomToolCall") or call.wire_type.endswith("CustomToolCallChunk")
    entry: dict[str, Any] = {"id": call.call_id}
    if call.item_id and call.item_id != call.call_id:
        entry["item_id"] = call.item_id
    entry["name"] = call.name or ""
    form = request_form(corpus, call.wire_type)
    if form != plain_type and not custom:
        entry["wire_type"] = form
    if call.provider_executed:
        entry["provider_executed"] = True
    entry["arguments"] = _arguments(call, custom)
    kept = returned(corpus, call)
    if kept:
        entry["extra"] = kept
    entry["output"] = output
    return entry


def _turn(step: Step, answers: dict[int, _Answer], plain_type: str, corpus: Corpus) -> dict[str, Any]:
    served = step.served
    calls: list[dict[str, Any]] = []
    for i, call in enumerate(served.calls):
        if call.provider_executed:
            own = next((r for r in served.results if call.call_id and r.call_id == call.call_id), None)
            output = output_text(own.output) if own is not None else ""
        else:
            answer = answers.get(i)
            output = answer.output if answer is not None else ""
        calls.append(_expected(call, output, plain_type, corpus))
    turn: dict[str, Any] = {}
    if served.text:
        turn["text"] = served.text
    if calls:
        turn["calls"] = calls
    if not turn:
        turn["text"] = ""
    return turn


def _order(step: Step, answers: dict[int, _Answer], ctx: CheckContext) -> str:
    client = [i for i, c in enumerate(step.served.calls) if _needs_result(ctx, c) and i in answers]
    # The suite's own outputs were never sent in any order: they say nothing of the client's.
    client = [i for i in client if answers[i].position[0] >= 0]
    if len(client) < 2:
        return "none"
    positions = [answers[i].position for i in client]
    if positions == sorted(positions):
        return "as-called"
    if positions == sorted(positions, reverse=True):
        return "reversed"
    return "other"


# --- what the client sent back ------------------------------------------------------------------


def _echo_message(served: Sequence[WireCall], history: History) -> WireMessage | None:
    """The request's message that sends the served calls back: the latest carrying most of them."""
    best: WireMessage | None = None
    score = 0
    for message in history.messages:
        if not message.calls:
            continue
        found = sum(
            1
            for call in served
            if carries(call, list(message.calls), set())
            # the same call under another id: the echo, whose id the comparison then refuses
            or any(s.name == call.name and same_arguments(s.arguments, call.arguments) for s in message.calls)
        )
        if found and found >= score:
            best, score = message, found
    return best


def _answers(step: Step, following: Step, ctx: CheckContext) -> dict[int, _Answer]:
    """The client's answer to each served call, by its index in the response; a contradiction refuses."""
    served = step.served.calls
    if not served:
        return {}
    history = following.history
    where = f"request[{following.index}]"
    if history.continues:
        # A stored conversation: the calls stay at the provider, the results name them by id.
        return _results_by_id(step, history, ctx, where)
    replayable = [(i, c) for i, c in enumerate(served) if ctx.replayable(c)]
    message = _echo_message([c for _, c in replayable], history)
    if message is None:
        if any(_needs_result(ctx, c) for c in served):
            raise Refused(f"{where} goes on without sending back the calls response[{step.index}] served")
        return {}
    sent = align_turn(tuple(c for _, c in replayable), message.calls)
    later = [r for m in history.messages if m.index > message.index for r in m.results if not r.provider_executed]
    later_positions = {
        id(r): (m.index, j) for m in history.messages if m.index > message.index for j, r in enumerate(m.results)
    }
    used: set[int] = set()
    out: dict[int, _Answer] = {}
    for (i, call), echo in zip(replayable, sent, strict=True):
        _compare(call, echo, step.index, where)
        if not _needs_result(ctx, call):
            continue
        assert echo is not None  # _compare refused a dropped call
        result = _result_for(echo, later, used)
        if result is None:
            raise Refused(f"{where} sends back the call {call.name} ({call.call_id or 'no id'}) without its result")
        out[i] = _Answer(output_text(result.output), later_positions[id(result)])
    return out


def _results_by_id(step: Step, history: History, ctx: CheckContext, where: str) -> dict[int, _Answer]:
    out: dict[int, _Answer] = {}
    for i, call in enumerate(step.served.calls):
        if not _needs_result(ctx, call):
            continue
        for m in history.messages:
            for j, result in enumerate(m.results):
                if result.call_id and result.call_id == call.call_id:
                    out[i] = _Answer(output_text(result.output), (m.index, j))
        if i not in out:
            raise Refused(
                f"{where} continues response[{step.index}] but sends no result for {call.name} ({call.call_id})"
            )
    return out


def _compare(served: WireCall, sent: WireCall | None, index: int, where: str) -> None:
    shown = f"{served.name} ({served.call_id or 'no id'})"
    if sent is None:
        raise Refused(f"{where} drops the call {shown} that response[{index}] served")
    if served.call_id and sent.call_id != served.call_id:
        raise Refused(f"{where} sends back the call {shown} with the id {sent.call_id!r}")
    if sent.name != served.name:
        raise Refused(f"{where} sends back the call {shown} under the name {sent.name!r}")
    same = (
        _without_nulls(parsed_arguments(sent.arguments)) == _without_nulls(parsed_arguments(served.arguments))
        if served.provider_executed  # a server item sent back with its unset fields written as null
        else same_arguments(sent.arguments, served.arguments)
    )
    if not same:
        raise Refused(f"{where} sends back the call {shown} with other arguments: {str(sent.arguments)[:120]}")


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _result_for(sent: WireCall, results: list[WireResult], used: set[int]) -> WireResult | None:
    """The result answering a sent call: by its id, else (no ids) the next unused one of its name."""
    for result in results:
        if id(result) in used:
            continue
        if sent.call_id and result.call_id:
            if result.call_id == sent.call_id:
                used.add(id(result))
                return result
        elif result.name in (None, sent.name):
            used.add(id(result))
            return result
    return None


def _answers_elsewhere(step: Step, whole: Split, ctx: CheckContext) -> tuple[dict[int, _Answer], str]:
    """For a conversation's last calls: the outputs a later request of the cassette sent, on any API
    (a conversation continued on another provider)."""
    later = sorted(
        (s for c in whole.conversations for s in c.steps if s.index > step.index and s.ok),
        key=lambda s: s.index,
    )
    for other in later:
        sent = other.history.calls()
        if not all(carries(c, sent, set()) for c in step.served.calls if _needs_result(ctx, c)):
            continue
        try:
            return _answers(step, other, ctx), f"request[{other.index}] ({other.dialect.api})"
        except Refused:
            continue
    return {}, ""


# --- a history the first request carries ------------------------------------------------------


def _history(first: Step, whole: Split, ctx: CheckContext) -> tuple[list[dict[str, Any]], str]:
    """The turns the first request carries, on the API that served them."""
    messages = first.history.messages
    calling = [m for m in messages if m.calls]
    if not calling:
        return [], ""
    earlier = sorted(
        (s for c in whole.conversations for s in c.steps if s.index < first.index and s.ok),
        key=lambda s: s.index,
        reverse=True,
    )
    origins: set[str] = set()
    turns: list[dict[str, Any]] = []
    used: set[int] = set()
    for message in calling:
        later = [r for m in messages if m.index > message.index for r in m.results]
        own_results = list(message.results)
        entries: list[dict[str, Any]] = []
        for sent in message.calls:
            origin = _origin(sent, earlier, first.dialect.api)
            api, served = origin if origin is not None else (first.dialect.api, sent)
            origins.add(api)
            if sent.provider_executed:
                result = next((r for r in own_results if r.call_id and r.call_id == sent.call_id), None)
            else:
                result = _result_for(sent, later, used)
            if result is None and not sent.provider_executed and ctx.dialect.result_type(sent.wire_type):
                raise Refused(f"{sent.path}: the first request carries the call {sent.name} without its result")
            plain = dialect_for(api).call_type
            entry = _expected(served, output_text(result.output) if result else "", plain, ctx.corpus)
            # A history names every call's wire type: it is played on another API than the scenario's.
            entry = {"wire_type": request_form(ctx.corpus, served.wire_type), **entry}
            entries.append({k: entry[k] for k in ("id", "item_id", "name", "wire_type") if k in entry} | entry)
        turns.append({"calls": entries})
    if len(origins) > 1:
        raise Refused(f"the first request's history holds calls served on several APIs: {', '.join(sorted(origins))}")
    return turns, origins.pop()


def _origin(sent: WireCall, earlier: list[Step], api: str) -> tuple[str, WireCall] | None:
    """The most recent served call a history call stands for: by id, else by name and arguments
    where an id could not have survived (none on one side, or the call moved to another API)."""
    if sent.call_id:
        for step in earlier:
            for call in step.served.calls:
                if call.call_id == sent.call_id and call.name == sent.name:
                    return step.dialect.api, call
    for step in earlier:
        for call in step.served.calls:
            remapped = not sent.call_id or not call.call_id or step.dialect.api != api
            if remapped and call.name == sent.name and same_arguments(call.arguments, sent.arguments):
                return step.dialect.api, call
    return None


# --- tools, wire types, features ------------------------------------------------------------------


def _tools(conversation: Conversation, history: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    found: list[dict[str, Any]] = []
    server: list[dict[str, Any]] = []  # the provider's own tools, as the requests declare them
    for step in conversation.steps:
        for tool in requests.tools(conversation.api, step.body):
            if all(t["name"] != tool["name"] for t in found):
                found.append(tool)
        for definition in server_tool_definitions(conversation.api, step.body):
            family = family_of(conversation.api, definition["type"])
            if all(family_of(conversation.api, t["type"]) != family for t in server):
                server.append(definition)
    called = [c["name"] for t in history for c in t["calls"] if not c.get("provider_executed")]
    called += [c.name for c in conversation.served_calls() if c.name and not c.provider_executed]
    missing = [n for n in dict.fromkeys(called) if all(t["name"] != n for t in found)]
    note = ""
    if missing:
        note = f"the requests do not declare {', '.join(missing)}; declared here with an open object schema"
        found += [{"name": n, "parameters": {"type": "object"}} for n in missing]
    return found + server, note


def _wire_types(conversation: Conversation, origin: str, history: list[dict[str, Any]]) -> list[str]:
    carried: list[str] = []
    for step in conversation.steps:
        for wire in (
            *(c.wire_type for c in step.served.calls),
            *(r.wire_type for r in step.served.results),
            *(c.wire_type for c in step.history.calls()),
            *(r.wire_type for r in step.history.results()),
        ):
            if wire not in carried:
                carried.append(wire)
    if origin and origin != conversation.api:
        source = dialect_for(origin)
        for turn in history:
            for call in turn["calls"]:
                wire = call["wire_type"]
                answer = None if call.get("provider_executed") else source.result_type(wire)
                for w in (wire, answer):
                    if w and w not in carried:
                        carried.append(w)
    return carried


def _features(
    turns: list[dict[str, Any]],
    history: list[dict[str, Any]],
    origin: str,
    api: str,
    conversation: Conversation,
    corpus: Corpus,
    answer_order: str,
) -> list[str]:
    all_turns = [*history, *turns]
    calls = [c for t in all_turns for c in t.get("calls", ())]
    client = [[c for c in t.get("calls", ()) if not c.get("provider_executed")] for t in all_turns]
    features: list[str] = []

    def add(name: str, present: bool) -> None:
        if present and name not in features:
            features.append(name)

    add("parallel-calls", any(len(t) > 1 for t in client))
    add("same-tool-twice", any(len({c["name"] for c in t}) < len(t) for t in client))
    add("streaming", conversation.steps[0].served.stream)
    add("server-tool", any(c.get("provider_executed") for c in calls))
    roles = {corpus.wire_types[w].role for s in conversation.steps for w in _served_types(s) if w in corpus.wire_types}
    add("hybrid", "hybrid" in roles)
    add("id-less", any(c.get("id") is None for c in calls))
    add("multi-turn", sum(1 for t in all_turns if t.get("calls")) > 1)
    add("cross-provider", bool(origin) and origin != api)
    add("out-of-order-results", answer_order == "reversed")
    add("opaque-field", any(c.get("extra") for c in calls))
    add("session", any(t.get("prompt") for t in turns))
    if not features or features == ["streaming"]:
        features.insert(0, "single-call")
    return features


def _served_types(step: Step) -> list[str]:
    return [c.wire_type for c in step.served.calls]
