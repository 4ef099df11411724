"""Codec adapters that attack the process running them, for the isolation tests.

Each is the reference OpenAI Chat codec whose decode does one hostile thing first.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

from conformance import CodecAdapter
from conformance.connectors.client import ClientAdapter
from conformance.reference.openai_chat import OpenAIChatCodec


def _hostile(action: Callable[[], Any]) -> CodecAdapter:
    class Codec(OpenAIChatCodec):
        def decode(self, response: dict[str, Any]) -> Any:
            action()
            return super().decode(response)

    return CodecAdapter(name="hostile", version="0", codecs={"openai-chat": Codec()})


class Interrupted(BaseException):
    """A BaseException that is neither SystemExit nor KeyboardInterrupt."""


def _raise(exc: BaseException) -> None:
    raise exc


def _swallow_every_interruption() -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with contextlib.suppress(BaseException):  # the suite's time limit included
            time.sleep(0.1)


def _hang_where_python_cannot_interrupt() -> None:
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    time.sleep(120)


EXIT_0 = _hostile(lambda: sys.exit(0))
EXIT_3 = _hostile(lambda: sys.exit(3))
OS_EXIT = _hostile(lambda: os._exit(0))
SEGFAULT = _hostile(lambda: ctypes.string_at(0))
KEYBOARD_INTERRUPT = _hostile(lambda: _raise(KeyboardInterrupt()))
BASE_EXCEPTION = _hostile(lambda: _raise(Interrupted("stop everything")))
SWALLOWS_THE_TIME_LIMIT = _hostile(_swallow_every_interruption)
HANGS_IN_C = _hostile(_hang_where_python_cannot_interrupt)
PRINTS = _hostile(lambda: print('{"seq": 1, "result": "not from the worker"}'))


def _ends_on_anthropic(end: Callable[[], Any]) -> CodecAdapter:
    """An honest OpenAI Chat codec beside an Anthropic Messages one that ends the process in the
    middle of the case: which case a crash belongs to, when the worker is given the next cases
    before the current one is judged."""

    class Ends(OpenAIChatCodec):
        def encode(self, conversation: Any) -> Any:
            end()

    codecs = {"openai-chat": OpenAIChatCodec(), "anthropic-messages": Ends()}
    return CodecAdapter(name="hostile", version="0", codecs=codecs)


CRASHES_ON_ANTHROPIC = _ends_on_anthropic(lambda: os._exit(0))  # an exit call, which the worker traps
KILLED_ON_ANTHROPIC = _ends_on_anthropic(lambda: os.kill(os.getpid(), signal.SIGKILL))  # as a segfault: no trap


def _name_as_id_then_hang(loop: Any) -> None:
    """A client that answers its call under the tool's name (Genkit Go's old mix-up), and then hangs:
    what it sent before its time ran out is still judged."""
    import openai

    client = openai.OpenAI(base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
    tools: Any = [
        {"type": "function", "function": {"name": t["name"], "parameters": t["parameters"]}} for t in loop.tools
    ]
    messages: list[Any] = [{"role": "user", "content": loop.prompt}]
    message = client.chat.completions.create(model=loop.model, messages=messages, tools=tools).choices[0].message
    calls = message.tool_calls or []
    sent = [{"id": c.function.name, "type": "function", "function": c.function.model_dump()} for c in calls]
    messages.append({"role": "assistant", "tool_calls": sent})
    for call in calls:
        output = loop.call_tool(call.function.name, json.loads(call.function.arguments))
        messages.append({"role": "tool", "tool_call_id": call.function.name, "content": output})
    with contextlib.suppress(openai.APIError):
        client.chat.completions.create(model=loop.model, messages=messages, tools=tools)
    time.sleep(60)


NAME_AS_ID_THEN_HANG = ClientAdapter(name="hostile", version="0", clients={"openai-chat": _name_as_id_then_hang})
