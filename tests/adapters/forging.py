"""Adapters that try to change their own verdict from inside the process that runs them.

Each sends the tool's name back as the call's id (a `roundtrip/id-altered` on every case with a
call), and, the first time its code runs, rewrites the suite's own objects in that process: the
result's JSON, the rules, the verdict functions and the client run's record of what was sent.
Isolated, none of this may change a verdict; `FORGED_NOTHING` is the same bug without the forgery,
for comparison.
"""

from __future__ import annotations

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
