"""Scenario documents drawn by hypothesis from an API's grammar (conformance/generated/grammar.py).

A drawn document is a scenario case in the corpus's own format (docs/cases.md): the cassette
builders turn it into traffic, and a failing one is written out as it was drawn. Every choice is
drawn from the grammar's values, in an order hypothesis shrinks well: fewer turns and calls, the
first value of each dimension (the plainest: ids present, whole arguments, results as called).
"""

from __future__ import annotations

import base64
import hashlib
import string
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

from conformance.generated.grammar import Grammar

# The tools a generated scenario declares: none requires a parameter, so every kind of argument fits.
TOOLS: tuple[dict[str, Any], ...] = tuple(
    {
        "name": name,
        "description": description,
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "query": {"type": "string"}, "text": {"type": "string"}},
            "additionalProperties": False,
        },
    }
    for name, description in (
        ("get_weather", "Current weather for a city"),
        ("get_time", "Current local time for a city"),
        ("search_docs", "Search the documentation"),
        ("write_note", "Write a note"),
    )
)

_CLASSES = {
    "alnum": string.ascii_letters + string.digits,
    "lower": string.ascii_lowercase + string.digits,
    "hex": "0123456789abcdef",
    "digits": string.digits,
}

# Opaque values the providers attach, in their published shapes (base64 signatures; a direct caller).
# A Gemini signature is bytes in canonical base64: a client may rightly drop one that is not (Gemini
# answers "Base64 decoding failed"), so a malformed one would fail a correct client.
_SIGNATURE = "CiQBwuraPdsQ2/toj9adXPJ3QMWaHWsBIt6BnZ1vNqWdK/wSCGdlbi1zaWch"

# Where a response's text may sit among its calls (a turn's `text_position`, docs/cases.md).
POSITIONS = ("before-calls", "between-calls", "after-calls")


def _arguments(kind: str, k: int) -> dict[str, Any]:
    """Arguments of one kind; `k` keeps the calls of one turn distinct."""
    if kind == "empty":
        return {}
    if kind == "long":
        return {"query": f"call {k}: " + "the quick brown fox jumps over the lazy dog " * 60}
    if kind == "escaped":
        return {"text": f'say "hi" {k}\\ then\na tab\there and a slash /'}
    if kind == "non-ascii":
        return {"city": f"Zürich {k} 東京 Кирилл 🌧"}
    return {"city": ["Paris", "Tokyo", "Lima", "Oslo"][k % 4]}


def _minted(pattern: str, digest: bytes, fields: Mapping[str, str]) -> str:
    """The pattern's placeholders filled: random classes from the digest, named ones from `fields`."""
    out, position, rest = [], 0, pattern
    while "{" in rest:
        head, _, tail = rest.partition("{")
        spec, _, rest = tail.partition("}")
        out.append(head)
        kind, _, count = spec.partition(":")
        if kind in _CLASSES:
            alphabet = _CLASSES[kind]
            for _ in range(int(count)):
                out.append(alphabet[digest[position % len(digest)] % len(alphabet)])
                position += 1
        else:
            out.append(fields[kind])
    out.append(rest)
    return "".join(out)


def _digest(*parts: object) -> bytes:
    return hashlib.sha256("#".join(map(str, parts)).encode()).digest() * 3


