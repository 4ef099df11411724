package conformance.kit;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A client-side tool of the case. {@code parameters} is the function tool's JSON Schema (an empty
 * object schema where the case gives none); {@code custom} marks a free-form text tool.
 */
public record Tool(String name, String description, JsonNode parameters, boolean custom) {}
