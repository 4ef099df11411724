package conformance.anthropicjava;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.core.ObjectMappers;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.helpers.BetaMessageThread;
import com.anthropic.helpers.BetaRunnableTool;
import com.anthropic.helpers.BetaToolRunner;
import com.anthropic.models.beta.messages.BetaMessage;
import com.anthropic.models.beta.messages.BetaMessageParam;
import com.anthropic.models.beta.messages.BetaRawMessageStreamEvent;
import com.anthropic.models.beta.messages.BetaTool;
import com.anthropic.models.beta.messages.BetaToolResultBlockParam;
import com.anthropic.models.beta.messages.BetaToolUnion;
import com.anthropic.models.beta.messages.MessageCreateParams;
import com.anthropic.models.beta.messages.ThreadCreateParams;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import conformance.kit.Case;
import conformance.kit.Harness;
import conformance.kit.Implementation;
import conformance.kit.Json;
import conformance.kit.Protocol;
import conformance.kit.Skipped;
import conformance.kit.Tool;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The anthropic-java harness: the SDK's tool runner ({@code client.beta().messages().toolRunner}) over
 * the case's tools, each a BetaRunnableTool, against the replay server. By default the runner keeps
 * the conversation in a message thread the server holds and sends only the new messages.
 */
public final class Main implements Harness {
    /** The longest recorded conversation has fewer turns; a loop that runs on fails the case. */
    private static final long MAX_ITERATIONS = 12;
    private static final long MAX_TOKENS = 1024;
    /** Body fields that are the conversation itself (the runner sends its own), or set on their own. */
    private static final Set<String> CONVERSATION = Set.of("model", "messages", "tools", "stream", "max_tokens");
    private static final String ONLY_ANTHROPIC = "anthropic-java speaks the Anthropic Messages API only";

    public static void main(String[] args) throws Exception {
        Protocol.serve(new Main());
    }

    @Override
    public Implementation implementation() {
        String version = com.anthropic.core.Properties.getPackageVersion();
        Map<String, String> unsupported = new LinkedHashMap<>();
        for (String api : List.of("openai-chat", "openai-responses", "azure-foundry", "openresponses", "gemini",
                "bedrock-converse", "mistral-chat", "kimi-chat", "ollama-chat", "cohere-v2")) {
            unsupported.put(api, ONLY_ANTHROPIC);
        }
        return new Implementation("anthropic-java", version, Map.of("com.anthropic:anthropic-java", version),
                List.of("anthropic-messages"), unsupported, "https://github.com/anthropics/anthropic-sdk-java",
                List.of("history", "sessions"));
    }

    @Override
    public String run(Case c) throws Exception {
        if (!"anthropic-messages".equals(c.api())) {
            throw new Skipped(ONLY_ANTHROPIC);
        }
        if (c.history().size() > 0 && !"anthropic-messages".equals(c.historyApi())) {
            throw new Skipped("anthropic-java keeps a conversation as Messages API messages only: it has no form "
                    + "for a conversation begun on " + c.historyApi() + ", and no way to continue one on another provider");
        }
        if (c.interrupted().size() > 0 && c.stream()) {
            throw new Skipped("the tool runner answers a tool that throws with an is_error result and goes on "
                    + "(BetaToolRunner.runTool, com/anthropic/helpers/BetaToolRunner.kt:944), and its streaming "
                    + "iterator gives a reply's events, not the reply, to stop on: a streamed run cannot be cut off "
                    + "before its tool answers");
        }
        for (Tool tool : c.tools()) {
            if (tool.custom()) {
                throw new Skipped("the Messages API has no custom (free-form) tools; anthropic-java cannot declare '"
                        + tool.name() + "'");
            }
        }
        AnthropicClient client = AnthropicOkHttpClient.builder()
                .baseUrl(c.baseUrl()).apiKey(c.apiKey()).maxRetries(0).build();
        try {
            if (c.history().size() > 0 || c.runs().size() > 1) {
                return continued(client, c);
            }
            MessageCreateParams.Builder params = MessageCreateParams.builder()
                    .model(c.model()).maxTokens(maxTokens(c)).addUserMessage(c.prompt());
            configure(c, new Params() {
                public void add(BetaRunnableTool tool) { params.addTool(tool); }
                public void add(BetaToolUnion tool) { params.addTool(tool); }
                public void body(String key, JsonValue value) { params.putAdditionalBodyProperty(key, value); }
                public void header(String name, String value) { params.putAdditionalHeader(name, value); }
            });
            BetaToolRunner runner = client.beta().messages().toolRunner(
                    com.anthropic.models.beta.messages.ToolRunnerCreateParams.builder()
                            .initialMessageParams(params.build()).maxIterations(MAX_ITERATIONS).build());
            return drain(runner, c.stream());
        } finally {
            client.close();
        }
    }

