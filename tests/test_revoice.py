"""Re-voicing: no sentence of a recording survives its import, and no fact of its traffic changes.

Checked on every cassette of the bundled corpus (all APIs, streams of every shape, Bedrock's binary
event streams) and on the shared real recordings beside the checkout when they are there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import REAL_TRAFFIC, ROOT

from conformance.cli import main
from conformance.corpus.loading import Corpus, load_corpus
from conformance.engine.conversations import split
from conformance.importer import Options, import_cassette
from conformance.importer.revoice import (
    ARGUMENT_KEYS,
    FACT_KEYS,
    PROVIDER_TEXTS,
    Quotes,
    RevoiceError,
    outputs_of,
    revoice_body,
    revoice_interaction,
)
from conformance.importer.voice import json_container, rewrite, voice, voice_json
from conformance.recordings import eventstream
from conformance.recordings.cassette import Cassette, Interaction, load_cassette
from conformance.recordings.sse import parse_events
from conformance.reference import ADAPTER as REFERENCE
from conformance.running.runner import run_scenario

A_FEW_WORDS = 4


def _bundled_cassettes() -> list[Path]:
    root = ROOT / "cassettes"
    return sorted(p for p in root.rglob("*.yaml") if "recorded" not in p.relative_to(root).parts)


def _real() -> list[Path]:
    return sorted(REAL_TRAFFIC.rglob("*.yaml")) if REAL_TRAFFIC.is_dir() else []


# --- the voice ---------------------------------------------------------------------------------


def test_a_text_gets_the_same_voice_every_time_and_keeps_its_shape() -> None:
    text = "Compare the weather in Paris and in Tokyo, please!\nIt's 22°C here (72F)."
    out = voice(text)
    assert out == voice(text) and out != text and len(out) == len(text)
    keep = [(a, b) for a, b in zip(text, out, strict=True) if not a.isalpha()]
    assert all(a == b for a, b in keep)  # spaces, punctuation, digits, line breaks stay in place
    assert [w[0].isupper() for w in out.split()] == [w[0].isupper() for w in text.split()]
    assert voice("Compare the weather in Paris and in Tokyo") != voice("Compare the weather in Paris and in Lima")
    assert voice("2025-01-01 12:00") == "2025-01-01 12:00"


def test_a_schema_property_named_like_a_fact_still_has_its_description_revoiced() -> None:
    body = json.dumps(
        {
            "tools": [
                {
                    "name": "get_info",
                    "input_schema": {
                        "type": "object",
                        "properties": {"name": {"type": "string", "description": "The name of the computer"}},
                    },
                }
            ]
        }
    ).encode()
    out = json.loads(revoice_body(body, "application/json", __import__("collections").Counter(), "prompts"))
    prop = out["tools"][0]["input_schema"]["properties"]["name"]
    assert prop["type"] == "string" and prop["description"] != "The name of the computer"
    assert out["tools"][0]["name"] == "get_info"


def test_a_json_text_stays_json_with_its_keys_and_literals() -> None:
    inner = json.dumps({"summary": "rain later today", "ok": True})
    text = json.dumps(
        {
            "city": "Paris",
            "forecast": "Sunny with a light breeze",
            "n": 3,
            "x": None,
            "raw": inner,
            "id": "call_abc",
            "url": "https://example.com/a b",
        }
    )
    out = voice_json(text, lambda key: key in FACT_KEYS)
    value = json.loads(out)
    assert list(value) == ["city", "forecast", "n", "x", "raw", "id", "url"]
    assert value["n"] == 3 and value["x"] is None and value["id"] == "call_abc"
    assert value["forecast"] != "Sunny with a light breeze" and len(value["forecast"]) == 25
    nested = json.loads(value["raw"])  # a JSON text inside a string stays JSON, voiced inside
    assert nested["ok"] is True and nested["summary"] != "rain later today"


# --- the facts ---------------------------------------------------------------------------------


def _documents(body: bytes, content_type: str) -> list[tuple[str | None, Any]]:
    """A body's JSON documents in order: each event of a stream (with its name), or the one body."""
    if not body.strip():
        return []
    if eventstream.looks_like_event_stream(body):
        return [(m.header(":event-type"), json.loads(m.payload)) for m in eventstream.decode(body) if m.payload]
    text = body.decode("utf-8")
    if content_type == "text/event-stream" or text.lstrip().startswith(("data:", "event:")):
        return [(e.event, e.data) for e in parse_events(body)]
    try:
        return [(None, json.loads(text))]
    except ValueError:
        return [(None, json.loads(line)) for line in text.splitlines() if line.strip()]


