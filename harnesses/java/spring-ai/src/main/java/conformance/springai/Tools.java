package conformance.springai;

import conformance.kit.Case;
import conformance.kit.Json;
import conformance.kit.Tool;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * The case's tools as Spring AI tool callbacks: a ToolDefinition carrying the case's JSON Schema as
 * its input schema, and a call that asks the replay for the output. Spring AI hands a callback the
 * arguments only, never the call's id, so the replay is told no id.
 */
final class Tools {
    private Tools() {}

    static List<ToolCallback> of(Case c) {
        List<ToolCallback> callbacks = new ArrayList<>();
        for (Tool tool : c.tools()) {
            ToolDefinition definition = ToolDefinition.builder()
                    .name(tool.name())
                    .description(tool.description().isEmpty() ? tool.name() : tool.description())
                    .inputSchema(json(tool))
                    .build();
            callbacks.add(new ToolCallback() {
                @Override
                public ToolDefinition getToolDefinition() {
                    return definition;
                }

                @Override
                public String call(String toolInput) {
                    return c.callTool(definition.name(), toolInput, null);
                }
            });
        }
        return callbacks;
    }

    private static String json(Tool tool) {
        try {
            return Json.MAPPER.writeValueAsString(tool.parameters());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
