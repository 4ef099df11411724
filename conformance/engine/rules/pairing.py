"""pairing/*: every result answers a call where its API looks for it, is answered once, and
carries that call's own output.

Where a result may answer a call depends on the dialect's placement (see dialects.base): the tool
messages right after the calling message, the one next message, or anywhere later. Results
without ids (Gemini) answer the calls of that window by name, in order; server-tool results
answer calls of their own message.

Every step is linear in the length of the history: calls are found through indexes built as the
messages are read, never by scanning the messages before each result.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from conformance.engine.rules.alignment import Echo
from conformance.engine.rules.context import CheckContext
from conformance.engine.rules.diagnose import resembles
from conformance.engine.rules.outputs import outputs
from conformance.engine.violations import Violation
from conformance.engine.wire import History, WireCall, WireMessage, WireResult


@dataclass
class _State:
    answered: dict[str, WireResult] = field(default_factory=dict)  # call path -> its result
    pairs: list[tuple[WireResult, WireCall]] = field(default_factory=list)


class _Calls:
    """Calls in history order, found by id or, for id-less results, by name, in constant time
    however long the history: the window of an API whose results may sit anywhere later grows
    with every message, and is not rebuilt for each one."""

    def __init__(self) -> None:
        self._by_id: dict[str, list[WireCall]] = {}
        self._by_name: dict[str | None, list[WireCall]] = {}
        self._all: list[WireCall] = []
        self._next: dict[Any, int] = {}  # per list: where its first unanswered call may be

    def add(self, calls: Iterable[WireCall]) -> None:
        by_id, by_name, every = self._by_id, self._by_name, self._all
        for call in calls:
            if call.call_id:
                by_id.setdefault(call.call_id, []).append(call)
            by_name.setdefault(call.name, []).append(call)
            every.append(call)

    def __len__(self) -> int:
        return len(self._all)

    def _first_unanswered(self, key: Any, calls: list[WireCall], state: _State) -> WireCall | None:
        # Answered calls stay answered, so the scan resumes where it stopped last time.
        i = self._next.get(key, 0)
        while i < len(calls) and calls[i].path in state.answered:
            i += 1
        self._next[key] = i
        return calls[i] if i < len(calls) else None

    def match(self, result: WireResult, state: _State) -> WireCall | None:
        if result.call_id:
            same = self._by_id.get(result.call_id)
            if not same:
                return None
            return self._first_unanswered(("id", result.call_id), same, state) or same[0]
        # No id: the first unanswered call with the result's name.
        if result.name is None:
            return self._first_unanswered("all", self._all, state)
        return self._first_unanswered(("name", result.name), self._by_name.get(result.name, []), state)


class _Turn:
    """The calls of one message: a window of a few calls, matched by scanning them."""

    __slots__ = ("calls",)

    def __init__(self, calls: tuple[WireCall, ...], provider: bool) -> None:
        self.calls = [c for c in calls if c.provider_executed == provider] if calls else []

    def __len__(self) -> int:
        return len(self.calls)

    def match(self, result: WireResult, state: _State) -> WireCall | None:
        first: WireCall | None = None
        call_id, name, answered = result.call_id, result.name, state.answered
        for c in self.calls:
            if call_id:
                if c.call_id != call_id:
                    continue
            elif name is not None and c.name != name:
                continue
            if c.path not in answered:
                return c
            if first is None and call_id:
                first = c  # an id names its call even when that call is answered already
        return first


_NO_CALLS = _Turn((), False)  # the window of results that follow no calls


def _client(calls: Iterable[WireCall]) -> list[WireCall]:
    return [c for c in calls if not c.provider_executed]


def _id_required(ctx: CheckContext, result: WireResult) -> bool:
    """Whether the result's wire type requires its reference id (Gemini's and old Ollama's do not)."""
    case = ctx.corpus.wire_types.get(result.wire_type)
    field = case.id_field(result.id_field) if case else None
    return field is not None and field.presence == "required" and not field.nullable


def needs_result(ctx: CheckContext, call: WireCall) -> bool:
    return not call.provider_executed and ctx.dialect.result_type(call.wire_type) is not None