def _strings(text: str) -> list[str]:
    found: list[str] = []

    def collect(_path: Any, value: str) -> None:
        found.append(value)

    rewrite(text, collect)
    return found


def _quotes(a: str, b: str, quotes: Quotes) -> bool:
    """Whether an argument `a` became `b` only where it quotes an output its request carries, each
    quoting string in that output's voice: a whole value of it, or a run of words at the same place."""
    if json_container(a) and json_container(b):
        pairs = list(zip(_strings(a), _strings(b), strict=True))
        return all(x == y or _quotes(x, y, quotes) for x, y in pairs) and rewrite(a, lambda _p, _v: "") == rewrite(
            b, lambda _p, _v: ""
        )
    if a in quotes.values and quotes.values[a][0] == b:
        return True
    return any(
        (at := text.find(a)) >= 0 and voiced[at : at + len(a)] == b for text, (voiced, _) in quotes.texts.items()
    )


def _compare(
    a: Any,
    b: Any,
    path: str,
    key: str | None,
    fact: bool,
    changed: list[str],
    kept: list[str],
    quotes: Quotes | None = None,
) -> None:
    assert type(a) is type(b), f"{path}: {type(a).__name__} became {type(b).__name__}"
    if isinstance(a, dict):
        assert list(a) == list(b), f"{path}: keys {list(a)} became {list(b)}"
        kind = a.get("type") if isinstance(a.get("type"), str) else ""
        for k in a:
            named = key in ("properties", "$defs", "definitions")  # a schema's property names are not fields
            is_fact = fact or (not named and (k in FACT_KEYS or k in ARGUMENT_KEYS or k.endswith(("_id", "Id"))))
            # A tool use's input is its arguments (Anthropic, Bedrock, Responses custom tools).
            is_fact |= k == "input" and (kind.endswith(("tool_use", "_call")) or key in ("toolUse", "custom"))
            # Code a call runs is its input; a streamed input or arguments delta too.
            is_fact |= k == "code" and (kind.endswith("_call") or kind == "program" or key == "executableCode")
            is_fact |= k == "delta" and ("argument" in kind or "input" in kind)
            _compare(a[k], b[k], f"{path}.{k}", k, is_fact, changed, kept, quotes)
    elif isinstance(a, list):
        assert len(a) == len(b), f"{path}: {len(a)} items became {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _compare(x, y, f"{path}[{i}]", key, fact, changed, kept, quotes)
    elif isinstance(a, str):
        if fact:
            quoted = quotes is not None and _quotes(a, b, quotes)
            assert a == b or quoted, f"{path}: a fact changed: {a[:60]!r} became {b[:60]!r}"
        elif a != b:
            assert abs(len(a) - len(b)) <= max(2, len(a) // 10), f"{path}: {len(a)} characters became {len(b)}"
            changed.append(path)
        elif a not in PROVIDER_TEXTS and len([w for w in a.split() if any(c.isalpha() for c in w)]) >= A_FEW_WORDS:
            kept.append(f"{path}: {a[:80]!r}")
    else:
        assert a == b, f"{path}: {a!r} became {b!r}"


def _check_interaction(original: Interaction, revoiced: Interaction) -> list[str]:
    """Facts equal, stream cut the same; returns the texts of a few words or more left as they were."""
    kept: list[str] = []
    # An argument may change only where it quotes an output the request carries, into that output's voice.
    quotes = outputs_of(original.request.body)
    assert (original.request.method, original.request.uri) == (revoiced.request.method, revoiced.request.uri)
    assert original.response.status == revoiced.response.status
    assert original.response.headers == revoiced.response.headers
    for side, a, b, kind in (
        ("request", original.request.body, revoiced.request.body, ""),
        ("response", original.response.body, revoiced.response.body, original.response.content_type),
    ):
        before, after = _documents(a, kind), _documents(b, kind)
        assert [e for e, _ in before] == [e for e, _ in after], f"{side}: the stream's events changed"
        for n, ((_, x), (_, y)) in enumerate(zip(before, after, strict=True)):
            _compare(x, y, f"interaction[{original.index}].{side}[{n}]", None, False, [], kept, quotes)
    return kept


def _calls(cassette: Cassette) -> list[Any]:
    """The conversations and their served calls (arguments as JSON texts, compared by `_same_calls`)."""
    found = split(cassette)
    return [
        (
            c.indices,
            [
                (s.served.stream, [(k.call_id, k.name, json.dumps(k.arguments), k.item_id) for k in s.served.calls])
                for s in c.steps
            ],
        )
        for c in found.conversations
    ]


def _all_quotes(cassette: Cassette) -> Quotes:
    """The outputs every request of a recording carries, by which its arguments may be re-voiced."""
    merged = Quotes()
    for interaction in cassette:
        found = outputs_of(interaction.request.body)
        merged.texts.update(found.texts)
        merged.values.update(found.values)
    return merged


def _same_calls(before: list[Any], after: list[Any], quotes: Quotes) -> None:
    assert len(before) == len(after)
    for (indices, steps), (indices2, steps2) in zip(before, after, strict=True):
        assert indices == indices2 and len(steps) == len(steps2)
        for (stream, calls), (stream2, calls2) in zip(steps, steps2, strict=True):
            assert stream == stream2 and len(calls) == len(calls2)
            for (i, name, args, item), (i2, name2, args2, item2) in zip(calls, calls2, strict=True):
                assert (i, name, item) == (i2, name2, item2)
                assert args == args2 or _quotes(args, args2, quotes), f"{name}: {args} became {args2}"


def _revoiced(cassette: Cassette) -> Cassette:
    from dataclasses import replace

    return replace(cassette, interactions=tuple(revoice_interaction(i).interaction for i in cassette))


@pytest.mark.parametrize("path", _bundled_cassettes(), ids=lambda p: str(p.relative_to(ROOT / "cassettes")))
def test_revoicing_a_cassette_keeps_every_fact_and_leaves_no_sentence(path: Path) -> None:
    cassette = load_cassette(path)
    revoiced = _revoiced(cassette)
    kept: list[str] = []
    for a, b in zip(cassette, revoiced, strict=True):
        kept += _check_interaction(a, b)
    assert kept == []
    # Ids, names, arguments (but where they quote an output) and item ids of every served call, and the
    # conversations, as before.
    _same_calls(_calls(cassette), _calls(revoiced), _all_quotes(cassette))


@pytest.mark.skipif(not _real(), reason="no shared real recordings beside the checkout")
# pytest before 8.2 asks for an id of the empty parameter set too, with a placeholder that is no path.
@pytest.mark.parametrize("path", _real(), ids=lambda p: f"{p.parent.name}/{p.name}" if isinstance(p, Path) else str(p))
def test_revoicing_real_traffic_keeps_every_fact_and_leaves_no_sentence(path: Path) -> None:
    test_revoicing_a_cassette_keeps_every_fact_and_leaves_no_sentence(path)


def test_a_stream_is_cut_where_the_provider_cut_it() -> None:
    body = (
        'data: {"choices":[{"index":0,"delta":{"content":"The weather "}}]}\n\n'
        'data: {"choices":[{"index":0,"delta":{"content":"in Paris is sunny"}}]}\n\n'
        'data: {"choices":[{"index":0,"delta":{"content":" today."}}]}\n\ndata: [DONE]\n\n'
    )
    out = revoice_body(body.encode(), "text/event-stream", __import__("collections").Counter(), "model answers")
    deltas = [e.data["choices"][0]["delta"]["content"] for e in parse_events(out)]
    assert [len(d) for d in deltas] == [12, 17, 7]
    whole = "The weather in Paris is sunny today."
    assert "".join(deltas) == voice(whole) != whole  # the deltas add up to the voice of the whole text


def test_an_sse_event_that_is_not_json_cannot_be_revoiced() -> None:
    with pytest.raises(RevoiceError, match="not JSON"):
        revoice_body(b"data: the weather is fine\n\n", "text/event-stream", __import__("collections").Counter(), "")


# --- an import ---------------------------------------------------------------------------------

_SCENARIOS = (
    "openai-chat/parallel-same-tool",
    "anthropic-messages/streamed-parallel-calls",
    "anthropic-messages/web-search-beside-client-call",
    "gemini/streamed-sse-parallel-calls",
    "gemini/streamed-json-array",
    "openai-responses/streamed-reasoning-then-parallel-calls",
    "bedrock-converse/streamed-parallel-calls",
    "ollama-chat/parallel-same-tool",
    "cohere-v2/parallel-same-tool",
)


def _import_both(tmp_path: Path, cassette: Path, corpus: Corpus) -> tuple[Corpus, Corpus]:
    for name, revoice in (("plain", False), ("voiced", True)):
        report = import_cassette(cassette, corpus, Options(output=tmp_path / name, case_id="x", revoice=revoice))
        assert report.imported, report.refused
    return tuple(  # type: ignore[return-value]
        load_corpus([tmp_path / n / "cases"], [tmp_path / n / "cassettes"]) for n in ("plain", "voiced")
    )


def _many_words(text: str) -> bool:
    return len([w for w in text.split() if any(c.isalpha() for c in w)]) >= A_FEW_WORDS


@pytest.mark.parametrize("case_id", _SCENARIOS)
def test_an_imported_scenario_keeps_no_sentence_of_its_source(tmp_path: Path, corpus: Corpus, case_id: str) -> None:
    cassette = corpus.cassette_path(corpus.scenarios[case_id])
    plain, voiced = _import_both(tmp_path, cassette, corpus)
    (a,), (b,) = ([s for s in c.scenarios.values() if s.id.endswith("/recorded/x")] for c in (plain, voiced))
    assert b.source is not None and b.source.revoiced and (a.source is None or not a.source.revoiced)
    assert [(c.id, c.name) for c in a.all_calls()] == [(c.id, c.name) for c in b.all_calls()]
    quotes = _all_quotes(load_cassette(cassette))
    for x, y in zip(a.all_calls(), b.all_calls(), strict=True):
        before, after = json.dumps(dict(x.arguments)), json.dumps(dict(y.arguments))
        assert before == after or _quotes(before, after, quotes), f"{x.name}: {before} became {after}"
    assert a.features == b.features and a.wire_types == b.wire_types
    texts = [(a.prompt, b.prompt)] + [(x.output, y.output) for x, y in zip(a.all_calls(), b.all_calls(), strict=True)]
    texts += [(x.text or "", y.text or "") for x, y in zip(a.turns, b.turns, strict=True)]
    texts += [
        (str(x.get("description", "")), str(y.get("description", ""))) for x, y in zip(a.tools, b.tools, strict=True)
    ]
    assert [x for x, y in texts if _many_words(x) and x == y] == []
    assert any(x != y for x, y in texts)
    for profile in ("default", "strict"):
        assert run_scenario(REFERENCE, b, voiced, profile).outcome == "pass"


def test_the_cli_revoices_a_third_party_recording_and_refuses_not_to(tmp_path: Path, corpus: Corpus) -> None:
    cassette = corpus.cassette_path(corpus.scenarios["openai-chat/parallel-same-tool"])
    third = ["--source-repo", "someone/thing", "--source-commit", "0" * 40, "--licence", "MIT"]
    assert main(["import", str(cassette), "--output", str(tmp_path), "--no-revoice", *third]) == 2
    assert main(["import", str(cassette), "--output", str(tmp_path), *third]) == 2  # re-voicing is asked for
    assert main(["import", str(cassette), "--output", str(tmp_path), "--id", "w", "--revoice", *third]) == 0
    case = yaml.safe_load((tmp_path / "cases/scenarios/openai-chat/recorded/w.yaml").read_text())
    assert case["source"]["revoiced"] and all("(" in line for line in case["source"]["revoiced"])


def test_the_corpus_check_wants_a_bundled_third_party_recording_revoiced() -> None:
    from conformance.check import _check_source
    from conformance.corpus.loading import RecordedSource

    problems: list[str] = []
    source = RecordedSource(path="a.yaml", read="2026-01-01", repository="o/n", commit="0" * 40, licence="MIT")
    scenario = type("S", (), {"id": "openai-chat/recorded/x", "source": source})()
    _check_source(scenario, ROOT / "cases", lambda *a: problems.append(a[-1]))  # type: ignore[arg-type]
    assert any("re-voiced" in p for p in problems)
    problems.clear()
    voiced = RecordedSource(
        path="a.yaml", read="2026-01-01", repository="o/n", commit="0" * 40, licence="MIT", revoiced=("prompts (1)",)
    )
    _check_source(type("S", (), {"id": "x", "source": voiced})(), ROOT / "cases", lambda *a: problems.append(a[-1]))  # type: ignore[arg-type]
    assert problems == []


# --- names, provider texts and quotes (an audit of recorded scenarios against their originals) --


def _interaction(request: dict[str, Any], response: dict[str, Any]) -> Interaction:
    from conformance.recordings.cassette import HttpRequest, HttpResponse

    return Interaction(
        index=0,
        request=HttpRequest(
            method="POST",
            uri="https://api.example.com/v1/chat/completions",
            headers={"content-type": ("application/json",)},
            body=json.dumps(request).encode(),
        ),
        response=HttpResponse(
            status=200, headers={"content-type": ("application/json",)}, body=json.dumps(response).encode()
        ),
    )


def test_a_tool_reference_keeps_the_name_of_the_tool_it_points_at() -> None:
    result = {
        "type": "tool_search_tool_result",
        "tool_use_id": "srvtoolu_01",
        "content": {
            "type": "tool_search_tool_search_result",
            "tool_references": [{"type": "tool_reference", "tool_name": "get_weather"}],
        },
    }
    body = json.dumps({"role": "assistant", "content": [result]}).encode()
    out = json.loads(revoice_body(body, "application/json", __import__("collections").Counter(), "model answers"))
    assert out["content"][0]["content"]["tool_references"][0]["tool_name"] == "get_weather"


def test_a_text_the_provider_writes_itself_is_kept() -> None:
    chunk = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
                "finishReason": "STOP",
                "finishMessage": "Model generated function call(s).",
            }
        ]
    }
    body = f"data: {json.dumps(chunk)}\r\n\r\n".encode()
    out = revoice_body(body, "text/event-stream", __import__("collections").Counter(), "model answers")
    assert b'"finishMessage": "Model generated function call(s)."' in out


