package conformance.openaijava;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.core.JsonValue;
import com.openai.core.ObjectMappers;
import conformance.kit.Case;
import conformance.kit.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/** JSON the case carries, read as the SDK's own types by the SDK's own mapper. */
final class Sdk {
    private Sdk() {}

    static <T> T read(Object json, Class<T> type) throws IOException {
        String text = json instanceof String s ? s : Json.MAPPER.writeValueAsString(json);
        return ObjectMappers.jsonMapper().readValue(text, type);
    }

    static <T> List<T> readAll(JsonNode array, Class<T> type) throws IOException {
        List<T> items = new ArrayList<>();
        for (JsonNode item : array) {
            items.add(read(item, type));
        }
        return items;
    }

    /** An SDK object as plain JSON (maps, lists, strings), the way it goes over the wire. */
    static JsonNode tree(Object sdkObject) throws IOException {
        return Json.MAPPER.readTree(ObjectMappers.jsonMapper().writeValueAsString(sdkObject));
    }

    static JsonValue value(JsonNode node) {
        return JsonValue.from(Json.MAPPER.convertValue(node, Object.class));
    }

    /**
     * The recorded request's settings the SDK lets a caller set on each request: body fields beside
     * the conversation (additional body properties), headers and query parameters.
     */
    static void settings(Case c, Set<String> managed, BiConsumer<String, JsonValue> body,
            BiConsumer<String, String> header, BiConsumer<String, String> query) {
        for (Iterator<Map.Entry<String, JsonNode>> it = c.settings().path("body").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            if (!managed.contains(field.getKey())) {
                body.accept(field.getKey(), value(field.getValue()));
            }
        }
        c.settings().path("headers").fields().forEachRemaining(h -> header.accept(h.getKey(), h.getValue().asText()));
        c.settings().path("query").fields().forEachRemaining(q -> query.accept(q.getKey(), q.getValue().asText()));
    }
}
