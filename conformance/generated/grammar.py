"""What each API's stream may carry: the dimensions a generated scenario varies, per API, with evidence.

A dimension's values are only those the API's wire allows and its cassette builder writes
(scripts/builders/): a generated scenario never holds a shape the provider could not send. Each
row cites where the values come from: a scenario of the corpus (whose sources and notes name the
documentation, SDK type, recording or bug report), or a page of the provider's reference. The
table is read by the generator (conformance/generated/scenarios.py) and written into
docs/generated.md by `conformance docs`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

EvidenceKind = Literal["corpus", "docs", "sdk", "bug"]


@dataclass(frozen=True)
class Evidence:
    kind: EvidenceKind  # corpus: a scenario id of the bundled corpus; else a URL
    where: str
    what: str


@dataclass(frozen=True)
class Dimension:
    name: str
    values: tuple[str, ...]
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True)
class IdFormat:
    """How the API's server mints a call's ids: `{alnum:N}`, `{lower:N}`, `{hex:N}`, `{digits:N}` are
    random characters of that class; `{name}` is the tool's name, `{index}` the call's number in the
    conversation, `{k}` its place in its turn, `{call}` the call id (for item ids)."""

    call: str
    item: str | None = None  # the output item's own id, on APIs whose calls are items (Responses)
    reasoning: str | None = None  # a reasoning item's id, on APIs that serve reasoning items


@dataclass(frozen=True)
class Grammar:
    api: str
    template: str  # the constructed scenario whose model, tools, wire types and opaque fields are reused
    ids: IdFormat
    dimensions: tuple[Dimension, ...] = field(default=())

    def values(self, name: str) -> tuple[str, ...]:
        for dimension in self.dimensions:
            if dimension.name == name:
                return dimension.values
        return ()


# What each dimension means (docs/generated.md shows it above the table).
MEANING: Mapping[str, str] = {
    "turns": "calling turns before the final answer",
    "calls-per-turn": "calls in one response (parallel calls)",
    "same-tool": "whether a turn may call one tool more than once",
    "ids": 'the call ids a response carries: present, empty (`""`) or absent',
    "id-on-deltas": "on which stream deltas a call's id appears",
    "indices": "the stream index each call of a turn is given",
    "name": "on which delta a call's name appears",
    "chunking": "how a call's arguments are cut across stream events",
    "calls-per-event": "whether a response's calls share one stream event",
    "text": "assistant text in a response beside its calls",
    "arguments": "the kind of arguments a call carries",
    "results": "the order the client sends the results in",
    "opaque": "opaque fields the provider attaches to a call and expects back",
    "reasoning": "a reasoning item (with its encrypted content, sent back before the call) in the response",
    "thinking": "a thinking block (with its signature, sent back unchanged before the calls) in the response",
}

ARGUMENTS = ("empty", "plain", "long", "escaped", "non-ascii")


def _corpus(scenario: str, what: str) -> Evidence:
    return Evidence("corpus", scenario, what)


_TURNS = Dimension(
    "turns",
    ("1", "2", "3"),
    (
        _corpus("openai-chat/three-turn-chain", "a chain of calling turns, each answered before the next"),
        _corpus("openai-chat/kimi-k2-chain", "a streamed chain of two calling turns"),
    ),
)
_ARGUMENTS = Dimension(
    "arguments",
    ARGUMENTS,
    (
        _corpus("anthropic-messages/streamed-arguments-in-many-fragments", "long arguments streamed in pieces"),
        Evidence(
            "docs",
            "https://www.rfc-editor.org/rfc/rfc8259#section-7",
            "arguments are JSON text: quotes, backslashes, control characters escaped; any Unicode",
        ),
        _corpus("openai-chat/parallel-results-reversed", "a city name with a space; `{}` for a tool without input"),
    ),
)
_RESULTS = Dimension(
    "results",
    ("as-called", "reversed"),
    (_corpus("openai-chat/parallel-results-reversed", "results sent in reverse order pair by id (token-js#36)"),),
)


def _calls(api: str, *scenarios: str) -> tuple[Dimension, Dimension]:
    return (
        Dimension(
            "calls-per-turn",
            ("1", "2", "3", "4"),
            tuple(_corpus(s, "parallel calls in one streamed response") for s in scenarios),
        ),
        Dimension(
            "same-tool",
            ("no", "yes"),
            tuple(
                _corpus(s, "one tool called twice in one turn")
                for s in {
                    "openai-chat": ("openai-chat/recorded/openllmetry-function-calls-streaming-parallel",),
                    "anthropic-messages": ("anthropic-messages/recorded/mirascope-call-with-tools-stream",),
                    "bedrock-converse": ("bedrock-converse/identical-calls-one-turn",),
                    "gemini": ("gemini/streamed-sse-same-tool-unsigned",),
                    "openai-responses": ("openai-responses/recorded/mirascope-call-with-tools-stream",),
                    "openresponses": ("openresponses/streamed-same-tool-twice",),
                }.get(api, ("openai-chat/parallel-same-tool",))
            ),
        ),
    )


def _chunking(values: tuple[str, ...], *evidence: Evidence) -> Dimension:
    return Dimension("chunking", values, evidence)


_FRAGMENTS = ("whole", "per-fragment", "many-fragments")


def _grammar(api: str, template: str, ids: IdFormat, *dimensions: Dimension) -> Grammar:
    return Grammar(api, template, ids, (_TURNS, *dimensions, _ARGUMENTS, _RESULTS))


# OpenAI's models write a preamble message before a call, and may write messages between calls.
_PREAMBLES = (
    Evidence(
        "docs",
        "https://platform.openai.com/docs/guides/latest-model#preambles",
        "GPT-5 writes a preamble before each tool call and may write messages between calls",
    ),
    Evidence(
        "docs",
        "https://cookbook.openai.com/examples/gpt-5/gpt-5_prompting_guide",
        "an output of reasoning, a message item, then the function_call item",
    ),
)


def _responses(api: str, template: str, ids: IdFormat, *evidence: Evidence, preambles: bool = False) -> Grammar:
    reasoning = (
        (
            Dimension(
                "reasoning",
                ("none", "before-calls"),
                (_corpus(template, "a reasoning item (encrypted_content) streams before the calls"),),
            ),
        )
        if ids.reasoning
        else ()
    )
    return _grammar(
        api,
        template,
        ids,
        *_calls(api, template),
        Dimension("ids", ("present",), (_corpus(template, "every function_call item carries call_id and id"),)),
        _chunking(
            _FRAGMENTS,
            _corpus(template, "response.function_call_arguments.delta events, the arguments in pieces"),
            *evidence,
        ),
        Dimension(
            "text",
            # A message item after the calls is where the builder puts a turn's text by default.
            ("none", "after-calls", *(("before-calls", "between-calls") if preambles else ())),
            (
                _corpus("azure-foundry/a2a-and-openapi-streamed", "a streamed message item beside the calls"),
                _corpus("openai-responses/recorded/mirascope-web-search-tool-stream", "recorded: text after a call"),
                *(_PREAMBLES if preambles else ()),
            ),
        ),
        *reasoning,
    )


GRAMMARS: Mapping[str, Grammar] = {
    g.api: g
    for g in (
        _grammar(
            "openai-chat",
            "openai-chat/streamed-parallel-calls",
            IdFormat("call_{alnum:24}"),
            *_calls(
                "openai-chat",
                "openai-chat/streamed-parallel-calls",
                "openai-chat/recorded/magentic-parallel-function-call",
            ),
            Dimension(
                "ids",
                ("present", "absent", "empty"),
                (
                    _corpus("openai-chat/streamed-parallel-calls", "OpenAI: every call's first delta carries its id"),
                    _corpus("openai-chat/streamed-calls-without-ids", "StepFun streams calls with no id at all"),
                    _corpus("openai-chat/gemini-compat-empty-ids", 'Gemini\'s OpenAI-compatible endpoint sends id ""'),
                    Evidence(
                        "bug",
                        "https://github.com/vercel/ai/issues/7834",
                        'gemini-2.5-pro\'s calls come with id "" through the compatible provider',
                    ),
                ),
            ),
            Dimension(
                "id-on-deltas",
                ("first", "every", "empty-after-first"),
                (
                    _corpus("openai-chat/streamed-parallel-calls", "OpenAI: the id on the opening delta only"),
                    _corpus("openai-chat/streamed-id-on-every-delta", "DeepSeek repeats the id on every delta"),
                    _corpus("openai-chat/streamed-empty-ids-after-first", 'DashScope sends "" after the first'),
                ),
            ),
            Dimension(
                "indices",
                ("from-0", "from-1", "all-0", "interleaved"),
                (
                    _corpus("openai-chat/streamed-parallel-calls", "OpenAI numbers a turn's calls 0, 1, ..."),
                    _corpus("openai-chat/streamed-indices-from-one", "LiteLLM's proxy numbers them from 1"),
                    _corpus("openai-chat/ollama-parallel-index-zero", "Ollama gives every call index 0"),
                    _corpus("openai-chat/streamed-interleaved-parallel-calls", "OpenRouter interleaves the fragments"),
                ),
            ),
            Dimension(
                "name",
                ("first", "late"),
                (
                    _corpus("openai-chat/streamed-parallel-calls", "the name on the opening delta"),
                    _corpus("openai-chat/streamed-name-after-arguments", "the name after the first fragment"),
                ),
            ),
            _chunking(
                _FRAGMENTS,
                _corpus("openai-chat/ollama-parallel-index-zero", "each call whole in one delta"),
                _corpus("openai-chat/streamed-id-on-every-delta", "arguments token by token"),
            ),
            Dimension(
                "text",
                ("none", "before-calls"),
                (_corpus("openai-chat/streamed-indices-from-one", "content deltas before the tool_calls deltas"),),
            ),
        ),
        _grammar(
            "anthropic-messages",
            "anthropic-messages/streamed-parallel-calls",
            IdFormat("toolu_01{alnum:22}"),
            *_calls("anthropic-messages", "anthropic-messages/streamed-parallel-calls"),
            Dimension(
                "ids", ("present",), (_corpus("anthropic-messages/streamed-parallel-calls", "tool_use.id is required"),)
            ),
            _chunking(
                _FRAGMENTS,
                _corpus("anthropic-messages/streamed-arguments-in-many-fragments", "input_json_delta in many pieces"),
            ),
            Dimension(
                "text",
                ("none", "before-calls"),
                (_corpus("anthropic-messages/streamed-parallel-calls", "a text block before the tool_use blocks"),),
            ),
            Dimension(
                "opaque",
                ("none", "caller"),
                (_corpus("anthropic-messages/streamed-parallel-calls", "tool_use.caller {type: direct}"),),
            ),
            Dimension(
                "thinking",
                ("none", "before-calls"),
                (
                    Evidence(
                        "docs",
                        "https://platform.claude.com/docs/en/build-with-claude/extended-thinking#extended-thinking-with-tool-use",
                        "thinking blocks open a tool_use response and go back unchanged before its tool_use blocks",
                    ),
                    Evidence(
                        "docs",
                        "https://platform.claude.com/docs/en/build-with-claude/streaming#streaming-request-with-extended-thinking",
                        "a thinking block streams as thinking_delta events, then one signature_delta",
                    ),
                    _corpus(
                        "anthropic-messages/recorded/mirascope-resume-on-gemini",
                        "recorded: a thinking block with its signature before the text and the tool_use",
                    ),
                ),
            ),
        ),
        _grammar(
            "ollama-messages",
            "ollama-messages/streamed-parallel-calls",
            IdFormat("call_{lower:8}"),
            *_calls("ollama-messages", "ollama-messages/streamed-parallel-calls"),
            Dimension(
                "ids", ("present",), (_corpus("ollama-messages/streamed-parallel-calls", "Ollama mints call_ ids"),)
            ),
        ),
        _grammar(
            "bedrock-converse",
            "bedrock-converse/streamed-parallel-calls",
            IdFormat("tooluse_{alnum:22}"),
            *_calls("bedrock-converse", "bedrock-converse/streamed-parallel-calls"),
            Dimension(
                "ids", ("present",), (_corpus("bedrock-converse/streamed-parallel-calls", "toolUseId is required"),)
            ),
            _chunking(
                _FRAGMENTS,
                _corpus("bedrock-converse/streamed-arguments-in-many-fragments", "ToolUseBlockDelta.input in pieces"),
            ),
            Dimension(
                "text",
                ("none", "before-calls"),
                (_corpus("bedrock-converse/streamed-parallel-calls", "a text block before the toolUse blocks"),),
            ),
            Dimension(
                "thinking",
                ("none", "before-calls"),
                (
                    Evidence(
                        "sdk",
                        "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ReasoningContentBlockDelta.html",
                        "reasoningContent streams as text deltas and a signature (ContentBlockStart has no reasoning)",
                    ),
                    Evidence(
                        "sdk",
                        "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ReasoningTextBlock.html",
                        "a reasoning block passed back keeps its text and signature unmodified",
                    ),
                ),
            ),
        ),
        _grammar(
            "cohere-v2",
            "cohere-v2/streamed-parallel-calls",
            IdFormat("{name}_{lower:12}"),
            *_calls("cohere-v2", "cohere-v2/streamed-parallel-calls"),
            Dimension(
                "ids", ("present",), (_corpus("cohere-v2/streamed-parallel-calls", "tool-call-start carries the id"),)
            ),
            _chunking(
                _FRAGMENTS,
                _corpus("cohere-v2/streamed-arguments-in-many-fragments", "tool-call-delta events in pieces"),
            ),
        ),
        _grammar(
            "gemini",
            "gemini/streamed-sse-parallel-calls",
            IdFormat("{lower:8}"),
            *_calls("gemini", "gemini/streamed-sse-parallel-calls"),
            Dimension(
                "ids",
                ("present", "absent"),
                (
                    _corpus("gemini/streamed-sse-parallel-calls", "Gemini 3 gives each functionCall an id"),
                    _corpus(
                        "gemini/recorded/crewai-streaming-multiple-tool-calls", "Gemini 2.5 streams calls with no id"
                    ),
                ),
            ),
            Dimension(
                "calls-per-event",
                ("one", "all"),
                (
                    _corpus("gemini/streamed-sse-parallel-calls", "each functionCall part in a chunk of its own"),
                    _corpus("gemini/streamed-parallel-calls-one-chunk", "a turn's calls together in one chunk"),
                ),
            ),
            Dimension(
                "text",
                ("none", "thought-before-calls"),
                (_corpus("gemini/streamed-json-array", "includeThoughts: a thought part streams before the calls"),),
            ),
            Dimension(
                "opaque",
                ("none", "signature"),
                (_corpus("gemini/streamed-sse-parallel-calls", "thoughtSignature on the first call of a turn"),),
            ),
        ),
        _grammar(
            "gemini-interactions",
            "gemini-interactions/streamed-parallel-calls",
            IdFormat("{lower:8}"),
            *_calls("gemini-interactions", "gemini-interactions/streamed-parallel-calls"),
            Dimension(
                "ids", ("present",), (_corpus("gemini-interactions/streamed-parallel-calls", "function_call.id"),)
            ),
            _chunking(
                _FRAGMENTS,
                _corpus("gemini-interactions/streamed-parallel-calls", "step.delta events carry argument pieces"),
            ),
        ),
        _grammar(
            "kimi-chat",
            "kimi-chat/streamed-parallel-calls",
            IdFormat("functions.{name}:{index}"),
            *_calls("kimi-chat", "kimi-chat/streamed-parallel-calls"),
            Dimension(
                "ids",
                ("present",),
                (
                    _corpus(
                        "kimi-chat/streamed-parallel-calls",
                        "functions.{name}:{index}, index counted over the conversation",
                    ),
                ),
            ),
            _chunking(
                _FRAGMENTS,
                _corpus("kimi-chat/streamed-arguments-in-many-fragments", "argument deltas in many pieces"),
            ),
        ),
        _grammar(
            "mistral-chat",
            "mistral-chat/streamed-parallel-calls",
            IdFormat("{alnum:9}"),
            *_calls(
                "mistral-chat",
                "mistral-chat/streamed-parallel-calls",
                "mistral-chat/recorded/magentic-parallel-function-call",
            ),
            Dimension("ids", ("present",), (_corpus("mistral-chat/streamed-parallel-calls", "9 alphanumerics"),)),
            Dimension(
                "calls-per-event",
                ("all",),
                (_corpus("mistral-chat/streamed-parallel-calls", "a turn's calls, each whole, in one chunk"),),
            ),
        ),
        _grammar(
            "ollama-chat",
            "ollama-chat/streamed-parallel-calls",
            IdFormat("call_{lower:8}"),
            *_calls("ollama-chat", "ollama-chat/streamed-parallel-calls"),
            Dimension("ids", ("present",), (_corpus("ollama-chat/streamed-parallel-calls", "call_ and 8 characters"),)),
            Dimension(
                "calls-per-event",
                ("one",),
                (_corpus("ollama-chat/streamed-parallel-calls", "each call whole, in an NDJSON line of its own"),),
            ),
        ),
        _responses(
            "openai-responses",
            "openai-responses/streamed-reasoning-then-parallel-calls",
            IdFormat("call_{alnum:24}", "fc_{hex:50}", "rs_{hex:50}"),
            preambles=True,
        ),
        _responses(
            "azure-foundry",
            "azure-foundry/streamed-parallel-function-calls",
            IdFormat("call_{alnum:24}", "fc_{hex:16}00{alnum:32}", "rs_{hex:16}00{alnum:32}"),
            preambles=True,
        ),
        _responses(
            "openresponses",
            "openresponses/streamed-parallel-calls",
            IdFormat("call_{alnum:24}", "fc_{hex:50}"),
        ),
        _responses(
            "mistral-responses",
            "mistral-responses/streamed-parallel-calls",
            IdFormat("{alnum:9}", "fc_{call}{k}"),
        ),
        _responses(
            "ollama-responses",
            "ollama-responses/streamed-parallel-calls",
            IdFormat("call_{lower:8}", "fc_{digits:6}_{k}"),
        ),
    )
}