def test_an_argument_that_quotes_an_output_is_revoiced_as_that_output() -> None:
    output = "The meeting moved to Thursday at noon in the north room"
    quoted = "moved to Thursday at noon"
    request = {
        "messages": [
            {"role": "user", "content": "When is the meeting?"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": output},
        ]
    }
    arguments = json.dumps({"note": quoted, "whole": output, "city": "Paris"})
    call = {"id": "c2", "type": "function", "function": {"name": "save", "arguments": arguments}}
    response = {"choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": [call]}}]}
    done = revoice_interaction(_interaction(request, response)).interaction
    voiced_output = json.loads(done.request.body)["messages"][2]["content"]
    sent = json.loads(json.loads(done.response.body)["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"])
    assert voiced_output != output
    assert sent["whole"] == voiced_output
    assert sent["note"] == voiced_output[output.index(quoted) : output.index(quoted) + len(quoted)]
    assert sent["city"] == "Paris"  # a value an output also holds is no quote: arguments stay facts


def test_the_corpus_keeps_tool_references_and_provider_texts_as_recorded(corpus: Corpus) -> None:
    """Each tool_reference names a tool its scenario declares; each Gemini finishMessage is the text
    Gemini writes (both were once re-voiced as prose)."""
    from conformance.importer.voice import json_container

    def walk(node: Any, found: list[tuple[str, str]]) -> None:
        if isinstance(node, dict):
            if node.get("type") == "tool_reference":
                found.append(("tool_name", str(node.get("tool_name"))))
            if "finishMessage" in node:
                found.append(("finishMessage", str(node["finishMessage"])))
            for value in node.values():
                walk(value, found)
        elif isinstance(node, list):
            for value in node:
                walk(value, found)
        elif isinstance(node, str) and json_container(node):
            walk(json.loads(node), found)

    checked = 0
    for scenario in corpus.scenarios.values():
        declared = {t.get("name") for t in (*scenario.tools, *scenario.server_tools)}
        found: list[tuple[str, str]] = []
        for interaction in load_cassette(corpus.cassette_path(scenario)):
            for body, kind in (
                (interaction.request.body, ""),
                (interaction.response.body, interaction.response.content_type),
            ):
                for _, document in _documents(body, kind):
                    walk(document, found)
        for field, value in found:
            checked += 1
            assert value in (declared if field == "tool_name" else PROVIDER_TEXTS), (scenario.id, field, value)
    assert checked


