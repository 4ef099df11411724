"""What an isolated adapter's worker process hands over, and the run rebuilt from it in the parent.

The worker runs the adapter's code and nothing else that decides a verdict: for a codec it plays the
scenario's tool loop and hands over what each `encode` and `decode` returned, and for a client it
hands over the request bodies the client sent and how the client ended. The parent rebuilds the
exchange from that data and the recording it loads itself, and judges it with its own rules. An
adapter that patches the suite's objects inside its worker (the result, the rules, the replay's
refusals) changes nothing the parent reads: what it hands over is checked as data, and a verdict it
hands over is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from conformance.corpus.loading import Scenario
from conformance.engine.dialects.base import Dialect, DialectError
from conformance.engine.exchange import Exchange, Turn
from conformance.engine.faults import Described, describe, short_traceback
from conformance.engine.rules import CheckContext, check
from conformance.engine.violations import Violation
from conformance.engine.wire import Served
from conformance.recordings.cassette import Cassette, Interaction
from conformance.replay.session import MAX_NOTED, ClientRun, is_authoritative

if TYPE_CHECKING:
    from conformance.connectors.codec import AdapterFault


class HandoverError(Exception):
    """What the worker handed over is not what a worker hands over: the adapter reached the worker's
    own code, or the worker is broken. The case is an error; nothing in it is judged."""


def raised(exc: BaseException) -> dict[str, str]:
    """An exception as data: the parent never holds the adapter's objects."""
    return {"description": describe(exc), "detail": getattr(exc, "detail", "") or short_traceback(exc)}


def described(data: Any, where: str) -> Described:
    if not isinstance(data, dict) or not isinstance(data.get("description"), str):
        raise HandoverError(f"{where} is not an exception's description")
    detail = data.get("detail")
    return Described(data["description"], detail if isinstance(detail, str) else "")


def fault_data(fault: AdapterFault) -> dict[str, Any]:
    """Worker side: a codec's fault (what it raised, or returned against the contract) as data, located."""
    return {"phase": fault.phase, "turn": fault.turn, "summary": fault.summary, "detail": fault.detail}


def codec_fault(data: Any) -> AdapterFault:
    """Parent side: the codec's fault `fault_data` handed over, checked as data."""
    from conformance.connectors.codec import AdapterFault

    if not (isinstance(data, dict) and isinstance(data.get("phase"), str) and isinstance(data.get("summary"), str)):
        raise HandoverError("fault is not a codec's located fault")
    turn, detail = data.get("turn"), data.get("detail")
    if not isinstance(turn, int) or isinstance(turn, bool):
        raise HandoverError("fault names no turn")
    return AdapterFault(data["phase"], turn, data["summary"], detail if isinstance(detail, str) else "")


def client_run_data(run: ClientRun) -> dict[str, Any]:
    """Worker side: what a client's run hands over. The exchange's requests only: what was served,
    what was expected and what the provider would have refused, the parent reads from the recording."""
    return {
        "requests": [turn.request for turn in run.exchange.turns],
        "sent": run.sent,
        "side": run.side,
        "malformed": run.malformed,
        "extra": run.extra,
        "unservable": run.unservable,
        "unsupported": run.unsupported,
        "fault": None if run.fault is None else raised(run.fault),
        "tools_ran": None if run.tools_ran is None else [list(call) for call in run.tools_ran],
        "past_end": run.past_end,
    }


def codec_run_data(exchange: Exchange) -> dict[str, Any]:
    """Worker side: what a codec's run of the tool loop hands over: each turn's two encodes and two
    decodes, the history's decodes. What was served and recorded, the parent reads itself."""
    return {
        "requests": [[turn.request, turn.request_again] for turn in exchange.turns],
        "decoded": [list(pair) for pair in zip(exchange.decoded, exchange.redecoded, strict=True)],
        "history": [list(pair) for pair in zip(exchange.history_decoded, exchange.history_redecoded, strict=True)],
    }


