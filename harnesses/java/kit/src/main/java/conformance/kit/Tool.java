package conformance.kit;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/**
 * A client-side tool of the case. {@code parameters} is the function tool's JSON Schema (an empty
 * object schema where the case gives none); {@code custom} marks a free-form text tool;
 * {@code allowedCallers} who besides the model may call it (Anthropic programmatic tool calling),
 * declared as given (empty where the case names none).
 */
public record Tool(String name, String description, JsonNode parameters, boolean custom, List<String> allowedCallers) {
    public Tool(String name, String description, JsonNode parameters, boolean custom) {
        this(name, description, parameters, custom, List.of());
    }
}
