"""How the rules' time grows with the length of a history, for every API.

For each API and each length, a scenario of that API (its `one-call`, else the first one) is played
through the reference codec after a long history of the same API: function calls with their
results, every third turn two parallel calls, so that the last request carries about that many
messages. Three things are timed: building the exchange (the reference codec run, as in any codec
run: `build s`), `rules.check` over it (every request it holds, each with the second encoding codec
runs make of it: `rules s`), and the anchor, `json.loads` of the same request bodies (`loads s`),
the least any judge of a request must do: read it.

The goal is stated against the anchor, so that it holds on any machine: the rules take at most
GOAL times as long as reading the bodies they judge, at every length (which also makes them linear).
The build's growth exponent between the two longest lengths is printed, so the whole path is seen.

    python benchmarks/rules_scaling.py                       # every API, 100 to 100,000 messages
    python benchmarks/rules_scaling.py --apis gemini --lengths 1000,10000 --repeat 3
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
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
GOAL = 6.0  # rules time / json.loads of the bodies judged
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


def exchange_for(corpus: Corpus, api: str, messages: int) -> tuple[Exchange, CheckContext, int, float]:
    """The exchange of a codec run whose last request carries about `messages` messages, and the
    seconds the run that built it took."""
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
    gc.collect()
    started = time.perf_counter()
    exchange = run_codec(codec, scenario, cassette, dialect)
    built = time.perf_counter() - started
    count = len(dialect.history(exchange.turns[-1].request).messages)
    return exchange, context(corpus, scenario), count, built


def timed(exchange: Exchange, ctx: CheckContext, repeat: int) -> tuple[float, int]:
    # The cyclic collector is off while timing, as timeit has it: with the exchange's millions of
    # objects alive, its passes would be most of either figure and say nothing of the work timed.
    best = float("inf")
    found = 0
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            started = time.perf_counter()
            found = len(check(exchange, ctx))
            best = min(best, time.perf_counter() - started)
        finally:
            gc.enable()
    return best, found


def reading(exchange: Exchange, repeat: int) -> float:
    """The anchor: `json.loads` of every body the rules judge (each request and its second encoding)."""
    texts = [json.dumps(body) for turn in exchange.turns for body in (turn.request, turn.request_again) if body]
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            started = time.perf_counter()
            for text in texts:
                json.loads(text)
            best = min(best, time.perf_counter() - started)
        finally:
            gc.enable()
    return best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apis", default=",".join(supported_apis()), help="comma-separated APIs")
    parser.add_argument("--lengths", default=",".join(str(n) for n in LENGTHS), help="comma-separated lengths")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many timings")
    args = parser.parse_args(argv)
    corpus = load_corpus()
    lengths = [int(n) for n in args.lengths.split(",")]
    print(
        f"{'api':<20} {'messages':>9} {'requests':>8} {'build s':>8} {'rules s':>8} {'loads s':>8} "
        f"{'ratio':>6} {'us/message':>10} violations"
    )
    over = []
    for api in args.apis.split(","):
        builds: list[tuple[int, float]] = []
        for length in lengths:
            exchange, ctx, count, built = exchange_for(corpus, api, length)
            seconds, found = timed(exchange, ctx, args.repeat)
            loads = reading(exchange, args.repeat)
            requests = len(exchange.turns)  # each checked with its second encoding
            ratio = seconds / loads
            builds.append((count, built))
            print(
                f"{api:<20} {count:>9} {requests:>8} {built:>8.3f} {seconds:>8.3f} {loads:>8.3f} "
                f"{ratio:>5.1f}x {1e6 * seconds / requests / count:>10.2f} {found}"
            )
            if ratio > GOAL:
                over.append(f"{api}: {ratio:.1f}x json.loads at {count} messages")
            del exchange
        if len(builds) >= 2 and builds[-1][0] > builds[-2][0]:
            (n1, t1), (n2, t2) = builds[-2], builds[-1]
            print(f"{api:<20} building the exchange grows as n^{math.log(t2 / t1) / math.log(n2 / n1):.2f}")
    for line in over:
        print(f"over the {GOAL:g}x goal: {line}")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