def codec_exchange(
    data: Any,
    scenario: Scenario,
    recorded: Cassette,
    dialect: Dialect,
    history: tuple[Cassette, Dialect] | None,
) -> Exchange:
    """Parent side: the codec's exchange rebuilt from handed data and the recordings. Every body and
    message passes the codec connector's own shape checks here, as if the codec had returned it in
    this process (an AdapterFault is the adapter's, located); the data is plain JSON, read from the
    worker's answer within the depth bound (connectors.supervisor). A count that is not the
    recording's is a worker that was tampered with (HandoverError)."""
    from conformance.connectors.codec import check_body, check_message

    if not isinstance(data, dict):
        raise HandoverError("the codec's run is not an object")
    requests = _pairs(data, "requests", len(recorded.interactions))
    decoded = _pairs(data, "decoded", len(recorded.interactions))
    played = _pairs(data, "history", len(history[0].interactions) if history else 0)
    turns = []
    for interaction, (body, again) in zip(recorded, requests, strict=True):
        i = interaction.index
        served = dialect.served(interaction.response, f"response[{i}]")
        turns.append(
            Turn(
                index=i,
                request=check_body(body, i, parsed=True),
                served=served,
                expected_request=_recorded(interaction),
                request_again=check_body(again, i, parsed=True),
            )
        )
    history_turns = []
    if history is not None:
        cassette, history_dialect = history
        for interaction in cassette:
            served = history_dialect.served(interaction.response, f"history.response[{interaction.index}]")
            history_turns.append(Turn(index=interaction.index, request=None, served=served))
    return Exchange(
        api=scenario.api,
        turns=tuple(turns),
        decoded=tuple(check_message(first, i, parsed=True) for i, (first, _) in enumerate(decoded)),
        redecoded=tuple(check_message(second, i, parsed=True) for i, (_, second) in enumerate(decoded)),
        history_api=scenario.history.api if history_turns and scenario.history else None,
        history_turns=tuple(history_turns),
        history_decoded=tuple(check_message(first, i, parsed=True) for i, (first, _) in enumerate(played)),
        history_redecoded=tuple(check_message(second, i, parsed=True) for i, (_, second) in enumerate(played)),
    )


def _pairs(data: dict[str, Any], key: str, count: int) -> list[list[Any]]:
    value = data.get(key)
    if (
        not isinstance(value, list)
        or len(value) != count
        or not all(isinstance(p, list) and len(p) == 2 for p in value)
    ):
        raise HandoverError(f"{key} is not {count} pairs, one a recorded turn")
    return value


def client_run(
    data: Any,
    scenario: Scenario,
    recorded: Cassette,
    dialect: Dialect,
    ctx: CheckContext,
    *,
    replayed: bool,
) -> ClientRun:
    """Parent side: the client's run rebuilt from handed data and the recording (the cassette as it
    stands after the run: the one replayed, or the one just recorded when `replayed` is false)."""
    if not isinstance(data, dict):
        raise HandoverError("the client's run is not an object")
    played = _played(scenario, recorded, dialect) if replayed else recorded.interactions
    requests = data.get("requests")
    if not isinstance(requests, list) or len(requests) > len(played):
        raise HandoverError(f"requests is not a list of at most {len(played)} bodies")
    sent = data.get("sent")
    if not isinstance(sent, int) or isinstance(sent, bool) or sent < len(requests):
        raise HandoverError(f"sent is {sent!r}, not a count of at least {len(requests)}")
    turns = []
    renamed: list[str] = []
    for i, body in enumerate(requests):
        interaction = played[i]
        try:
            served = dialect.served(interaction.response, f"response[{i}]")
        except (DialectError, ValueError):
            if replayed:
                raise
            served = Served(stream=False, calls=(), text="", payload={})  # a recording cut short
        if replayed:  # a turn the replay served under the names the request declared, as the replay does
            served = _as_renamed(scenario.api, interaction, served, body, dialect, i, renamed)
        turns.append(Turn(index=i, request=body, served=served, expected_request=_recorded(interaction)))
    exchange = Exchange(api=scenario.api, turns=tuple(turns))
    past_end = data.get("past_end")
    forced_end = forced_turn(exchange) if replayed else None
    if replayed and forced_end is None and past_end is not None and sent > len(played) == len(turns) and turns:
        from conformance.engine.forced_choice import forced_after_end

        forced_end = forced_after_end(scenario.api, turns[-1].served, past_end, f"response[{len(turns) - 1}]")
    fault = data.get("fault")
    tools_ran = data.get("tools_ran")
    if tools_ran is not None and not (
        isinstance(tools_ran, list) and all(isinstance(t, list) and len(t) == 2 for t in tools_ran)
    ):
        raise HandoverError("tools_ran is not a list of [name, arguments] pairs")
    refused = refusals(exchange, ctx) if replayed and is_authoritative(recorded, scenario.api) else []
    return ClientRun(
        exchange=exchange,
        refused=refused,
        undeclared=undeclared_turn(exchange, refused) if replayed else None,
        forced_end=forced_end,
        recorded=len(recorded.interactions),
        sent=sent,
        fault=None if fault is None else described(fault, "fault"),
        side=_texts(data, "side"),
        malformed=_texts(data, "malformed"),
        extra=_texts(data, "extra"),
        unservable=_text(data, "unservable"),
        unsupported=_text(data, "unsupported"),
        tools_ran=None if tools_ran is None else [(t[0], t[1]) for t in tools_ran],
        closing=len(played) - len(recorded.interactions),
        renamed=renamed,
    )


