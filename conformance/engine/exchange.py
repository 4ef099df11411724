"""The exchange: what every connector produces and every rule reads.

An ordered list of turns, each the request the adapter sent and the response served to it.
Codec runs add what the adapter decoded from each response (twice, for the stability check),
and, for a history begun on another API and played through the adapter's codec for it, that
API's responses and their decodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.engine.wire import Served


@dataclass(frozen=True)
class Turn:
    index: int
    request: Any  # the JSON body the adapter sent
    served: Served
    expected_request: Any = None  # what a correct adapter sends (the recorded request), if known
    request_again: Any = None  # codec runs: the same conversation encoded a second time


@dataclass(frozen=True)
class Exchange:
    api: str
    turns: tuple[Turn, ...]
    decoded: tuple[Any, ...] = field(default=())  # codec runs: decode(response[i])
    redecoded: tuple[Any, ...] = field(default=())  # codec runs: the same, decoded again
    # Codec runs of a history begun on another API, played through the adapter's own codec for it
    # (chained mode): that API's responses (turns without requests), and what the adapter decoded.
    history_api: str | None = None
    history_turns: tuple[Turn, ...] = field(default=())
    history_decoded: tuple[Any, ...] = field(default=())
    history_redecoded: tuple[Any, ...] = field(default=())
