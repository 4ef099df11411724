package example;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import conformance.kit.Case;
import conformance.kit.Harness;
import conformance.kit.Implementation;
import conformance.kit.Json;
import conformance.kit.Protocol;
import conformance.kit.Skipped;
import conformance.kit.Tool;
import conformance.kit.Versions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

/**
 * A harness as an adapter author writes it in their own repository, against the Java kit by its
 * coordinates (docs/harness.md, "A harness in your own repository"). Its "library" is the OpenAI Chat
 * Completions tool loop below; yours is the library you ship.
 */
public final class Main implements Harness {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    public static void main(String[] args) throws Exception {
        Protocol.serve(new Main());
    }

    @Override
    public Implementation implementation() {
        return new Implementation("example-java", "0.0.0",
                Map.of("conformance.harness:kit", Versions.of("conformance.harness", "kit")),
                List.of("openai-chat"), Map.of(), "https://example.com");
    }

    @Override
    public String run(Case c) throws Exception {
        if (c.stream()) {
            throw new Skipped("this example asks for whole responses only");
        }
        ArrayNode tools = Json.MAPPER.createArrayNode();
        for (Tool tool : c.tools()) {
            if (tool.custom()) {
                throw new Skipped("this example declares function tools only");
            }
            ObjectNode function = tools.addObject().put("type", "function").putObject("function");
            function.put("name", tool.name()).put("description", tool.description()).set("parameters", tool.parameters());
        }
        ArrayNode messages = Json.MAPPER.createArrayNode();
        String last = "";
        for (String prompt : c.runs()) {
            if (prompt != null) {
                messages.addObject().put("role", "user").put("content", prompt);
            }
            for (int turn = 0; turn < 8; turn++) {
                JsonNode message = complete(c, messages, tools);
                messages.add(message);
                JsonNode calls = message.path("tool_calls");
                if (!calls.isArray() || calls.isEmpty()) {
                    last = message.path("content").asText("");
                    break;
                }
                for (JsonNode call : calls) {
                    String output = c.callTool(call.path("function").path("name").asText(),
                            call.path("function").path("arguments").asText(), call.path("id").asText());
                    messages.addObject().put("role", "tool").put("tool_call_id", call.path("id").asText())
                            .put("content", output);
                }
            }
        }
        return last;
    }

    private static JsonNode complete(Case c, ArrayNode messages, ArrayNode tools) throws Exception {
        ObjectNode body = Json.MAPPER.createObjectNode().put("model", c.model());
        body.set("messages", messages);
        body.set("tools", tools);
        HttpRequest request = HttpRequest.newBuilder(URI.create(c.baseUrl() + "/chat/completions"))
                .header("content-type", "application/json")
                .header("authorization", "Bearer " + c.apiKey())
                .POST(HttpRequest.BodyPublishers.ofString(Json.MAPPER.writeValueAsString(body)))
                .build();
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("HTTP " + response.statusCode() + ": " + response.body());
        }
        return Json.MAPPER.readTree(response.body()).path("choices").path(0).path("message");
    }
}
