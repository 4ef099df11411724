"""The Java harnesses (harnesses/java): the shared protocol kit, LangChain4j's AiServices and Spring
AI's ChatClient over a few scenarios.

The libraries are not installed in CI unless it builds them (`mvn -q -f harnesses/java/pom.xml package`);
elsewhere this module skips with that command as the reason (tests/toolchains.py). Each failing case
below is a finding of docs/findings.md, held here so that a release that fixes it, or a harness
change that hides it, shows.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from node_harnesses import verdict
from toolchains import require

from conformance.connectors.harness import HarnessAdapter, problem
from conformance.corpus.loading import Corpus

JAVA = ROOT / "harnesses" / "java"
BUILD = "mvn -q -f harnesses/java/pom.xml package"
LANGCHAIN4J = JAVA / "langchain4j" / "target" / "langchain4j-harness.jar"
SPRING_AI = JAVA / "spring-ai" / "target" / "spring-ai-harness.jar"

require("mvn", built=LANGCHAIN4J, install=BUILD, unit="java")
require("mvn", built=SPRING_AI, install=BUILD, unit="java")


def pinned(pom: Path, tag: str) -> str:
    """A version pinned in a pom.xml, by its property or element name."""
    text = pom.read_text(encoding="utf-8")
    return text.split(f"<{tag}>", 1)[1].split("<", 1)[0]


@pytest.fixture(scope="module")
def langchain4j() -> Iterator[HarnessAdapter]:
    adapter = HarnessAdapter(["java", "-jar", str(LANGCHAIN4J)])
    try:
        yield adapter
    finally:
        adapter.close()


@pytest.fixture(scope="module")
def spring_ai() -> Iterator[HarnessAdapter]:
    adapter = HarnessAdapter(["java", "-jar", str(SPRING_AI)])
    try:
        yield adapter
    finally:
        adapter.close()


# --- the kit: the protocol itself, spoken to a harness process directly ----------------------------


class Conversation:
    """A harness process spoken to line by line, as the suite does."""

    def __init__(self, jar: Path) -> None:
        self.process = subprocess.Popen(
            ["java", "-jar", str(jar)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def ask(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        return answer

    def send_line(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def end(self, command: dict[str, Any] | None) -> tuple[int, str]:
        """Send `stop` (or close stdin when None); the exit code and anything more written to stdout."""
        assert self.process.stdin is not None and self.process.stdout is not None
        if command is not None:
            self.process.stdin.write(json.dumps(command) + "\n")
            self.process.stdin.flush()
        self.process.stdin.close()
        rest = self.process.stdout.read()
        return self.process.wait(timeout=30), rest


def case(**fields: Any) -> dict[str, Any]:
    base = {
        "id": "openai-chat/one-call",
        "api": "openai-chat",
        # Port 9 on loopback (discard) has nothing listening: the library's request fails at once.
        "base_url": "http://127.0.0.1:9/v1",
        "api_key": "conformance-replay-key",
        "model": "gpt-4o-mini",
        "prompt": "What is the weather in Paris?",
        "stream": False,
        "tools": [{"name": "get_weather", "description": "Weather", "parameters": {"type": "object"}}],
        "recorded_tools": [],
        "settings": {"body": {}, "headers": {}, "query": {}, "api_version": None},
        "tools_url": "http://127.0.0.1:9/_conformance/tools/openai-chat/one-call",
    }
    base.update(fields)
    return base


def test_the_kit_answers_start_run_and_stop_in_protocol_order() -> None:
    talk = Conversation(LANGCHAIN4J)
    started = talk.ask({"cmd": "start", "version": 1})
    assert problem(started, "started") is None
    assert started["implementation"]["language"] == "java"
    assert started["implementation"]["libraries"]["java"]

    # The library throws (nothing listens at the base URL): errored, with the message and the stack.
    errored = talk.ask({"cmd": "run", "seq": 1, "case": case()})
    assert problem(errored, "ran") is None and errored["seq"] == 1
    assert "Connect" in errored["errored"]["message"], errored
    assert "\tat " in errored["errored"]["detail"]

    # A case the library cannot express is skipped with the harness's reason.
    custom = case(tools=[{"name": "run_sql", "type": "custom", "description": "SQL"}])
    skipped = talk.ask({"cmd": "run", "seq": 2, "case": custom})
    assert set(skipped) == {"seq", "skipped"} and "custom" in skipped["skipped"]

    # A malformed case is an errored answer naming the field, and the harness goes on.
    broken = case()
    del broken["base_url"]
    located = talk.ask({"cmd": "run", "seq": 3, "case": broken})
    assert "case.base_url" in located["errored"]["message"]

    code, rest = talk.end({"cmd": "stop"})
    assert code == 0 and rest == ""


def test_the_kit_exits_quietly_at_end_of_input_and_skips_a_line_that_is_not_json() -> None:
    talk = Conversation(SPRING_AI)
    talk.send_line("this is not JSON")
    assert talk.ask({"cmd": "start", "version": 1})["implementation"]["name"] == "spring-ai"
    code, rest = talk.end(None)
    assert code == 0 and rest == ""


# --- LangChain4j ------------------------------------------------------------------------------------


def test_langchain4j_names_the_pinned_versions(langchain4j: HarnessAdapter) -> None:
    version = pinned(JAVA / "langchain4j" / "pom.xml", "langchain4j.version")
    identity = langchain4j.identity()
    assert identity["name"] == "langchain4j" and identity["language"] == "java"
    assert langchain4j.version == version
    for module in (
        "langchain4j-open-ai",
        "langchain4j-anthropic",
        "langchain4j-google-ai-gemini",
        "langchain4j-bedrock",
    ):
        assert f"dev.langchain4j:{module} {version}" in identity["libraries"]
    assert "cohere-v2" not in langchain4j.apis and "openai-responses" in langchain4j.apis


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/streamed-parallel-calls",  # OpenAiStreamingChatModel through a TokenStream
        "openai-responses/streamed-reasoning-then-parallel-calls",  # OpenAiResponsesStreamingChatModel
        "anthropic-messages/streamed-parallel-calls",
        "bedrock-converse/streamed-parallel-calls",  # ConverseStream over the HTTP/1.1 Netty client
        "mistral-chat/parallel-same-tool",
        # consecutive contents of one role, on gemini-3.1-flash-lite: no report names that model (LJ4)
        "gemini/streamed-sse-same-tool-unsigned",
    ],
)
def test_langchain4j_passes(langchain4j: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(langchain4j, corpus, scenario_id)
    assert outcome == "pass", summary


@pytest.mark.parametrize(
    ("scenario_id", "codes"),
    [
        # LJ1: the tool result message carries no tool_call_id (InternalOllamaHelper)
        ("ollama-chat/parallel-same-tool", {"roundtrip/empty-id"}),
        # LJ2: accumulateToolCallId defaults to true: an id repeated on every delta is appended to itself
        ("openai-chat/streamed-id-on-every-delta", {"format/id-length", "roundtrip/id-altered"}),
        # LJ4: Gemini thought signatures are dropped unless returnThinking and sendThinking are set
        # (Gemini's served ids still go back: #5307 is fixed). A parallel turn goes back as consecutive
        # contents of one role, which only Gemini 3 Pro is reported to refuse: not these scenarios' models.
        ("gemini/thought-signature-sequential", {"roundtrip/opaque-dropped"}),
        # LJ6: only tool_use blocks are read from an Anthropic response; server_tool_use is lost
        ("anthropic-messages/web-search-beside-client-call", {"roundtrip/call-lost"}),
        # LJ7: Responses output items other than function_call are not kept in the history
        ("openai-responses/hosted-tools-in-history", {"roundtrip/call-lost"}),
    ],
)
def test_langchain4j_fails_with_the_traced_rules(
    langchain4j: HarnessAdapter, corpus: Corpus, scenario_id: str, codes: set[str]
) -> None:
    outcome, summary, found = verdict(langchain4j, corpus, scenario_id)
    assert outcome == "fail", summary
    assert found == codes


def test_langchain4j_joins_two_calls_streamed_at_one_index(langchain4j: HarnessAdapter, corpus: Corpus) -> None:
    """LJ3: with `index` present, a new id at the same index is appended to the open call, name and all."""
    outcome, summary, _ = verdict(langchain4j, corpus, "openai-chat/ollama-parallel-index-zero")
    assert outcome == "error", summary
    assert "get_weatherget_weather" in summary


def test_langchain4j_throws_on_a_delta_whose_call_has_no_name_yet(langchain4j: HarnessAdapter, corpus: Corpus) -> None:
    """LJ5: every argument delta becomes a PartialToolCall, which requires a name."""
    outcome, summary, _ = verdict(langchain4j, corpus, "openai-chat/streamed-name-after-arguments")
    assert outcome == "error", summary
    assert "name cannot be null or blank" in summary


def test_a_stream_error_does_not_leak_requests_into_the_next_case(langchain4j: HarnessAdapter, corpus: Corpus) -> None:
    """After onError LangChain4j keeps parsing and runs the loop on; the harness waits for it, so the
    next case of the same process sees only its own requests."""
    verdict(langchain4j, corpus, "openai-chat/streamed-interleaved-parallel-calls")
    outcome, summary, _ = verdict(langchain4j, corpus, "openai-chat/streamed-parallel-calls")
    assert outcome == "pass", summary


def test_langchain4j_has_no_custom_tools_and_no_cohere_chat(langchain4j: HarnessAdapter, corpus: Corpus) -> None:
    outcome, summary, _ = verdict(langchain4j, corpus, "openai-chat/custom-tool-call")
    assert outcome == "skip" and "custom" in summary
    outcome, summary, _ = verdict(langchain4j, corpus, "cohere-v2/one-call")
    assert outcome == "skip" and "no chat model" in summary


def test_langchain4j_sends_back_the_reasoning_before_a_bedrock_call(
    langchain4j: HarnessAdapter, generated_corpus: Corpus
) -> None:
    """The generated Bedrock scenario asked Claude to think (additionalModelRequestFields.thinking); configured
    as recorded, with returnThinking, the AiMessage keeps the reasoning text and its signature, and sendThinking
    (on by default) sends them back as the call's reasoningContent."""
    outcome, summary, _ = verdict(langchain4j, generated_corpus, "bedrock-converse/generated-6b96da511a")
    assert outcome == "pass", summary