def _as_renamed(
    api: str, interaction: Interaction, served: Served, body: Any, dialect: Dialect, index: int, notes: list[str]
) -> Served:
    """The turn as the replay served it to this request: under the names it declares its tools by,
    where it declares them under a prefix (conformance.replay.renaming); else as recorded."""
    from conformance.replay.renaming import renamed_turn
    from conformance.replay.transports import transport_for

    turn = renamed_turn(api, interaction, served, body, _recorded(interaction), transport_for(api), index)
    if turn is None:
        return served
    renamed, said = turn
    notes.extend(said)
    return dialect.served(renamed.response, f"response[{index}]")


def _played(scenario: Scenario, recorded: Cassette, dialect: Dialect) -> tuple[Interaction, ...]:
    """What the worker's replay played: the recording, then the suite's closing answer where it ends
    on calls (made here from the recording, as the worker's replay made it)."""
    from conformance.replay.closing import closing_interaction
    from conformance.replay.transports import transport_for

    closing = closing_interaction(scenario.id, recorded, dialect, transport_for(scenario.api))
    return (*recorded.interactions, *((closing,) if closing is not None else ()))


def refusals(exchange: Exchange, ctx: CheckContext) -> list[Violation]:
    """The violations the replay answered with the provider's error: those of the first request the
    provider would have rejected, judged on the exchange as it stood when that request was sent (as
    the replay judged it), never taken from the worker."""
    for i in range(len(exchange.turns)):
        so_far = Exchange(
            api=exchange.api,
            turns=tuple(Turn(index=t.index, request=t.request, served=t.served) for t in exchange.turns[: i + 1]),
        )
        try:
            found = check(so_far, ctx)
        except DialectError:
            return []  # judged as a whole, where the verdict says what the body is not
        here = [
            v for v in found if v.severity == "error" and v.provider_error and v.location.startswith(f"request[{i}]")
        ]
        if here:
            return here
    return []


def undeclared_turn(exchange: Exchange, refused: list[Violation]) -> str | None:
    """Why the replay could not serve a recorded turn to the request sent for it (a server tool or
    caller the request did not declare), worked out from the bodies as the replay works it out."""
    from conformance.engine.declarations import unserved_reason

    skipped = {v.location.split(".", 1)[0] for v in refused}  # answered with the provider's error first
    for turn in exchange.turns:
        if f"request[{turn.index}]" in skipped:
            continue
        reason = unserved_reason(
            exchange.api, turn.served, turn.request, turn.expected_request, f"response[{turn.index}]"
        )
        if reason is not None:
            return reason
    return None


def forced_turn(exchange: Exchange) -> str | None:
    """Why the conversation ended at a request that forces a tool call the recorded final answer does
    not make, worked out from the bodies as the replay works it out."""
    from conformance.engine.forced_choice import forced_past

    for turn in exchange.turns:
        reason = forced_past(exchange.api, turn.served, turn.request, turn.expected_request, f"response[{turn.index}]")
        if reason is not None:
            return reason
    return None


def _texts(data: dict[str, Any], key: str) -> list[str]:
    value = data.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise HandoverError(f"{key} is not a list of texts")
    return value[:MAX_NOTED]


def _text(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise HandoverError(f"{key} is not a text")
    return value


def _recorded(interaction: Interaction) -> Any:
    """The recorded request's body, where it is JSON: what a correct client sends."""
    try:
        return interaction.request.json()
    except ValueError:
        return None