def test_an_argument_passing_on_an_output_s_value_takes_its_voice_and_an_echoed_call_keeps_its_words() -> None:
    # data_fetcher returned {"items": ["apple", ...]}; store_report passes the items on: one word each,
    # they are quoted whole. get_weather's city came before the output that echoes it: it stays as served,
    # there and in store_report (the value came from a call, not from an output).
    fetched = {"functionResponse": {"name": "data_fetcher", "response": {"items": ["apple", "banana"]}}}
    echoed = json.dumps({"city": "Lyon", "sky": "light rain"})
    request = {
        "contents": [
            {"role": "user", "parts": [{"text": "Fetch the fruit and store a report"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Lyon"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"output": echoed}}}]},
            {"role": "model", "parts": [{"functionCall": {"name": "data_fetcher", "args": {}}}]},
            {"role": "user", "parts": [fetched]},
        ]
    }
    call = {"functionCall": {"name": "store_report", "args": {"items": ["apple", "banana"], "city": "Lyon"}}}
    response = {"candidates": [{"content": {"role": "model", "parts": [call]}, "finishReason": "STOP"}]}
    done = revoice_interaction(_interaction(request, response)).interaction
    sent = json.loads(done.request.body)["contents"]
    voiced_items = sent[4]["parts"][0]["functionResponse"]["response"]["items"]
    voiced_city = json.loads(sent[2]["parts"][0]["functionResponse"]["response"]["output"])["city"]
    assert voiced_items != ["apple", "banana"] and voiced_city != "Lyon"
    assert sent[1]["parts"][0]["functionCall"]["args"] == {"city": "Lyon"}  # served before the echo
    args = json.loads(done.response.body)["candidates"][0]["content"]["parts"][0]["functionCall"]["args"]
    assert args == {"items": voiced_items, "city": "Lyon"}  # the city came from a call, not the output


def test_a_call_its_own_output_echoes_keeps_its_words_in_the_history() -> None:
    # analyze_data(data_request) came first; its output repeats the request inside a longer text. The
    # history sends the call back as it was served (its words), not in the voice of the later output.
    asked = "Sales data from last quarter"
    call = {"type": "function_call", "call_id": "c1", "name": "analyze_data"}
    call["arguments"] = json.dumps({"data_request": asked})
    output = {"type": "function_call_output", "call_id": "c1", "output": f"Analyzed data patterns for: {asked}"}
    request = {"input": [{"role": "user", "content": "Analyze the sales data please"}, call, output]}
    response = {"output": [{"type": "message", "role": "assistant", "content": []}]}
    done = revoice_interaction(_interaction(request, response)).interaction
    sent = json.loads(done.request.body)["input"]
    assert json.loads(sent[1]["arguments"]) == {"data_request": asked}
    assert sent[2]["output"] != output["output"]