@st.composite
def scenario_docs(draw: st.DrawFn, grammar: Grammar, template: Mapping[str, Any], salt: str = "") -> dict[str, Any]:
    """One scenario of the grammar's API, with its id still to be named (see `named`)."""
    values = grammar.values
    chosen: dict[str, set[str]] = {d.name: set() for d in grammar.dimensions}

    def pick(name: str) -> str:
        value = draw(st.sampled_from(values(name))) if values(name) else ""
        if value:
            chosen[name] = {value}
        return value

    turns = int(pick("turns"))
    same_tool = pick("same-tool") == "yes"
    ids = pick("ids") or "present"
    # An empty id rides the opening delta as an id would; an absent one on none.
    on_deltas = pick("id-on-deltas") if ids == "present" else "first" if ids == "empty" else "absent"
    indices = pick("indices")
    if indices == "all-0" and ids != "present":
        indices = "from-0"  # nothing would tell the calls apart: no server sends it
    name = pick("name")
    chunking = pick("chunking")
    opaque = pick("opaque")
    order = pick("results") or "as-called"
    together = pick("calls-per-event") == "all" and len(values("calls-per-event")) > 1
    reasoning = pick("reasoning") == "before-calls"
    thinking = pick("thinking") == "before-calls"
    limit = int(max(values("calls-per-turn"), key=int))

    features = {"streaming"}
    thought = False
    counted = 0
    out_turns: list[dict[str, Any]] = []
    for t in range(turns):
        count = draw(st.integers(1, limit))
        chosen["calls-per-turn"].add(str(count))
        if same_tool:
            picked = draw(st.lists(st.sampled_from(range(len(TOOLS))), min_size=count, max_size=count))
        else:
            picked = draw(st.permutations(range(len(TOOLS))))[:count]
        if len(set(picked)) < len(picked):
            features.add("same-tool-twice")
        calls: list[dict[str, Any]] = []
        for k, tool in enumerate(picked):
            kind = draw(st.sampled_from(values("arguments")))
            chosen["arguments"].add(kind)
            arguments = _arguments(kind, k)
            fields = {"name": TOOLS[tool]["name"], "index": str(counted), "k": str(k)}
            call: dict[str, Any] = {}
            if ids == "present":
                call["id"] = _minted(grammar.ids.call, _digest(salt, t, k, "call"), fields)
            elif ids == "empty":
                call["id"] = ""
            call.update(name=TOOLS[tool]["name"], arguments=arguments)
            if grammar.ids.item is not None:
                fields["call"] = call.get("id", "")
                call["item_id"] = _minted(grammar.ids.item, _digest(salt, t, k, "item"), fields)
            if thinking and k == 0:
                written = f"The user wants {count} tool result(s) before answering (turn {t})."
                signature = base64.b64encode(_digest(salt, t, "thinking")[:96]).decode()
                call["extra"] = (
                    {"reasoningContent": [{"reasoningText": {"text": written, "signature": signature}}]}
                    if grammar.api == "bedrock-converse"
                    else {"thinking": [{"type": "thinking", "thinking": written, "signature": signature}]}
                )
            if opaque == "caller":
                call["extra"] = {**call.get("extra", {}), "caller": {"type": "direct"}}
            elif opaque == "signature" and k == 0:
                call["extra"] = {"thoughtSignature": _SIGNATURE}
            elif reasoning and k == 0 and grammar.ids.reasoning:
                digest = _digest(salt, t, k, "reasoning")
                call["extra"] = {
                    "reasoning": {
                        "id": _minted(grammar.ids.reasoning, digest, fields),
                        "encrypted_content": "gAAAAAB" + _minted("{alnum:40}", digest[7:], fields) + "0" * 17,
                    }
                }
            call["output"] = f'{{"ok":true,"turn":{t},"call":{k}}}'
            calls.append(call)
            counted += 1
        turn: dict[str, Any] = {"calls": calls}
        # Text between calls needs two of them to sit between.
        texts = [v for v in values("text") if count > 1 or v != "between-calls"]
        text = draw(st.sampled_from(texts or ["none"]))
        if "text" in chosen:
            chosen["text"].add(text)
        if text in POSITIONS:
            turn = {"text": f"Let me check that ({t}).", "text_position": text, **turn}
        elif text == "thought-before-calls":
            thought = True
        out_turns.append(turn)
        if count > 1:
            features.add("parallel-calls")
    out_turns.append({"text": "Here is what the tools returned."})
    features.add("parallel-calls" if "parallel-calls" in features else "single-call")
    if turns > 1:
        features.add("multi-turn")
    if ids != "present":
        features.add("id-less")
    if ids != "present" and "same-tool-twice" in features:
        # Results of id-less calls pair by name and order (docs/neutral-model.md): one tool's results
        # sent out of order cannot say which call each answers, on the wire or in the neutral model.
        order = "as-called"
    if order == "reversed" and "parallel-calls" in features:
        features.add("out-of-order-results")
    if opaque not in ("", "none") or reasoning or thinking:
        features.add("opaque-field")

    effective = {
        "same-tool": "yes" if "same-tool-twice" in features else "no",
        "id-on-deltas": on_deltas,
        "indices": indices,
        "results": order,
    }
    for dimension, value in effective.items():
        if dimension in chosen and value:
            chosen[dimension] = {value}
    shape: dict[str, Any] = {}
    if chunking:
        shape["fragments"] = {"whole": 1, "per-fragment": 3}.get(chunking) or draw(st.integers(6, 16))
    if indices == "from-1":
        shape["indices"] = [k + 1 for k in range(limit)]
    elif indices == "all-0":
        shape["indices"] = [0] * limit
    elif indices == "interleaved":
        shape["interleave"] = True
    if on_deltas and on_deltas != "first":
        shape["id"] = on_deltas
    elif ids == "empty" and "id-on-deltas" in chosen:
        shape["id"] = "first"  # OpenAI never sends "": the stream is a compatible server's (Gemini's)
    if name == "late":
        shape["name"] = "late"
    if together:
        shape["calls_per_event"] = "all"
    if thought:
        shape["thought"] = True

    doc: dict[str, Any] = {
        "kind": "scenario",
        "api": grammar.api,
        "description": "",
        "provenance": "constructed",
        "wire_types": list(template["wire_types"]),
        "features": sorted(features),
        "model": template["model"],
        "prompt": "Use the tools to answer.",
        "stream": True,
    }
    if order != "as-called":
        doc["answer_order"] = order
    if shape:
        doc["stream_shape"] = shape
    used = {c["name"] for t in out_turns for c in t.get("calls", ())}
    doc["tools"] = [dict(t) for t in TOOLS if t["name"] in used]
    doc["turns"] = out_turns
    doc["notes"] = notes(grammar.api, chosen)
    return doc


