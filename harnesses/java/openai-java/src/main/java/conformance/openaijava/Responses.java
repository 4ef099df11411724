package conformance.openaijava;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.helpers.ResponseAccumulator;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseInputItem;
import com.openai.models.responses.ResponseOutputItem;
import com.openai.models.responses.ResponseStreamEvent;
import conformance.kit.Case;
import conformance.kit.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The function-calling example's loop on the Responses API (ResponsesFunctionCallingExample): the
 * conversation is a list of input items sent whole each turn; every output item goes back into it as
 * returned (read as the SDK's ResponseInputItem), then an output item under each call's call_id. A
 * stream is folded by the SDK's ResponseAccumulator. Client-side built-in calls (computer, shell,
 * apply-patch, client tool search, MCP approval) are answered as OpenAI's tool guides build their
 * outputs. A restored conversation is the saved input items read as ResponseInputItem; each run of a
 * session appends its user message and runs the loop on the same list.
 */
final class Responses {
    private static final Set<String> MANAGED = Set.of("model", "input", "tools", "stream", "previous_response_id");

    private final OpenAIClient client;
    private final Case c;
    private final List<ResponseInputItem> input = new ArrayList<>();
    private final List<com.openai.models.responses.Tool> tools = new ArrayList<>();

    Responses(OpenAIClient client, Case c) throws IOException {
        this.client = client;
        this.c = c;
        input.addAll(Sdk.readAll(c.historyWire(), ResponseInputItem.class));
        for (conformance.kit.Tool tool : c.tools()) {
            ObjectNode json = Json.MAPPER.createObjectNode();
            json.put("type", tool.custom() ? "custom" : "function").put("name", tool.name())
                    .put("description", tool.description());
            if (!tool.custom()) {
                json.set("parameters", tool.parameters());
            }
            tools.add(Sdk.read(json, com.openai.models.responses.Tool.class));
        }
        // The recording's other tools (hosted tools the server runs, built-ins the client answers) go as recorded.
        for (JsonNode recorded : c.recordedTools()) {
            String type = recorded.path("type").asText("");
            if (!type.equals("function") && !type.equals("custom")) {
                tools.add(Sdk.read(recorded, com.openai.models.responses.Tool.class));
            }
        }
    }

    String run() throws Exception {
        String answer = "";
        for (String prompt : c.runs()) {
            if (prompt != null) {
                ObjectNode message = Json.MAPPER.createObjectNode().put("type", "message").put("role", "user")
                        .put("content", prompt);
                input.add(Sdk.read(message, ResponseInputItem.class));
            }
            answer = runOnce();
        }
        return answer;
    }

    private String runOnce() throws Exception {
        boolean consented = false;
        for (int turn = 0; turn < Main.MAX_TURNS; turn++) {
            Response response = turn();
            List<ResponseInputItem> outputs = new ArrayList<>();
            for (ResponseOutputItem item : response.output()) {
                JsonNode answer = answer(Sdk.tree(item));
                if (answer != null) {
                    outputs.add(Sdk.read(answer, ResponseInputItem.class));
                }
            }
            if (outputs.isEmpty() && "azure-foundry".equals(c.api()) && !consented && asksConsent(response)) {
                // Foundry's OAuth identity passthrough answers with a consent link; once the user has
                // signed in there, the application sends the same request again.
                consented = true;
                continue;
            }
            for (ResponseOutputItem item : response.output()) {
                input.add(Sdk.read(Sdk.tree(item), ResponseInputItem.class));
            }
            if (outputs.isEmpty()) {
                return text(response);
            }
            input.addAll(outputs);
        }
        throw new IllegalStateException("the model still called tools after " + Main.MAX_TURNS + " turns");
    }

