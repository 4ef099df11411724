package conformance.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** One `run` command's case (docs/harness.md): where the scenario is served and what to ask. */
public record Case(
        String id,
        String api,
        String baseUrl,
        String apiKey,
        String model,
        String prompt,
        boolean stream,
        List<Tool> tools,
        JsonNode recordedTools,
        JsonNode settings,
        String toolsUrl,
        JsonNode serverTools,
        JsonNode history,
        String historyApi,
        JsonNode historyWire,
        List<String> runs,
        JsonNode interrupted,
        JsonNode legs) {

    static Case from(JsonNode node) {
        List<Tool> tools = new ArrayList<>();
        for (JsonNode tool : node.path("tools")) {
            JsonNode parameters = tool.get("parameters");
            if (parameters == null || !parameters.isObject()) {
                parameters = JsonNodeFactory.instance.objectNode().put("type", "object");
            }
            List<String> callers = new ArrayList<>();
            for (JsonNode caller : tool.path("allowed_callers")) {
                callers.add(caller.asText());
            }
            tools.add(new Tool(
                    tool.path("name").asText(),
                    tool.path("description").asText(""),
                    parameters,
                    "custom".equals(tool.path("type").asText()),
                    List.copyOf(callers)));
        }
        // Each run's user message; null where the run continues the history without one. A case
        // without runs is one run of its prompt.
        List<String> runs = new ArrayList<>();
        for (JsonNode run : node.path("runs")) {
            runs.add(run.isNull() ? null : run.asText());
        }
        if (runs.isEmpty()) {
            runs.add(required(node, "prompt"));
        }
        JsonNode historyApi = node.path("history_api");
        return new Case(
                required(node, "id"),
                required(node, "api"),
                required(node, "base_url"),
                required(node, "api_key"),
                required(node, "model"),
                required(node, "prompt"),
                node.path("stream").asBoolean(false),
                List.copyOf(tools),
                node.path("recorded_tools"),
                node.path("settings"),
                required(node, "tools_url"),
                node.path("server_tools"),
                node.path("history"),
                historyApi.isTextual() ? historyApi.asText() : null,
                node.path("history_wire"),
                java.util.Collections.unmodifiableList(runs),
                node.path("interrupted"),
                node.path("legs"));
    }

    /**
     * The first legs of a hand-off across providers (docs/harness.md), each as a case of its own: the
     * leg's API, model, base URL, tools URL, streaming and settings in place of the case's, with no
     * history, runs or legs. Empty for a conversation that begins on the case's own API.
     */
    public List<Case> legCases() {
        List<Case> cases = new ArrayList<>();
        for (JsonNode leg : legs) {
            cases.add(new Case(id, required(leg, "api"), required(leg, "base_url"), apiKey, required(leg, "model"),
                    prompt, leg.path("stream").asBoolean(false), tools, leg.path("recorded_tools"),
                    leg.path("settings"), required(leg, "tools_url"),
                    JsonNodeFactory.instance.arrayNode(), JsonNodeFactory.instance.arrayNode(), null,
                    JsonNodeFactory.instance.arrayNode(), List.of(prompt), JsonNodeFactory.instance.arrayNode(),
                    JsonNodeFactory.instance.arrayNode()));
        }
        return List.copyOf(cases);
    }

    /** How many model responses a first leg runs (its `steps`), by its index in {@link #legCases()}. */
    public int legSteps(int index) {
        return legs.path(index).path("steps").asInt(1);
    }

    private static String required(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException("case." + field + " is missing or not a string");
        }
        return value.asText();
    }

    /** A recorded setting of the first request: {@code settings.body.<field>}, or a missing node. */
    public JsonNode body(String field) {
        return settings.path("body").path(field);
    }

    /** A recorded protocol header ({@code anthropic-beta}, ...), or null. */
    public String header(String name) {
        JsonNode value = settings.path("headers").get(name);
        return value == null || value.isNull() ? null : value.asText();
    }

    /**
     * A tool's output, asked of the replay server: what a tool implementation returns when the
     * library calls it. {@code arguments} is what the library parsed (a map, a JSON node or JSON text).
     *
     * <p>Unchecked, since a library's tool interface (a lambda, a callback) rarely lets a checked
     * exception through: a failed exchange is an {@link java.io.UncheckedIOException}, a run the case
     * cuts off one whose cause is {@link RunInterrupted} (see {@link RunInterrupted#in(Throwable)}).
     */
    public String callTool(String name, Object arguments, String callId) {
        try {
            return ToolCalls.call(toolsUrl, name, arguments, callId);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the replay answered " + name, e);
        }
    }
}
