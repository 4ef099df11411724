"""The exchange: what every connector produces and every rule reads.

An ordered list of turns, each the request the adapter sent and the response served to it.
Codec runs add what the adapter decoded from each response (twice, for the stability check).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.wire import Served


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