def check_request(ctx: CheckContext, history: History, echoes_here: list[Echo]) -> list[Violation]:
    return _Pairing(ctx, history, echoes_here).run()


class _Pairing:
    """One request's results placed against its calls."""

    def __init__(self, ctx: CheckContext, history: History, echoes_here: list[Echo]) -> None:
        self.ctx = ctx
        self.history = history
        self.echoes = echoes_here
        self.dropped = {e.served.call_id for e in echoes_here if e.sent is None and e.served.call_id}
        self.served_ids = {e.served.call_id for e in echoes_here if e.served.call_id}
        self.state = _State()
        self.out: list[Violation] = []
        self._required: dict[tuple[str, str], bool] = {}

    def id_required(self, result: WireResult) -> bool:
        key = (result.wire_type, result.id_field)
        if key not in self._required:
            self._required[key] = _id_required(self.ctx, result)
        return self._required[key]

    def run(self) -> list[Violation]:
        # Calls sent under the ids the provider served them with: where results answer the assistant
        # message they follow (Chat Completions and its kin), two of them sharing an id in separate
        # turns are the provider's numbering (call_0 in every response, echoVic/orca-agent#67), not
        # a collision the client made, and each result still names one call. Elsewhere an id is
        # looked up over the whole request (Anthropic refuses a repeat anywhere in it).
        served_as = (
            {e.sent.path: e.served_turn for e in self.echoes if e.sent and e.sent.call_id == e.served.call_id}
            if self.ctx.dialect.placement == "following-messages"
            else {}
        )
        duplicates, first_by_id = _calls_by_id(self.ctx, self.history, served_as)
        self.out.extend(duplicates)
        self.place_results(first_by_id)
        self.server_results()
        self.missing_results()
        self.out.extend(outputs(self.ctx, self.history, self.state.pairs))
        return self.out

    # --- where each result goes ------------------------------------------------------------
    def place_results(self, everywhere: dict[str, WireCall]) -> None:
        """Place every result; `everywhere` holds the first call of the history with each id."""
        messages = self.history.messages
        placement = self.ctx.dialect.placement
        anywhere = placement == "anywhere-after"
        following = placement == "following-messages"
        next_message = placement == "next-message"
        place = self.place
        earlier = _Calls()  # anywhere-after: the client calls of the messages before this one
        provider_calls = _Calls()  # anywhere-after: the provider-run calls up to this message
        calling = -1  # following-messages: the calling message the results since then follow
        window: _Calls | _Turn = _NO_CALLS
        window_of = -2  # the message `window` was built for
        run: list[WireResult] = []  # following-messages: the id-less results of this run of results
        last = len(messages) - 1
        for index, message in enumerate(messages):
            calls = message.calls
            if anywhere and calls:
                client = _client(calls)
                if len(client) < len(calls):
                    provider_calls.add(c for c in calls if c.provider_executed)
            if message.results:
                own: _Calls | _Turn
                if anywhere:
                    window, own = earlier, provider_calls
                else:
                    before = index - 1 if next_message else calling
                    if before != window_of:
                        window = _Turn(messages[before].calls, False) if before >= 0 else _NO_CALLS
                        window_of = before
                    own = _Turn(calls, True) if calls else _NO_CALLS
                found = [r for r in message.results if place(r, window, own, everywhere) is not None]
                if following and not calls:
                    run.extend(found)
                    after = messages[index + 1] if index < last else None
                    if after is not None and after.results and not after.calls:
                        continue  # the run goes on: counted at its last message
                    found, run = run, []
                # Without ids, results pair with one turn's calls by count: where results may sit
                # anywhere later there is no such turn to count against.
                if found and not anywhere and len(window) and len(found) != len(window):
                    self.count_mismatch(message, found, len(window))
            if anywhere:
                if calls:
                    earlier.add(client)
            elif calls or not message.results:
                calling = index if calls else -1

    def place(
        self, result: WireResult, window: _Calls | _Turn, own: _Calls | _Turn, everywhere: dict[str, WireCall]
    ) -> WireResult | None:
        """Pair one result; return it when it is an id-less client result that pairs by count."""
        ctx, state = self.ctx, self.state
        call_id, provider = result.call_id, result.provider_executed
        if not call_id and self.id_required(result):
            self.out.append(
                ctx.violation(
                    "pairing/orphan-result",
                    result.id_path,
                    f"The result has no id ({result.call_id!r}); {ctx.dialect.api} pairs a result with its call "
                    "only by id, so it answers nothing.",
                    wire_type=result.wire_type,
                    expected="the id of the call it answers",
                    received=result.call_id,
                )
            )
            return None
        counted = result if not call_id and not provider else None
        # A server's result answers a provider-run call of its own message (or, where results may
        # sit anywhere later, of an earlier one: a Responses program's output follows the calls it made).
        call = (own if provider else window).match(result, state)
        if call is not None:
            answered = state.answered
            if call.path in answered:
                self.duplicate(result)
            else:
                answered[call.path] = result
                state.pairs.append((result, call))
                if counted is not None and call.call_id:
                    # Served or minted by the client, an id the call goes out with is the one its
                    # results must name: left off, the result pairs by name only where the API lets it.
                    self.not_echoed(result, call)
            return counted
        elsewhere = everywhere.get(call_id) if call_id else None
        if elsewhere is not None and elsewhere.path in state.answered:
            self.duplicate(result)
        elif elsewhere is not None:
            state.answered[elsewhere.path] = result
            state.pairs.append((result, elsewhere))
            self.out.append(
                ctx.violation(
                    "pairing/not-adjacent",
                    result.id_path,
                    f"The result for {result.call_id!r} answers the call at {elsewhere.path}, but "
                    f"{ctx.dialect.api} only pairs it with calls of the turn it directly follows.",
                    wire_type=result.wire_type,
                    expected=f"the result right after {elsewhere.path}",
                    received=f"the result at {result.path}",
                )
            )
        elif not self.history.continues:  # else the call may be in the stored history
            self.orphan(result)
        return counted

    # --- what is wrong ---------------------------------------------------------------------
    def orphan(self, result: WireResult) -> None:
        ctx = self.ctx
        if result.call_id in self.dropped:
            self.out.append(
                ctx.violation(
                    "pairing/call-dropped",
                    result.id_path,
                    f"The result for {result.call_id!r} is sent, but the call it answers, which the "
                    "provider issued, is missing from the history.",
                    wire_type=result.wire_type,
                    expected=f"the call {result.call_id!r} before its result",
                    received="the result alone",
                )
            )
            return
        why = ""
        if result.call_id and result.call_id not in self.served_ids:
            names = {*ctx.tool_names, *([result.name] if result.name else [])}
            looks = resembles(result.call_id, names=names, output=str(result.output))
            why = f" ({looks})" if looks else ""
        shown = result.call_id if result.call_id else f"(no id, name {result.name!r})"
        self.out.append(
            ctx.violation(
                "pairing/orphan-result",
                result.id_path,
                f"The result {shown} matches no call of the turn it must follow{why}.",
                wire_type=result.wire_type,
                expected="the id of a call in the preceding assistant turn",
                received=result.call_id,
            )
        )

    def duplicate(self, result: WireResult) -> None:
        self.out.append(
            self.ctx.violation(
                "pairing/duplicate-result",
                result.id_path,
                f"The call {result.call_id or result.name!r} is answered more than once.",
                wire_type=result.wire_type,
                expected="one result per call",
                received=f"another result for {result.call_id or result.name!r}",
            )
        )

    def not_echoed(self, result: WireResult, call: WireCall) -> None:
        """An id-less result answering a call sent with an id: where the API lets a result go without
        an id (Gemini, Ollama), it still pairs by the id when the call has one, whether the provider
        issued it or the client gave it one of its own."""
        how = "was issued with" if call.call_id in self.served_ids else "is sent with an id of the client's own,"
        self.out.append(
            self.ctx.violation(
                "roundtrip/empty-id",
                result.id_path,
                f"The call {call.name} {how} the id {call.call_id!r}, but its result goes back "
                f"without it; {self.ctx.dialect.api} pairs a result with a call that has an id by that id.",
                wire_type=result.wire_type,
                expected=call.call_id,
                received=result.call_id,
                hint="Send the result with the id of the call it answers, byte for byte; an empty id is no id.",
            )
        )

    def count_mismatch(self, message: WireMessage, idless: list[WireResult], calls: int) -> None:
        self.out.append(
            self.ctx.violation(
                "pairing/count-mismatch",
                message.path,
                f"The turn answers {calls} call(s) with {len(idless)} id-less result(s); without "
                "ids, results pair with calls by count and name.",
                wire_type=idless[0].wire_type,
                expected=f"{calls} results",
                received=f"{len(idless)} results",
            )
        )

    def server_results(self) -> None:
        """A server tool's result is the provider's, but the history must carry it with its call."""
        for echo in self.echoes:
            sent = echo.sent
            if sent is None:
                continue
            answered = self.state.answered.get(sent.path)
            if answered is not None and answered.provider_executed:
                continue
            if not echo.served_results:
                # A server call whose result the provider serves later (a program's code_execution
                # runs across responses) is still the provider's to answer, never the client's.
                if echo.served.provider_executed and answered is not None:
                    self.out.append(
                        self.ctx.violation(
                            "pairing/missing-result",
                            sent.id_path,
                            f"The server tool call {sent.call_id!r} ({sent.name}) is the provider's to answer, "
                            "but the history sends it back as a call of the client's, answered by the client.",
                            wire_type=sent.wire_type,
                            expected="the call sent back as the provider's, with no client result",
                            received=f"a client result at {answered.path}",
                        )
                    )
                continue
            why = (
                "but the history sends it back as a call of the client's, answered by the client"
                if answered is not None
                else "but the history sends the call back without it"
            )
            self.out.append(
                self.ctx.violation(
                    "pairing/missing-result",
                    sent.id_path,
                    f"The server tool call {sent.call_id!r} ({sent.name}) was served with the provider's "
                    f"result, {why}.",
                    wire_type=sent.wire_type,
                    expected=f"the {echo.served_results[0].wire_type} served with it",
                    received="none",
                )
            )

    def missing_results(self) -> None:
        answered_by: dict[str, bool] = {}  # a call's wire type -> whether a client result answers it
        for message in self.history.messages:
            for call in message.calls:
                if call.path in self.state.answered or call.provider_executed:
                    continue
                if call.wire_type not in answered_by:
                    answered_by[call.wire_type] = needs_result(self.ctx, call)
                if not answered_by[call.wire_type]:
                    continue
                self.out.append(
                    self.ctx.violation(
                        "pairing/missing-result",
                        call.id_path,
                        f"The call {call.call_id!r} ({call.name}) has no result where {self.ctx.dialect.api} "
                        "expects it.",
                        wire_type=call.wire_type,
                        expected=f"a result for {call.call_id or call.name!r}",
                        received="none",
                    )
                )


