"""Re-voicing: a recording's facts kept, its natural-language and code texts replaced by the project's.

What is a fact and stays byte for byte: the JSON structure, every key and its order, ids, names,
types, roles, models, URLs, opaque fields (signatures, encrypted content), numbers, enums, status
codes, headers, a stream's events and how it is cut, and every tool call's arguments (`arguments`,
`args`, `input` of a tool use, `partial_json`, a server tool's `action`), which the rules compare.

What is text and is re-voiced (`importer.voice`): prompts and messages, system instructions, model
answers, reasoning, tool and parameter descriptions, tool outputs (a JSON output keeps its keys and
is voiced inside), server tools' results, code a model wrote, and any other string of three words
or more. A text streamed in deltas is voiced whole and cut at the same offsets, so the deltas still
add up to the text the next request carries back.

`revoice_interaction` returns the interaction with new bodies and what was re-voiced, by kind; a
body it cannot read (an SSE event that is not JSON) raises `RevoiceError`, since text left in it
would be the source's.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from conformance.importer.voice import Path, is_url, json_container, rewrite, voice, voice_json, voice_value, words
from conformance.recordings import eventstream
from conformance.recordings.cassette import Interaction

# Keys whose values are facts of the traffic, whatever they hold.
FACT_KEYS = frozenset(
    {
        "id",
        "type",
        "role",
        "model",
        "name",
        "object",
        "status",
        "url",
        "uri",
        "href",
        "signature",
        "thoughtSignature",
        "thought_signature",
        "encrypted_content",
        "encrypted_index",
        "data",
        "mime_type",
        "mimeType",
        "media_type",
        "format",
        "enum",
        "const",
        "pattern",
        "required",
        "finish_reason",
        "finishReason",
        "stop_reason",
        "stop_sequence",
        "system_fingerprint",
        "service_tier",
        "tool_choice",
        "event",
        "index",
        "created",
        "created_at",
        "modelVersion",
        "responseId",
        "cache_control",
        "stop",
        "effort",
        "reasoning_effort",
        "truncation",
        "fileUri",
        "file_uri",
        "$schema",
        "$ref",
        "$id",
        "webSearchQueries",
        "page_age",
        "filename",
        "file_id",
        "vector_store_ids",
        "server_label",
        "server_url",
        "container",
        "provider",
        "stopReason",
        "toolUseId",
        "tool_use_id",
        "call_id",
        "tool_call_id",
        "item_id",
        "previous_response_id",
        "user",
        "metadata",
        "prompt_cache_key",
        "safety_identifier",
        "x-stainless-lang",
        "keep_alive",
        "done_reason",
        "created_by",
        "tool_name",  # a tool_reference names a declared tool: a name, not prose
        "toolName",
    }
)
# Texts the provider itself writes, word for word the same in every response: facts, never prose.
PROVIDER_TEXTS = frozenset({"Model generated function call(s)."})  # Gemini's finishMessage on a call
# Keys whose values are a call's arguments: facts the rules compare.
ARGUMENT_KEYS = frozenset({"arguments", "args", "partial_json", "parsed_arguments", "action", "queries"})
# Keys whose string values are a text of the conversation, however short.
PROSE_KEYS = frozenset(
    {
        "content",
        "text",
        "thinking",
        "reasoning_content",
        "reasoning",
        "refusal",
        "instructions",
        "system",
        "description",
        "tool_plan",
        "code",
        "summary",
        "prompt",
        "cited_text",
        "renderedContent",
        "input",
        "transcript",
        "redacted_reason",
        "explanation",
        "logs",
        "stdout",
        "stderr",
    }
)
# Fields of a stream event that say which text its delta extends.
_CHANNEL_FIELDS = ("index", "output_index", "content_index", "summary_index", "item_id", "contentBlockIndex")

# JSON Schema mappings whose keys are names the schema's author chose (`properties: {name: {...}}`).
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")
# Where a call's code is its input (Gemini's code execution).
_CODE_CALLS = ("executableCode", "executable_code")

FACT, OUTPUT, PROSE, OTHER = "fact", "output", "prose", "other"


class RevoiceError(ValueError):
    """A body whose texts cannot all be found, so it cannot be re-voiced."""


def _keeps(key: str) -> bool:
    return key in FACT_KEYS or key in ARGUMENT_KEYS or key.endswith(("_id", "Id", "_ids", "Ids"))


def _is_fact_key(key: str) -> bool:
    return _keeps(key)


def _kind(node: dict[str, Any]) -> str:
    kind = node.get("type")
    return kind if isinstance(kind, str) else ""


def _child(parent: dict[str, Any], key: str, ctx: str, parent_key: str | None) -> str:
    """The context of `parent[key]`."""
    if ctx == FACT:
        return FACT
    if parent_key in _SCHEMA_MAPS:
        return OTHER  # a property's name, not a field's: its schema is walked like any other
    if _keeps(key):
        return FACT
    kind = _kind(parent)
    value = parent[key]
    if key == "input" and (kind.endswith("tool_use") or kind.endswith("_call") or parent_key in ("toolUse",)):
        return FACT  # a tool use's input is its arguments
    if parent_key == "toolUse" or (key == "input" and (parent_key == "custom" or kind.endswith("tool_call"))):
        return FACT
    if key == "code" and (kind.endswith("_call") or kind == "program" or parent_key in _CODE_CALLS):
        return FACT  # code a call runs is its arguments; code written as an answer is text
    if key == "delta" and isinstance(value, str):
        return FACT if ("argument" in kind or "input" in kind) else PROSE
    if key == "content" and parent.get("role") in ("tool", "function", "ipython", "tool_result"):
        return OUTPUT
    if (kind.endswith("tool_result") or kind.endswith("_output") or kind in ("mcp_call", "code_interpreter_call")) and (
        key in ("content", "output", "outputs", "result", "results", "error")
    ):
        return OUTPUT
    if parent_key in ("functionResponse", "function_response", "toolResult", "tool_result") and key in (
        "response",
        "content",
        "output",
    ):
        return OUTPUT
    if ctx == OUTPUT:
        return OUTPUT
    if key in PROSE_KEYS:
        return PROSE
    return OTHER


def _label(parent: dict[str, Any], key: str, ctx: str, inherited: str) -> str:
    if ctx == OUTPUT:
        kind = _kind(parent)
        return "server tool results" if "search" in kind or "server" in inherited else "tool outputs"
    if inherited in ("tool outputs", "server tool results"):
        return inherited
    if key in ("system", "instructions", "systemInstruction", "system_instruction"):
        return "system instructions"
    if key == "description":
        return "tool descriptions"
    if key in ("thinking", "reasoning_content", "reasoning", "summary", "tool_plan") or parent.get("thought") is True:
        return "reasoning"
    if key == "code":
        return "code"
    return inherited


def _role_label(node: dict[str, Any], inherited: str) -> str:
    role = node.get("role")
    if role in ("system", "developer"):
        return "system instructions"
    if role == "user":
        return "prompts"
    if role in ("assistant", "model", "CHATBOT", "chatbot"):
        return "model answers"
    kind = node.get("type")
    if isinstance(kind, str) and ("search" in kind or kind.startswith("server")) and kind.endswith("result"):
        return "server tool results"
    return inherited


@dataclass
class _Text:
    path: Path
    text: str
    ctx: str
    label: str


def _texts(value: Any, default_label: str) -> list[_Text]:
    """The strings of a JSON value that are texts to re-voice, with their path and kind."""
    found: list[_Text] = []

    def walk(node: Any, path: Path, ctx: str, label: str, parent_key: str | None) -> None:
        if isinstance(node, dict):
            label = _role_label(node, label)
            for key, child in node.items():
                child_ctx = _child(node, key, ctx, parent_key)
                if child_ctx == FACT:
                    continue
                walk(child, (*path, key), child_ctx, _label(node, key, child_ctx, label), key)
        elif isinstance(node, list):
            for i, child in enumerate(node):
                walk(child, (*path, i), ctx, label, parent_key)
        elif (
            isinstance(node, str)
            and node not in PROVIDER_TEXTS
            and (ctx in (PROSE, OUTPUT) or (ctx == OTHER and words(node) >= 3 and not is_url(node)))
        ):
            found.append(_Text(path, node, ctx, label if ctx != OTHER else "other texts"))

    walk(value, (), OTHER, default_label, None)
    return found


def voiced(text: str) -> str:
    """A text in the project's words: a JSON text keeps its keys and literals (voiced inside), else
    every run of letters is replaced; a URL stays."""
    if is_url(text):
        return text
    if json_container(text):
        return voice_json(text, _is_fact_key)
    return voice(text)


# --- arguments that quote an output --------------------------------------------------------------

_QUOTE_WORDS = 3  # shorter runs an argument shares with an output's text are names and values, not quotes


@dataclass(frozen=True)
class Quotes:
    """The tool outputs a request carries, by which an argument that quotes one is re-voiced.

    `texts`: each output text of three words or more, with its voice (an argument may quote a run of
    it). `values`: each whole string value of an output (`"apple"` in `{"items": ["apple"]}`): an
    argument whose whole value is one passes on the output (`store_report(items: ["apple"])` after
    `data_fetcher` returned it) and takes its voice; a value an earlier call's arguments already held
    (`{"city": "Paris"}` answering `get_weather(city: "Paris")`) came from the call, not the output,
    and quotes nothing. Each with the position of the message holding it:
    in a request (`ordered`), only a call after that message quotes it; a call its own output echoes
    (`analyze(request: "sales data")` answered "Analyzed: sales data") came first and keeps its words,
    as the response that served it did.
    """

    texts: dict[str, tuple[str, int]] = field(default_factory=dict)
    values: dict[str, tuple[str, int]] = field(default_factory=dict)
    ordered: bool = True

    def __bool__(self) -> bool:
        return bool(self.texts or self.values)


def _position(path: Path) -> int:
    """The index of the message (content, input item) a path is in: its first list index."""
    return next((step for step in path if isinstance(step, int)), -1)


def outputs_of(body: bytes) -> Quotes:
    """The tool outputs a JSON body carries, each with the voice it is given: what an argument that
    quotes one must be re-voiced by. A body that is not one JSON document has none here."""
    try:
        value = json.loads(body)
    except ValueError:
        return Quotes()
    found = [t for t in _texts(value, "prompts") if t.ctx == OUTPUT]
    texts: dict[str, tuple[str, int]] = {}
    for t in found:
        if words(t.text) >= _QUOTE_WORDS:
            texts[t.text] = (voiced(t.text), min(_position(t.path), texts.get(t.text, ("", _position(t.path)))[1]))
    values: dict[str, tuple[str, int]] = {}
    passed = _argument_values(value)

    def note(text: str, voice_of: str | None, at: int) -> None:
        if text in passed and passed[text] < at:
            return
        if voice_of is not None and voice_of != text:
            values[text] = (voice_of, min(at, values.get(text, (voice_of, at))[1]))

    for t in found:
        if json_container(t.text):
            for leaf, voice_of in zip(_leaves(t.text), _leaves(voiced(t.text)), strict=False):
                note(leaf, voice_of, _position(t.path))
        else:
            note(t.text, voice_value(t.text, _is_fact_key), _position(t.path))
    return Quotes(texts, values)


def _argument_values(value: Any) -> dict[str, int]:
    """Every string a call's arguments hold in a request (inside an arguments JSON text too), with the
    position of the first message holding it."""
    found: dict[str, int] = {}

    def add(text: str, at: int) -> None:
        for leaf in _leaves(text) if json_container(text) else [text]:
            found.setdefault(leaf, at)

    def walk(node: Any, at: int, inside: bool) -> None:
        if isinstance(node, dict):
            for key, child in node.items():
                walk(child, at, inside or key in ARGUMENT_KEYS)
        elif isinstance(node, list):
            for n, child in enumerate(node):
                walk(child, n if at < 0 else at, inside)
        elif inside and isinstance(node, str):
            add(node, at)

    walk(value, -1, False)
    return found


def _leaves(text: str) -> list[str]:
    """A JSON text's string values, in order (its keys and literals are kept by a voice, so a text and
    its voice have the same values at the same places)."""
    found: list[str] = []

    def collect(_path: Path, value: str) -> None:
        found.append(value)

    rewrite(text, collect)
    return found


def _requoted(text: str, quotes: Quotes, at: int) -> str | None:
    """An argument's string re-voiced as the output it quotes (a whole value of it, the whole text, or
    a run of words from it, taken at the same place in the output's voice, which keeps every text's
    length); None when it quotes none. `at`: the position of the argument's message in a request."""
    value = quotes.values.get(text)
    if value is not None and (not quotes.ordered or value[1] < at):
        return value[0]
    if words(text) < _QUOTE_WORDS:
        return None
    for original, (voice_of, where) in quotes.texts.items():
        if quotes.ordered and where >= at:
            continue
        if text == original:
            return voice_of
        start = original.find(text)
        if start >= 0 and len(voice_of) == len(original):
            return voice_of[start : start + len(text)]
    return None


