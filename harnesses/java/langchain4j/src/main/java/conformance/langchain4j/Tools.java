package conformance.langchain4j;

import com.fasterxml.jackson.core.type.TypeReference;
import conformance.kit.Case;
import conformance.kit.Json;
import conformance.kit.Tool;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.internal.JsonSchemaElementJsonUtils;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.service.tool.ToolExecutor;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The case's tools as LangChain4j's dynamic tools: a ToolSpecification from the JSON Schema (through
 * LangChain4j's own schema reader) and a ToolExecutor that asks the replay for the output.
 */
final class Tools {
    /** The tool metadata the Anthropic models send as fields of the tool (`toolMetadataKeysToSend`). */
    static final String ANTHROPIC_METADATA = "allowed_callers";

    private Tools() {}

    static Map<ToolSpecification, ToolExecutor> of(Case c) {
        Map<ToolSpecification, ToolExecutor> tools = new LinkedHashMap<>();
        for (Tool tool : c.tools()) {
            ToolSpecification.Builder spec = ToolSpecification.builder().name(tool.name());
            if (!tool.description().isEmpty()) {
                spec.description(tool.description());
            }
            spec.parameters(parameters(tool));
            if (!tool.allowedCallers().isEmpty()) {
                // Anthropic programmatic tool calling: sent as the tool's own field by the Anthropic models.
                spec.addMetadata(ANTHROPIC_METADATA, tool.allowedCallers());
            }
            tools.put(spec.build(), (request, memoryId) -> c.callTool(request.name(), request.arguments(), request.id()));
        }
        return tools;
    }

    private static JsonObjectSchema parameters(Tool tool) {
        Map<String, Object> schema = Json.MAPPER.convertValue(tool.parameters(), new TypeReference<Map<String, Object>>() {});
        // LangChain4j's schema elements have no `title` (an annotation, which validates nothing): a
        // schema with titles (Pydantic writes one on every field) is read as raw schemas, which a tool
        // cannot take at the top and the Gemini module cannot map below it. An application declaring
        // such a tool writes it without them, and without Gemini's `propertyOrdering` (an ordering
        // hint of Gemini's Schema, which LangChain4j's elements have no field for either).
        JsonSchemaElement element = JsonSchemaElementJsonUtils.fromMap(withoutTitles(schema));
        if (element instanceof JsonObjectSchema object) {
            return object;
        }
        throw new IllegalArgumentException("tool " + tool.name() + ": LangChain4j reads its parameters as "
                + element.getClass().getSimpleName() + ", not an object schema");
    }

    /** The schema without its `title` annotations, at every level where a schema stands. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> withoutTitles(Map<String, Object> schema) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> entry : schema.entrySet()) {
            String key = entry.getKey();
            Object value = entry.getValue();
            if ((key.equals("title") && value instanceof String)
                    || (key.equals("propertyOrdering") && value instanceof java.util.List<?>)) {
                continue;
            }
            if ((key.equals("properties") || key.equals("$defs") || key.equals("definitions")) && value instanceof Map<?, ?> named) {
                Map<String, Object> each = new LinkedHashMap<>();
                named.forEach((name, sub) -> each.put(String.valueOf(name),
                        sub instanceof Map<?, ?> m ? withoutTitles((Map<String, Object>) m) : sub));
                value = each;
            } else if ((key.equals("items") || key.equals("additionalProperties")) && value instanceof Map<?, ?> m) {
                value = withoutTitles((Map<String, Object>) m);
            } else if ((key.equals("anyOf") || key.equals("oneOf") || key.equals("allOf")) && value instanceof java.util.List<?> list) {
                value = list.stream().map(sub -> sub instanceof Map<?, ?> m ? withoutTitles((Map<String, Object>) m) : sub).toList();
            }
            out.put(key, value);
        }
        return out;
    }
}