def _calls_by_id(
    ctx: CheckContext, history: History, served_as: dict[str, int]
) -> tuple[list[Violation], dict[str, WireCall]]:
    """The first call of the history with each id, and a violation for every later one, but for a
    later one sent as the provider served it in a turn of its own (`served_as`: a call's path -> the
    response that served it under that id)."""
    out: list[Violation] = []
    first: dict[str, WireCall] = {}
    last: dict[str, WireCall] = {}
    for message in history.messages:
        for call in message.calls:
            call_id = call.call_id
            if not call_id:
                continue
            earlier = first.setdefault(call_id, call)
            if earlier is call:
                last[call_id] = call
                continue
            before = last[call_id]
            last[call_id] = call
            turn, turn_before = served_as.get(call.path), served_as.get(before.path)
            if turn is None or turn_before is None or turn == turn_before:
                out.append(
                    ctx.violation(
                        "pairing/duplicate-call-id",
                        call.id_path,
                        f"The id {call_id!r} is used by two calls ({earlier.name} at "
                        f"{earlier.id_path} and {call.name} here); results cannot tell them apart.",
                        wire_type=call.wire_type,
                        expected="a distinct id per call",
                        received=call_id,
                    )
                )
    return out, first


# --- outputs -------------------------------------------------------------------------------