def _argument_quote(path: Path, value: str, quotes: Quotes) -> str | None:
    """A string under a call's arguments that quotes an output, re-voiced the same way (inside an
    arguments JSON text too); None for every other string."""
    if not quotes or not any(isinstance(step, str) and step in ARGUMENT_KEYS for step in path):
        return None
    at = _position(path)
    if json_container(value):
        new = rewrite(value, lambda _p, inner: _requoted(inner, quotes, at))
        return new if new != value else None
    return _requoted(value, quotes, at)


# --- documents and streams -----------------------------------------------------------------------


def _document(text: str, label: str, counts: Counter[str], quotes: Quotes) -> str:
    value = json.loads(text)
    plan = {t.path: t for t in _texts(value, label)}
    if not plan and not quotes:
        return text

    def replace_one(path: Path, value: str) -> str | None:
        found = plan.get(path)
        if found is None:
            return _argument_quote(path, value, quotes)
        new = voiced(value)
        if new != value:
            counts[found.label] += 1
        return new

    return rewrite(text, replace_one)


def _channel(event: Any, text: _Text, deltas: bool) -> tuple[Any, ...] | None:
    """The text a stream fragment extends, or None for a whole text."""
    if not isinstance(event, dict):
        return None
    if deltas:
        if "delta" not in text.path:
            return None
        fields = tuple(str(event.get(f)) for f in _CHANNEL_FIELDS)
        return (fields, str(event.get("type")), tuple(str(p) for p in text.path))
    if text.ctx != PROSE:
        return None
    # A stream of whole chunks (Gemini, Ollama): each chunk's text extends the last one's, part by part.
    path = tuple("*" if i > 0 and text.path[i - 1] == "parts" else str(p) for i, p in enumerate(text.path))
    node: Any = event
    for step in text.path[:-1]:
        node = node[step]
    thought = node.get("thought") is True if isinstance(node, dict) else False
    return (path, thought)


