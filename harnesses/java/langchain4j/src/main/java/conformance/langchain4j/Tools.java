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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The case's tools as LangChain4j's dynamic tools: a ToolSpecification from the JSON Schema (through
 * LangChain4j's own schema reader) and a ToolExecutor that asks the replay for the output.
 */
final class Tools {
    private Tools() {}

    static Map<ToolSpecification, ToolExecutor> of(Case c) {
        Map<ToolSpecification, ToolExecutor> tools = new LinkedHashMap<>();
        for (Tool tool : c.tools()) {
            ToolSpecification.Builder spec = ToolSpecification.builder().name(tool.name());
            if (!tool.description().isEmpty()) {
                spec.description(tool.description());
            }
            spec.parameters(parameters(tool));
            tools.put(spec.build(), (request, memoryId) -> {
                try {
                    return c.callTool(request.name(), request.arguments(), request.id());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            });
        }
        return tools;
    }

    private static JsonObjectSchema parameters(Tool tool) {
        Map<String, Object> schema = Json.MAPPER.convertValue(tool.parameters(), new TypeReference<Map<String, Object>>() {});
        JsonSchemaElement element = JsonSchemaElementJsonUtils.fromMap(schema);
        if (element instanceof JsonObjectSchema object) {
            return object;
        }
        throw new IllegalArgumentException("tool " + tool.name() + ": LangChain4j reads its parameters as "
                + element.getClass().getSimpleName() + ", not an object schema");
    }
}
