package conformance.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The toolCall / toolOutput exchange with the replay server (docs/harness.md, "Tool outputs"). */
public final class ToolCalls {
    // Plain HTTP/1.1 to loopback: the JDK client would otherwise try an h2c upgrade on every call.
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    private ToolCalls() {}

    public static String call(String toolsUrl, String name, Object arguments, String callId)
            throws IOException, InterruptedException {
        ObjectNode body = Json.MAPPER.createObjectNode();
        body.put("name", name);
        body.set("arguments", asArguments(arguments));
        if (callId == null) {
            body.putNull("call_id");
        } else {
            body.put("call_id", callId);
        }
        HttpRequest request = HttpRequest.newBuilder(URI.create(toolsUrl))
                .timeout(Duration.ofSeconds(30))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.MAPPER.writeValueAsString(body)))
                .build();
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("the replay's tool endpoint answered HTTP " + response.statusCode() + ": "
                    + abbreviate(response.body()));
        }
        JsonNode answered = Json.MAPPER.readTree(response.body());
        if (answered.path("interrupted").isTextual()) {
            throw new RunInterrupted(answered.path("interrupted").asText());
        }
        JsonNode output = answered.get("output");
        if (output == null || !output.isTextual()) {
            throw new IOException("the replay's tool endpoint answered no output: " + abbreviate(response.body()));
        }
        return output.asText();
    }

    /** Arguments as JSON: JSON text is parsed (kept as a string when it is not JSON), anything else converted. */
    static JsonNode asArguments(Object arguments) {
        if (arguments == null) {
            return Json.MAPPER.createObjectNode();
        }
        if (arguments instanceof JsonNode node) {
            return node;
        }
        if (arguments instanceof String text) {
            try {
                return Json.MAPPER.readTree(text.isBlank() ? "{}" : text);
            } catch (IOException notJson) {
                return Json.MAPPER.getNodeFactory().textNode(text);
            }
        }
        return Json.MAPPER.valueToTree(arguments);
    }

    private static String abbreviate(String text) {
        return text.length() > 300 ? text.substring(0, 300) + "..." : text;
    }
}