def _has_deltas(value: Any) -> bool:
    if isinstance(value, dict):
        return "delta" in value or any(_has_deltas(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_deltas(v) for v in value)
    return False


def _stream(events: list[str | None], counts: Counter[str], quotes: Quotes | None = None) -> list[str | None]:
    """The JSON texts of a stream's events re-voiced together (None: an event with no JSON, kept)."""
    values = [json.loads(e) if e is not None else None for e in events]
    deltas = any(_has_deltas(v) for v in values)
    plans: list[dict[Path, _Text]] = []
    channels: dict[tuple[Any, ...], list[tuple[int, Path, str, str]]] = {}
    for n, value in enumerate(values):
        plan: dict[Path, _Text] = {}
        for text in _texts(value, "model answers") if value is not None else ():
            key = _channel(value, text, deltas)
            if key is None:
                plan[text.path] = text
            else:
                channels.setdefault(key, []).append((n, text.path, text.text, text.label))
        plans.append(plan)
    # A channel's text is voiced whole, then cut where the provider cut it.
    cuts: list[dict[Path, str]] = [{} for _ in values]
    for fragments in channels.values():
        whole = "".join(f[2] for f in fragments)
        new = voiced(whole)
        if len(new) != len(whole):
            new = voice(whole)  # a JSON text whose escapes changed length: cut the plain voice instead
        at = 0
        for n, path, fragment, _ in fragments:
            cuts[n][path] = new[at : at + len(fragment)]
            at += len(fragment)
        if new != whole:
            counts[fragments[0][3]] += 1
    out: list[str | None] = []
    for n, event in enumerate(events):
        if event is None:
            out.append(None)
            continue
        plan, cut = plans[n], cuts[n]

        def replace_one(
            path: Path, value: str, plan: dict[Path, _Text] = plan, cut: dict[Path, str] = cut
        ) -> str | None:
            if path in cut:
                return cut[path]
            found = plan.get(path)
            if found is None:
                return _argument_quote(path, value, quotes or Quotes())
            new = voiced(value)
            if new != value:
                counts[found.label] += 1
            return new

        out.append(rewrite(event, replace_one) if (plan or cut or quotes) else event)
    return out


def _json_or_none(text: str, where: str) -> str | None:
    stripped = text.strip()
    if not stripped or stripped == "[DONE]":
        return None
    try:
        json.loads(stripped)
    except ValueError:
        raise RevoiceError(f"{where} is not JSON: {stripped[:60]!r}") from None
    return text


def _sse(body: str, counts: Counter[str], quotes: Quotes) -> str:
    lines = body.splitlines(keepends=True)
    slots: list[int] = []
    payloads: list[str | None] = []
    for n, line in enumerate(lines):
        if line.startswith("data:"):
            content = line[5:].rstrip("\r\n")
            payloads.append(_json_or_none(content, f"SSE line {n + 1}"))
            slots.append(n)
    new = _stream(payloads, counts, quotes)
    for n, payload, before in zip(slots, new, payloads, strict=True):
        if payload is None or payload == before:
            continue
        line = lines[n]
        ending = line[len(line.rstrip("\r\n")) :]
        lines[n] = "data:" + payload + ending
    return "".join(lines)


def _ndjson(body: str, counts: Counter[str], quotes: Quotes) -> str:
    lines = body.splitlines(keepends=True)
    payloads = [_json_or_none(line.rstrip("\r\n"), f"line {n + 1}") for n, line in enumerate(lines)]
    new = _stream(payloads, counts, quotes)
    out = []
    for line, payload, before in zip(lines, new, payloads, strict=True):
        if payload is None or payload == before:
            out.append(line)
        else:
            out.append(payload + line[len(line.rstrip("\r\n")) :])
    return "".join(out)


def _json_array_stream(body: str, counts: Counter[str], quotes: Quotes) -> str:
    """Gemini's JSON-array stream: one JSON document whose elements are the chunks."""
    value = json.loads(body)
    elements = [json.dumps(v) for v in value]
    new = _stream(list(elements), counts, quotes)
    planned = {i: json.loads(t) for i, t in enumerate(new) if t is not None}

    def replace_one(path: Path, text: str) -> str | None:
        node: Any = planned[int(path[0])]
        for step in path[1:]:
            node = node[step]
        return node if node != text else None

    return rewrite(body, replace_one)


def _event_stream(body: bytes, counts: Counter[str], quotes: Quotes) -> bytes:
    messages = eventstream.decode(body)
    payloads: list[str | None] = []
    for m in messages:
        text = m.payload.decode("utf-8") if m.payload else ""
        payloads.append(_json_or_none(text, f"event-stream message[{m.index}]"))
    new = _stream(payloads, counts, quotes)
    ends = [m.offset for m in messages[1:]] + [len(body)]
    # A message whose payload is unchanged keeps its bytes; a changed one is framed again (new CRCs).
    return b"".join(
        body[m.offset : end] if p is None or p == before else eventstream.encode(m.headers, p.encode("utf-8"))
        for m, end, p, before in zip(messages, ends, new, payloads, strict=True)
    )


def revoice_body(
    body: bytes, content_type: str, counts: Counter[str], label: str, quotes: Quotes | None = None
) -> bytes:
    """A request or response body re-voiced; an empty or binary non-stream body is kept. `quotes`: the
    outputs of the conversation, by which an argument quoting one is re-voiced as that output is."""
    quotes = quotes or Quotes()
    if not body.strip():
        return body
    if eventstream.looks_like_event_stream(body):
        return _event_stream(body, counts, quotes)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise RevoiceError("a body that is neither UTF-8 text nor an event stream") from None
    head = text.lstrip()[:6]
    if content_type == "text/event-stream" or head.startswith(("data:", "event:", "id:", ":")):
        return _sse(text, counts, quotes).encode("utf-8")
    if "ndjson" in content_type or "jsonl" in content_type:
        return _ndjson(text, counts, quotes).encode("utf-8")
    try:
        value = json.loads(text)
    except ValueError:
        if all(_line_is_json(line) for line in text.splitlines() if line.strip()):
            return _ndjson(text, counts, quotes).encode("utf-8")
        raise RevoiceError(f"a body that is not JSON: {text[:60]!r}") from None
    if isinstance(value, list) and value and all(isinstance(v, dict) and "candidates" in v for v in value):
        return _json_array_stream(text, counts, quotes).encode("utf-8")
    return _document(text, label, counts, quotes).encode("utf-8")


def _line_is_json(line: str) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Revoiced:
    interaction: Interaction
    counts: Counter[str]


def revoice_interaction(interaction: Interaction) -> Revoiced:
    counts: Counter[str] = Counter()
    request = interaction.request
    response = interaction.response
    request_type = ",".join(request.headers.get("content-type", ())).lower()
    # The request carries the conversation's tool outputs: arguments that quote one, in the request's
    # history or in the calls the response makes, are re-voiced as it is.
    quotes = outputs_of(request.body)
    new_request = revoice_body(request.body, request_type, counts, "prompts", quotes)
    # Every call a response makes comes after every output its request carries.
    after = replace(quotes, ordered=False)
    new_response = revoice_body(response.body, response.content_type, counts, "model answers", after)
    return Revoiced(
        replace(
            interaction,
            request=replace(request, body=new_request),
            response=replace(response, body=new_response),
        ),
        counts,
    )


def summary(counts: Counter[str]) -> list[str]:
    """What was re-voiced, for the scenario's source: `KIND (N)`, by kind."""
    return [f"{kind} ({n})" for kind, n in sorted(counts.items())]


Keep = Callable[[str], bool]

__all__ = ["RevoiceError", "Revoiced", "outputs_of", "revoice_body", "revoice_interaction", "summary", "voiced"]
