"""How the rules' time grows with the length of a history, for every API.

For each API and each length, a scenario of that API (its `one-call`, else the first one) is played
through the reference codec after a long history of the same API: function calls with their
results, every third turn two parallel calls, so that the last request carries about that many
messages. The reference encodes the conversation, as in any codec run; only `rules.check` over
the resulting exchange is timed (every request it holds, each with the second encoding codec runs
make of it). The goal is linear growth: a 100,000-message history checked in well under a second.

    python benchmarks/rules_scaling.py                       # every API, 100 to 100,000 messages
    python benchmarks/rules_scaling.py --apis gemini --lengths 1000,10000 --repeat 3
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance.connectors.codec import run_codec
from conformance.corpus.loading import Corpus, ExpectedCall, ExpectedTurn, PriorHistory, Scenario, load_corpus
from conformance.engine.dialects import dialect_for, supported_apis
from conformance.engine.exchange import Exchange
from conformance.engine.rules import CheckContext, check
from conformance.recordings.cassette import load_cassette
from conformance.reference import ADAPTER as REFERENCE

LENGTHS = (100, 1_000, 10_000, 100_000)
TOOL = "lookup"  # a tool no bundled scenario uses, so the long history's ids never meet the scenario's


def history_id(api: str, k: int) -> str:
    """The k-th id of the long history, in the API's own grammar."""
    if api == "mistral-chat":
        return f"b{k:08d}"
    if api == "kimi-chat":
        return f"functions.{TOOL}:{1000 + k}"
    if api == "anthropic-messages":
        return f"toolu_bench{k:010d}"
    if api == "bedrock-converse":
        return f"tooluse_bench{k:010d}"
    if api == "ollama-chat":
        return f"call_{k:08d}"
    return f"call_bench{k:014d}"


def long_history(api: str, calls: int) -> PriorHistory:
    """`calls` calls of the API's own wire type, one or two a turn, each with a distinct output."""
    call_type = dialect_for(api).call_type
    turns: list[ExpectedTurn] = []
    k = 0
    while k < calls:
        width = 2 if len(turns) % 3 == 2 and k + 1 < calls else 1
        batch = tuple(
            ExpectedCall(
                id=history_id(api, k + j),
                name=TOOL,
                arguments={"key": f"k{k + j}"},
                output=f'{{"key":"k{k + j}","value":{k + j}}}',
                wire_type=call_type,
            )
            for j in range(width)
        )
        turns.append(ExpectedTurn(calls=batch, text=None))
        k += width
    return PriorHistory(api=api, turns=tuple(turns))


def base_scenario(corpus: Corpus, api: str) -> Scenario:
    own = sorted(s for s in corpus.scenarios if s.startswith(f"{api}/") and corpus.scenarios[s].history is None)
    chosen = f"{api}/one-call" if f"{api}/one-call" in own else own[0]
    return corpus.scenarios[chosen]


def context(corpus: Corpus, scenario: Scenario) -> CheckContext:
    calls = tuple(scenario.all_calls())
    return CheckContext(
        corpus=corpus,
        dialect=dialect_for(scenario.api),
        expected_outputs={c.id: c.output for c in calls if c.id},
        tool_names=frozenset(t["name"] for t in scenario.tools) | {TOOL},
        expected_calls=calls,
    )


def exchange_for(corpus: Corpus, api: str, messages: int) -> tuple[Exchange, CheckContext, int]:
    """The exchange of a codec run whose last request carries about `messages` messages."""
    scenario = base_scenario(corpus, api)
    dialect = dialect_for(api)
    codec = REFERENCE.codec(api)
    assert codec is not None
    cassette = load_cassette(corpus.cassette_path(scenario))
    # Messages per history call (2 for one call a turn, 3/2 for two) and the scenario's own
    # messages, measured on two small histories, so that the last request carries at least
    # `messages` messages.
    probes = []
    for size in (30, 60):
        probe = dataclasses.replace(scenario, history=long_history(api, size))
        sample = run_codec(codec, probe, cassette, dialect)
        probes.append(len(dialect.history(sample.turns[-1].request).messages))
    per_call = (probes[1] - probes[0]) / 30
    own = probes[0] - 30 * per_call
    calls = max(1, math.ceil((messages - own) / per_call))
    scenario = dataclasses.replace(scenario, history=long_history(api, calls))
    exchange = run_codec(codec, scenario, cassette, dialect)
    count = len(dialect.history(exchange.turns[-1].request).messages)
    return exchange, context(corpus, scenario), count


def timed(exchange: Exchange, ctx: CheckContext, repeat: int) -> tuple[float, int]:
    best = float("inf")
    found = 0
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        found = len(check(exchange, ctx))
        best = min(best, time.perf_counter() - started)
    return best, found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apis", default=",".join(supported_apis()), help="comma-separated APIs")
    parser.add_argument("--lengths", default=",".join(str(n) for n in LENGTHS), help="comma-separated lengths")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many timings")
    args = parser.parse_args(argv)
    corpus = load_corpus()
    lengths = [int(n) for n in args.lengths.split(",")]
    print(f"{'api':<20} {'messages':>9} {'requests':>8} {'rules s':>9} {'s/request':>10} {'us/message':>10} violations")
    slow = []
    for api in args.apis.split(","):
        for length in lengths:
            exchange, ctx, count = exchange_for(corpus, api, length)
            seconds, found = timed(exchange, ctx, args.repeat)
            requests = len(exchange.turns)  # each checked with its second encoding
            per_request = seconds / requests
            print(
                f"{api:<20} {count:>9} {requests:>8} {seconds:>9.3f} {per_request:>10.3f} "
                f"{1e6 * per_request / count:>10.2f} {found}"
            )
            if length >= 100_000 and per_request >= 1.0:
                slow.append(f"{api}: {per_request:.2f} s per {count}-message request")
    for line in slow:
        print(f"over the 1 s goal: {line}")
    return 1 if slow else 0


if __name__ == "__main__":
    raise SystemExit(main())
