"""Adapters that try to change their own verdict from inside the process that runs them.

Each sends the tool's name back as the call's id (a `roundtrip/id-altered` on every case with a
call), and, the first time its code runs, rewrites the suite's own objects in that process: the
result's JSON, the rules, the verdict functions and the client run's record of what was sent.
Isolated, none of this may change a verdict; `FORGED_NOTHING` is the same bug without the forgery,
for comparison. The last two write the worker's answers themselves, blaming the corpus.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from conformance import CodecAdapter
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.engine.neutral import Conversation
from conformance.reference.openai_chat import OpenAIChatCodec


def _forge() -> None:
    import conformance.engine.outcomes as outcomes
    import conformance.engine.rules as rules
    import conformance.replay.session as session
    import conformance.replay.verdicts as verdicts
    import conformance.running.runner as runner

    def passed(self: Any) -> dict[str, Any]:
        return {"id": self.case_id, "api": self.api, "outcome": "pass", "violations": [], "duration": 0.0}

    outcomes.CaseResult.to_json = passed  # type: ignore[method-assign]
    rules.check = lambda *args, **kwargs: []  # type: ignore[assignment]
    verdicts.check = rules.check  # type: ignore[attr-defined]
    for module in (verdicts, runner):
        original = module.judged if hasattr(module, "judged") else None
        if original is not None:

            def judged(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
                result = _original(*args, **kwargs)
                result.outcome, result.violations = "pass", []
                return result

            module.judged = judged  # type: ignore[attr-defined]
    finish = session.ReplaySession.finish

    def finished(self: Any, *args: Any, **kwargs: Any) -> Any:
        run = finish(self, *args, **kwargs)
        run.refused = []
        return run

    session.ReplaySession.finish = finished  # type: ignore[method-assign]


class NameAsId(OpenAIChatCodec):
    forge = True

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        if self.forge:
            _forge()
        body = super().encode(conversation)
        names = {}
        for message in body["messages"]:
            for call in message.get("tool_calls") or []:
                names[call["id"]] = call["id"] = call["function"]["name"]
            if message.get("role") == "tool":
                message["tool_call_id"] = names.get(message["tool_call_id"], message["tool_call_id"])
        return body


class NameAsIdHonest(NameAsId):
    forge = False


FORGES_ITS_VERDICT = CodecAdapter(name="forging", version="0", codecs={"openai-chat": NameAsId()})
FORGED_NOTHING = CodecAdapter(name="honest", version="0", codecs={"openai-chat": NameAsIdHonest()})


def _client(codec: OpenAIChatCodec) -> Any:
    from http_clients import Variant, codec_client

    return codec_client(codec, Variant())


def forging_client(loop: ToolLoop) -> None:
    _forge()
    _client(NameAsIdHonest())(loop)


CLIENT_FORGES_ITS_VERDICT = ClientAdapter(name="forging-client", version="0", clients={"openai-chat": forging_client})


# --- adapters that write the worker's answers themselves ------------------------------------------


def _frames(nonce: str | None = None, seq: int | None = None) -> str:
    """An answer blaming the corpus: for one message, echoing its nonce, or for each of the first
    messages a worker is sent."""
    lines = []
    for number in [seq] if seq is not None else range(1, 12):
        frame: dict[str, Any] = {"seq": number, "corpus": "the corpus is at fault, not the adapter"}
        if nonce is not None:
            frame["nonce"] = nonce
        lines.append(json.dumps(frame) + "\n")
    return "".join(lines)


def _write_on_every_pipe() -> None:
    """Writes on every pipe the process holds: the worker's answers among them, whatever their number."""
    for fd in range(3, 256):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                os.write(fd, _frames().encode())


def _write_with_the_workers_nonce() -> None:
    """Reads the command it runs in (its nonce) and the worker's answer stream out of the worker's
    frames, and answers that command itself, and every other it can name, before the worker does."""
    frame = sys._getframe()
    while frame is not None and not {"nonce", "out", "seq"} <= frame.f_locals.keys():
        frame = frame.f_back
    assert frame is not None, "the worker's frame was not found"
    out = frame.f_locals["out"]
    out.write(_frames(frame.f_locals["nonce"], frame.f_locals["seq"]) + _frames())
    out.flush()


class BlamesTheCorpus(NameAsIdHonest):
    def __init__(self, forge: Callable[[], None]) -> None:
        self.blame = forge

    def encode(self, conversation: Conversation) -> dict[str, Any]:
        self.blame()
        return super().encode(conversation)


WRITES_ON_EVERY_PIPE = CodecAdapter(
    name="forging", version="0", codecs={"openai-chat": BlamesTheCorpus(_write_on_every_pipe)}
)
WRITES_WITH_THE_NONCE = CodecAdapter(
    name="forging", version="0", codecs={"openai-chat": BlamesTheCorpus(_write_with_the_workers_nonce)}
)