# --- Spring AI --------------------------------------------------------------------------------------


def test_spring_ai_names_the_pinned_versions(spring_ai: HarnessAdapter) -> None:
    pom = (JAVA / "spring-ai" / "pom.xml").read_text(encoding="utf-8")
    bom = pom.split("<artifactId>spring-ai-bom</artifactId>", 1)[1].split("<version>", 1)[1].split("<", 1)[0]
    identity = spring_ai.identity()
    assert identity["name"] == "spring-ai" and spring_ai.version == bom
    for module in ("spring-ai-openai", "spring-ai-anthropic", "spring-ai-google-genai", "spring-ai-ollama"):
        assert f"org.springframework.ai:{module} {bom}" in identity["libraries"]
    assert "openai-responses" not in spring_ai.apis and "bedrock-converse" in spring_ai.apis


@pytest.mark.parametrize(
    "scenario_id",
    [
        "openai-chat/parallel-same-tool",
        "openai-chat/streamed-parallel-calls",
        "bedrock-converse/streamed-parallel-calls",  # BedrockProxyChatModel's ConverseStream
        "gemini/streamed-json-array",  # thought signatures go back, in order
        "mistral-chat/parallel-same-tool",
        "kimi-chat/index-continues-across-turns",
    ],
)
def test_spring_ai_passes(spring_ai: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(spring_ai, corpus, scenario_id)
    assert outcome == "pass", summary


@pytest.mark.parametrize(
    ("scenario_id", "codes"),
    [
        # S1: OllamaApi's ToolCall has no id; calls are read with "" and sent back without one
        ("ollama-chat/parallel-same-tool", {"roundtrip/empty-id"}),
        # S2: Gemini calls are read with "" ids; functionCall and functionResponse go back without them
        ("gemini/ids-results-reversed", {"roundtrip/empty-id"}),
        # S3: each streamed tool_use replaces the response's content; only the last call is run
        ("anthropic-messages/streamed-parallel-calls", {"roundtrip/call-lost"}),
        # S4: deltas without an id are appended to the last call, whatever their index
        ("openai-chat/streamed-interleaved-parallel-calls", {"roundtrip/arguments-altered"}),
    ],
)
def test_spring_ai_fails_with_the_traced_rules(
    spring_ai: HarnessAdapter, corpus: Corpus, scenario_id: str, codes: set[str]
) -> None:
    outcome, summary, found = verdict(spring_ai, corpus, scenario_id)
    assert outcome == "fail", summary
    assert found == codes


@pytest.mark.parametrize(
    ("scenario_id", "message"),
    [
        # S4: a delta that repeats the id opens a new call without a name
        ("openai-chat/streamed-id-on-every-delta", 'because "toolName" is null'),
        # S5: id-less streamed calls reach OpenAiChatModel's assertion on the result
        ("openai-chat/streamed-calls-without-ids", "ToolResponseMessage must have an id"),
    ],
)
def test_spring_ai_throws(spring_ai: HarnessAdapter, corpus: Corpus, scenario_id: str, message: str) -> None:
    outcome, summary, _ = verdict(spring_ai, corpus, scenario_id)
    assert outcome == "error", summary
    assert message in summary


@pytest.mark.parametrize(
    ("scenario_id", "what"),
    [
        ("anthropic-messages/web-search-beside-client-call", "AnthropicChatModel declares function tools only"),
        ("anthropic-messages/mcp-tool-listing", "it cannot declare mcp_toolset"),
        ("gemini/code-execution-beside-call", "cannot declare the Gemini built-in code_execution"),
    ],
)
def test_spring_ai_names_the_server_tools_it_cannot_declare(
    spring_ai: HarnessAdapter, corpus: Corpus, scenario_id: str, what: str
) -> None:
    """S6: AnthropicChatModel's request tools are its ToolDefinitions' (getFunctionTools), and the Gemini
    model adds Google Search only: the harness skips naming what Spring AI lacks."""
    outcome, summary, _ = verdict(spring_ai, corpus, scenario_id)
    assert outcome == "skip", summary
    assert summary.startswith("the harness declares: Spring AI") and what in summary, summary


def test_spring_ai_declares_google_search_and_drops_the_call_beside_it(
    spring_ai: HarnessAdapter, corpus: Corpus
) -> None:
    """S6: googleSearchRetrieval declares the tool; a candidate is a function call only when every part is
    one (GoogleGenAiChatModel.java:652-653), so the call beside Gemini's toolCall part is never run."""
    outcome, summary, found = verdict(spring_ai, corpus, "gemini/server-tool-beside-call")
    assert outcome == "fail", summary
    assert found == {"pairing/calls-unanswered"}


def test_spring_ai_drops_the_reasoning_before_a_bedrock_call(
    spring_ai: HarnessAdapter, generated_corpus: Corpus
) -> None:
    """S11: the Converse stream is read for its text and toolUse deltas only, and an AssistantMessage is
    written back as its text and tool calls. Nor can it ask for thinking: BedrockChatOptions's
    requestParameters is a map of strings, with no room for additionalModelRequestFields.thinking, so no
    request asks, and the turn is served without the thinking, as Bedrock would answer it."""
    outcome, summary, _ = verdict(spring_ai, generated_corpus, "bedrock-converse/generated-6b96da511a")
    assert outcome == "pass", summary
    assert "without the thinking the request did not ask for" in summary


def test_spring_ai_serves_no_responses_api(spring_ai: HarnessAdapter, corpus: Corpus) -> None:
    outcome, summary, _ = verdict(spring_ai, corpus, "openai-responses/one-call")
    assert outcome == "skip" and "Responses API" in summary


@pytest.mark.parametrize(
    ("scenario_id", "tool"),
    [
        ("openai-responses/computer-use", "computer_use_preview"),
        ("openai-responses/shell-then-apply-patch", "shell"),
        ("openai-responses/tool-search-then-call", "tool_search"),
        ("openai-responses/mcp-approval-flow", "MCP approval"),
    ],
)
def test_langchain4j_does_not_declare_tools_whose_items_it_cannot_run(
    langchain4j: HarnessAdapter, corpus: Corpus, scenario_id: str, tool: str
) -> None:
    """Declared through `serverTools`, a client-run built-in tool ends AiServices' loop at its first item
    with the call unanswered ("never requested"): no LangChain4j user could run it, so the harness skips."""
    outcome, summary, _ = verdict(langchain4j, corpus, scenario_id)
    assert outcome == "skip", summary
    assert tool in summary


@pytest.mark.parametrize(
    ("scenario_id", "codes"),
    [
        # allowCodeExecution / allowGoogleSearch declare Gemini's built-ins; LJ10 (server-side parts not
        # sent back) and LJ4 (thought signatures dropped) then show
        ("gemini/code-execution-beside-call", {"roundtrip/call-lost", "roundtrip/opaque-dropped"}),
        ("gemini/server-tool-beside-call", {"roundtrip/call-lost", "roundtrip/opaque-dropped"}),
        # an MCP toolset as a server tool, its mcp_servers as customParameters; LJ6: mcp_tool_use is dropped
        ("anthropic-messages/mcp-tool-listing", {"roundtrip/call-lost"}),
        # allowed_callers as tool metadata (toolMetadataKeysToSend); LJ6: `caller` is dropped
        ("anthropic-messages/programmatic-tool-calling", {"roundtrip/call-lost", "roundtrip/opaque-dropped"}),
    ],
)
def test_langchain4j_declares_the_server_tools_of_the_case(
    langchain4j: HarnessAdapter, corpus: Corpus, scenario_id: str, codes: set[str]
) -> None:
    outcome, summary, found = verdict(langchain4j, corpus, scenario_id)
    assert outcome == "fail", summary
    assert found == codes


def test_langchain4j_passes_gemini_code_execution(langchain4j: HarnessAdapter, corpus: Corpus) -> None:
    outcome, summary, _ = verdict(langchain4j, corpus, "gemini/recorded/openinference-adk-code-execution")
    assert outcome == "pass", summary


def test_langchain4j_still_declares_the_tools_the_provider_runs(langchain4j: HarnessAdapter, corpus: Corpus) -> None:
    """LJ7: hosted tools (web and file search, code interpreter) stay declared and their items judged."""
    outcome, summary, _ = verdict(langchain4j, corpus, "openai-responses/hosted-tools-in-history")
    assert outcome == "fail" and "roundtrip/call-lost" in summary, summary


# --- conversations continued: restored histories, hand-offs across providers, sessions ---------------

CONTINUED = [
    # a history restored from storage: the saved messages in the ChatMemory / the prompt's prior messages
    "openai-chat/recorded/openllmetry-chat-tool-calls-history",
    # hand-offs: the first leg on Anthropic, the same messages continued on OpenAI and on Gemini
    "openai-chat/from-anthropic",
    "gemini/from-anthropic",
    # a session of three runs on one conversation, each run's request judged
    "openai-chat/session-memory-window",
]


@pytest.mark.parametrize("scenario_id", CONTINUED)
def test_langchain4j_continues_conversations(langchain4j: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(langchain4j, corpus, scenario_id)
    assert outcome == "pass", summary
    assert {"history", "sessions", "handoffs"} <= langchain4j.continues


@pytest.mark.parametrize("scenario_id", [*CONTINUED, "anthropic-messages/session-repair-interrupted"])
def test_spring_ai_continues_conversations(spring_ai: HarnessAdapter, corpus: Corpus, scenario_id: str) -> None:
    outcome, summary, _ = verdict(spring_ai, corpus, scenario_id)
    assert outcome == "pass", summary
    assert {"history", "sessions", "handoffs"} <= spring_ai.continues


@pytest.mark.parametrize(
    "scenario_id", ["gemini/recorded/otel-vertexai-tool-events", "gemini/recorded/otel-vertexai-function-call-choice"]
)
def test_langchain4j_declares_a_tool_with_gemini_property_ordering(
    langchain4j: HarnessAdapter, corpus: Corpus, scenario_id: str
) -> None:
    """Gemini's `propertyOrdering` is left out of the declared schema, as `title` is: LangChain4j reads a
    schema with a keyword it has no field for as a raw schema, which a tool cannot take."""
    outcome, summary, _ = verdict(langchain4j, corpus, scenario_id)
    assert outcome == "pass", summary


def test_langchain4j_keeps_a_call_cut_off_in_the_memory(langchain4j: HarnessAdapter, corpus: Corpus) -> None:
    """LJ11: the run's AiMessage is in the ChatMemory before its call runs; cut off there, the next run
    sends the call with no result, which Anthropic refuses."""
    outcome, summary, found = verdict(langchain4j, corpus, "anthropic-messages/session-repair-interrupted")
    assert outcome == "fail", summary
    assert found == {"pairing/missing-result"}


@pytest.mark.parametrize("harness", ["langchain4j", "spring_ai"])
def test_a_gemini_history_without_ids_cannot_go_on_to_anthropic(
    harness: str, request: pytest.FixtureRequest, corpus: Corpus
) -> None:
    """LJ12, S7: the Gemini modules keep a call served without an id id-less (LangChain4j: null) or
    give every call "" (Spring AI); continued on Anthropic, calls and results cannot be paired."""
    outcome, summary, found = verdict(request.getfixturevalue(harness), corpus, "anthropic-messages/from-gemini-idless")
    assert outcome == "fail", summary
    assert {"pairing/missing-result", "pairing/orphan-result"} <= found


def test_langchain4j_sends_back_the_thinking_before_a_call(langchain4j: HarnessAdapter, corpus: Corpus) -> None:
    """The recording enabled extended thinking; configured as it was (thinkingType, thinkingBudgetTokens) with
    returnThinking, the AiMessage keeps the thinking block and its signature, and sendThinking (on by default)
    sends them back before the tool_use, as Anthropic requires."""
    outcome, summary, _ = verdict(langchain4j, corpus, "anthropic-messages/recorded/mirascope-resume-on-gemini")
    assert outcome == "pass", summary


def test_spring_ai_drops_the_thinking_before_a_call(spring_ai: HarnessAdapter, corpus: Corpus) -> None:
    """S10: asked for thinking as the recording did (AnthropicChatOptions.thinking), the thinking block is read
    into a Generation of its own, its signature a property, and buildMessages writes an AssistantMessage's text
    and tool calls only."""
    outcome, summary, found = verdict(spring_ai, corpus, "anthropic-messages/recorded/mirascope-resume-on-gemini")
    assert outcome == "fail", summary
    assert found == {"roundtrip/opaque-dropped"}