    private Response turn() {
        ResponseCreateParams.Builder params = ResponseCreateParams.builder().model(c.model()).inputOfResponse(input);
        if (!tools.isEmpty()) {
            params.tools(tools);
        }
        Sdk.settings(c, MANAGED, params::putAdditionalBodyProperty, params::putAdditionalHeader,
                params::putAdditionalQueryParam);
        if (!c.stream()) {
            return client.responses().create(params.build());
        }
        ResponseAccumulator accumulator = ResponseAccumulator.create();
        try (StreamResponse<ResponseStreamEvent> stream = client.responses().createStreaming(params.build())) {
            stream.stream().forEach(accumulator::accumulate);
        }
        return accumulator.response();
    }

    /**
     * What an application sends back for one client-side output item, as OpenAI's tool guides build
     * it: function and custom calls run under their name; computer, shell, apply-patch and client
     * tool-search calls under their type with their action, operation or arguments; an MCP approval
     * request is answered as the approval tool says. Server-side items need no answer (null).
     */
    private JsonNode answer(JsonNode item) {
        String type = item.path("type").asText("");
        String callId = item.path("call_id").asText(null);
        ObjectNode answer = Json.MAPPER.createObjectNode();
        switch (type) {
            case "function_call" -> answer.put("type", "function_call_output").put("call_id", callId)
                    .put("output", c.callTool(item.path("name").asText(), item.path("arguments").asText(), callId));
            case "custom_tool_call" -> answer.put("type", "custom_tool_call_output").put("call_id", callId)
                    .put("output", c.callTool(item.path("name").asText(),
                            Json.MAPPER.createObjectNode().put("input", item.path("input").asText()), callId));
            case "computer_call" -> {
                answer.put("type", "computer_call_output").put("call_id", callId)
                        .set("output", parsed(c.callTool(type, item.path("action"), callId)));
                if (item.path("pending_safety_checks").size() > 0) {
                    answer.set("acknowledged_safety_checks", item.path("pending_safety_checks"));
                }
            }
            // The output item names the call in `id`: the local shell call's call_id.
            case "local_shell_call" -> answer.put("type", "local_shell_call_output").put("id", callId)
                    .put("output", c.callTool(type, item.path("action"), callId));
            case "shell_call" -> {
                answer.put("type", "shell_call_output").put("call_id", callId)
                        .set("output", parsed(c.callTool(type, item.path("action"), callId)));
                if (!item.path("action").path("max_output_length").isMissingNode()) {
                    answer.set("max_output_length", item.path("action").path("max_output_length"));
                }
            }
            case "apply_patch_call" -> answer.put("type", "apply_patch_call_output").put("call_id", callId)
                    .put("status", "completed").put("output", c.callTool(type, item.path("operation"), callId));
            case "tool_search_call" -> {
                if (!"client".equals(item.path("execution").asText())) {
                    return null;
                }
                answer.put("type", "tool_search_output").put("call_id", callId).put("execution", "client")
                        .set("tools", parsed(c.callTool(type, item.path("arguments"), callId)));
            }
            case "mcp_approval_request" -> answer.put("type", "mcp_approval_response")
                    .put("approval_request_id", item.path("id").asText())
                    .put("approve", "true".equals(c.callTool(item.path("name").asText(),
                            item.path("arguments").asText(), callId)));
            default -> {
                return null;
            }
        }
        return answer;
    }

    private static JsonNode parsed(String output) {
        try {
            return Json.MAPPER.readTree(output);
        } catch (IOException notJson) {
            return Json.MAPPER.getNodeFactory().textNode(output);
        }
    }

    private static boolean asksConsent(Response response) throws IOException {
        for (ResponseOutputItem item : response.output()) {
            if ("oauth_consent_request".equals(Sdk.tree(item).path("type").asText())) {
                return true;
            }
        }
        return false;
    }

    private static String text(Response response) {
        StringBuilder text = new StringBuilder();
        for (ResponseOutputItem item : response.output()) {
            item.message().ifPresent(message -> message.content().forEach(
                    content -> content.outputText().ifPresent(out -> text.append(out.text()))));
        }
        return text.toString();
    }
}
