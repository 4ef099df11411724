"""Hostile and broken codec adapters: every fault is an outcome, the run never ends on one.

The reference codec of each API is wrapped so that a decoded message or an encoded body comes
back changed at a random place (a value of another type, an object whose `__eq__`, `__hash__` or
`__str__` raises, a set, bytes, nesting thousands deep, a number JSON cannot print), or whole
replaced, or the call raises (an exception whose `__str__` raises, `SystemExit`, a BaseException
of the adapter's own). Each case must end in an outcome whose results entry serialises, blaming
the adapter, never the suite or the corpus.
"""

from __future__ import annotations

import json
import time
from typing import Any

from fuzzing import SECONDS, adapter_junk, examples, exceptions, paths, replaced
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus, load_corpus
from conformance.engine.outcomes import OUTCOMES
from conformance.reference import ADAPTER as REFERENCE
from conformance.running.runner import run_scenario

SCENARIOS = [
    "anthropic-messages/one-call",
    "azure-foundry/azure-function-and-search",
    "bedrock-converse/one-call",
    "cohere-v2/one-call",
    "gemini/one-call",
    "kimi-chat/one-call",
    "mistral-chat/one-call",
    "ollama-chat/one-call",
    "openai-chat/one-call",
    "openai-chat/streamed-parallel-calls",
    "openai-responses/one-call",
    "openresponses/one-call",
]
_CORPUS: list[Corpus] = []


def _corpus() -> Corpus:
    if not _CORPUS:
        _CORPUS.append(load_corpus())
    return _CORPUS[0]


class _Broken:
    """The reference codec of an API, with one drawn fault on each call of one of its methods."""

    def __init__(self, api: str, phase: str, fault: str, data: st.DataObject) -> None:
        codec = REFERENCE.codec(api)
        assert codec is not None
        self.codec, self.phase, self.fault, self.data = codec, phase, fault, data

    def _apply(self, phase: str, produce: Any, argument: Any) -> Any:
        if phase != self.phase:
            return produce(argument)
        if self.fault == "raises":
            raise self.data.draw(exceptions(), label="raised")
        value = produce(argument)
        if self.fault == "replaced":
            return self.data.draw(adapter_junk(), label="returned instead")
        where = self.data.draw(st.sampled_from(paths(value)), label="changed at")
        return replaced(value, where, self.data.draw(adapter_junk(), label="changed to"))

    def decode(self, response: dict[str, Any]) -> Any:
        return self._apply("decode", self.codec.decode, response)

    def encode(self, conversation: Any) -> Any:
        return self._apply("encode", self.codec.encode, conversation)


@settings(max_examples=examples(1))
@given(
    st.sampled_from(SCENARIOS),
    st.sampled_from(["decode", "encode"]),
    st.sampled_from(["changed", "replaced", "raises"]),
    st.data(),
)
def test_every_adapter_fault_is_an_outcome(scenario_id: str, phase: str, fault: str, data: st.DataObject) -> None:
    corpus = _corpus()
    scenario = corpus.scenarios[scenario_id]
    adapter = CodecAdapter(name="broken", version="0", codecs={scenario.api: _Broken(scenario.api, phase, fault, data)})
    started = time.perf_counter()
    result = run_scenario(adapter, scenario, corpus)
    assert time.perf_counter() - started < SECONDS
    assert result.outcome in OUTCOMES and result.outcome not in ("timeout", "not-run", "skip"), result.summary
    assert "the suite failed" not in result.summary, f"{result.summary}\n{result.detail}"
    assert "the corpus is at fault" not in result.summary, result.summary
    if fault == "raises":
        assert result.outcome == "error" and result.summary.startswith("the adapter failed in "), result.summary
    json.dumps(result.to_json())