_NOTES = "Drawn from the {api} grammar (docs/generated.md): "


def notes(api: str, chosen: Mapping[str, set[str]]) -> str:
    """What the scenario was drawn with, dimension by dimension: a reader sees why it has its shape."""
    listed = "; ".join(f"{name} {', '.join(sorted(v))}" for name, v in chosen.items() if v)
    return _NOTES.format(api=api) + listed + "."


def chosen_in(document: Mapping[str, Any]) -> dict[str, set[str]]:
    """The values a generated scenario's notes list, by dimension (the inverse of `notes`)."""
    text = str(document.get("notes", ""))
    head = _NOTES.format(api=document["api"])
    if not text.startswith(head):
        return {}
    out: dict[str, set[str]] = {}
    for item in text[len(head) :].rstrip(".").split("; "):
        name, _, listed = item.partition(" ")
        out[name] = set(listed.split(", "))
    return out


def named(doc: Mapping[str, Any], prefix: str = "generated") -> dict[str, Any]:
    """The document with an id, cassette path and description of its own, from its content:
    the same scenario is always named the same."""
    body = {k: v for k, v in doc.items() if k not in ("id", "cassette", "description")}
    digest = hashlib.sha256(repr(sorted(body.items())).encode()).hexdigest()[:10]
    slug = f"{prefix}-{digest}"
    api = doc["api"]
    calls = [len(t.get("calls", ())) for t in doc["turns"] if t.get("calls")]
    description = f"Generated {digest}: {len(calls)} calling turn(s) of {'/'.join(map(str, calls))} call(s), streamed"
    return {
        "id": f"{api}/{slug}",
        **{k: v for k, v in doc.items() if k in ("kind", "api")},
        "description": description,
        "cassette": f"{api}/{slug}.yaml",
        **body,
    }