    /**
     * A restored conversation, or a session of several runs: the SDK's message thread
     * ({@code client.beta().messages().thread}) begun with the saved messages; each run's user message
     * is appended to it and a tool runner runs over the thread, whose replies and tool results become
     * part of its history.
     */
    private static String continued(AnthropicClient client, Case c) throws IOException {
        List<BetaMessageParam> history = new ArrayList<>();
        for (JsonNode message : c.historyWire()) {
            history.add(read(message, BetaMessageParam.class));
        }
        ThreadCreateParams.Builder params = ThreadCreateParams.builder()
                .model(c.model()).maxTokens(maxTokens(c)).messages(history);
        configure(c, new Params() {
            public void add(BetaRunnableTool tool) { params.addTool(tool); }
            public void add(BetaToolUnion tool) { params.addTool(tool); }
            public void body(String key, JsonValue value) { params.putAdditionalBodyProperty(key, value); }
            public void header(String name, String value) { params.putAdditionalHeader(name, value); }
        });
        BetaMessageThread thread = client.beta().messages().thread(params.build());
        // The tools a run is cut off in (the user cancelled, the process died): the iteration over the
        // runner is left on the reply that calls one, before the runner runs its tools, as an
        // application that stops a run does; the reply stays in the thread for the next run.
        Set<String> cutOff = new HashSet<>();
        c.interrupted().forEach(call -> cutOff.add(call.path("name").asText()));
        String answer = "";
        for (String prompt : c.runs()) {
            if (prompt != null) {
                thread.append(BetaMessageParam.ofUser(prompt));
            }
            answer = drain(thread.toolRunner(runner -> runner.maxIterations(MAX_ITERATIONS)), c.stream(), cutOff);
        }
        return answer;
    }

    /** Runs the runner to its end (streamed when the case streams), returning its last reply's text. */
    private static String drain(BetaToolRunner runner, boolean stream) {
        return drain(runner, stream, new HashSet<>());
    }

    /** As above, leaving the iteration on a reply that calls a tool of {@code cutOff} (each once). */
    private static String drain(BetaToolRunner runner, boolean stream, Set<String> cutOff) {
        StringBuilder text = new StringBuilder();
        if (!stream) {
            for (BetaMessage message : runner) {
                text.setLength(0);
                message.content().forEach(block -> block.text().ifPresent(t -> text.append(t.text())));
                boolean cut = message.content().stream()
                        .anyMatch(block -> block.toolUse().map(use -> cutOff.remove(use.name())).orElse(false));
                if (cut) {
                    break;
                }
            }
            return text.toString();
        }
        for (StreamResponse<BetaRawMessageStreamEvent> response : runner.streaming()) {
            text.setLength(0);
            response.stream().forEach(event -> event.contentBlockDelta()
                    .flatMap(delta -> delta.delta().text())
                    .ifPresent(delta -> text.append(delta.text())));
        }
        return text.toString();
    }

    /** The two builders (a runner's first request, a thread's) share what the case sets on them. */
    private interface Params {
        void add(BetaRunnableTool tool);

        void add(BetaToolUnion tool);

        void body(String key, JsonValue value);

        void header(String name, String value);
    }

    /**
     * The case's tools as BetaRunnableTools (a BetaTool read from the case's schema, with its
     * allowed_callers; its run asks the replay for the output: the runner hands it the input only), the
     * recording's server tools as recorded (every tool that is not a runnable one goes to the API
     * unchanged), the recorded body fields beside the conversation, and the recorded anthropic-beta.
     */
    private static void configure(Case c, Params params) throws IOException {
        Set<String> declared = new HashSet<>();
        for (Tool tool : c.tools()) {
            ObjectNode json = Json.MAPPER.createObjectNode().put("name", tool.name());
            if (!tool.description().isEmpty()) {
                json.put("description", tool.description());
            }
            ObjectNode schema = Json.MAPPER.createObjectNode().put("type", "object");
            schema.setAll((ObjectNode) tool.parameters());
            json.set("input_schema", schema);
            if (!tool.allowedCallers().isEmpty()) {
                json.set("allowed_callers", Json.MAPPER.valueToTree(tool.allowedCallers()));
            }
            String name = tool.name();
            params.add(BetaRunnableTool.of(read(json, BetaTool.class),
                    input -> BetaToolResultBlockParam.Content.ofString(c.callTool(name, input, null))));
            declared.add(name);
        }
        for (JsonNode recorded : c.recordedTools()) {
            if (recorded.has("input_schema") || declared.contains(recorded.path("name").asText(""))) {
                continue;
            }
            params.add(read(recorded, BetaToolUnion.class));
        }
        for (var it = c.settings().path("body").fields(); it.hasNext(); ) {
            var field = it.next();
            if (!CONVERSATION.contains(field.getKey())) {
                params.body(field.getKey(), JsonValue.from(Json.MAPPER.convertValue(field.getValue(), Object.class)));
            }
        }
        String beta = c.header("anthropic-beta");
        if (beta != null) {
            params.header("anthropic-beta", beta);
        }
    }

    private static long maxTokens(Case c) {
        return c.body("max_tokens").asLong(MAX_TOKENS);
    }

    private static <T> T read(JsonNode json, Class<T> type) throws IOException {
        return ObjectMappers.jsonMapper().readValue(Json.MAPPER.writeValueAsString(json), type);
    }
}
