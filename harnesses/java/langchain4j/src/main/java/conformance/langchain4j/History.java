package conformance.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import conformance.kit.Json;
import conformance.kit.Skipped;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * A restored history as LangChain4j's ChatMessages, the provider-neutral messages a ChatMemory keeps
 * (what a ChatMemoryStore saves and loads), so that a conversation begun on another provider is
 * continued here by whichever model the next request goes to.
 */
final class History {
    private History() {}

    static List<ChatMessage> messages(JsonNode history) {
        List<ChatMessage> messages = new ArrayList<>();
        for (JsonNode message : history) {
            String role = message.path("role").asText();
            JsonNode parts = message.path("parts");
            switch (role) {
                case "user" -> messages.add(UserMessage.from(text(parts)));
                case "system" -> messages.add(SystemMessage.from(text(parts)));
                case "assistant" -> messages.add(assistant(parts));
                case "tool" -> {
                    for (JsonNode part : parts) {
                        messages.add(ToolExecutionResultMessage.from(
                                id(part), part.path("name").asText(""), part.path("output").asText("")));
                    }
                }
                default -> throw new IllegalArgumentException("history: a message with role " + role);
            }
        }
        return messages;
    }

    private static AiMessage assistant(JsonNode parts) {
        List<ToolExecutionRequest> calls = new ArrayList<>();
        for (JsonNode part : parts) {
            if (!"tool_call".equals(part.path("type").asText())) {
                continue;
            }
            if (part.path("provider_executed").asBoolean(false)) {
                throw new Skipped("LangChain4j's AiMessage has no provider-executed (server) tool call: a ToolExecutionRequest"
                        + " is always a call the application runs, so the saved "
                        + part.path("name").asText() + " call cannot be restored");
            }
            calls.add(ToolExecutionRequest.builder()
                    .id(id(part))
                    .name(part.path("name").asText())
                    .arguments(json(part.path("arguments")))
                    .build());
        }
        String text = text(parts);
        return AiMessage.builder().text(text.isEmpty() ? null : text).toolExecutionRequests(calls).build();
    }

    private static String text(JsonNode parts) {
        StringBuilder text = new StringBuilder();
        for (JsonNode part : parts) {
            if ("text".equals(part.path("type").asText())) {
                text.append(part.path("text").asText(""));
            }
        }
        return text.toString();
    }

    /** The call's id as saved; a call saved without one (Gemini before ids) has none here either. */
    private static String id(JsonNode part) {
        JsonNode id = part.path("call_id");
        return id.isTextual() ? id.asText() : null;
    }

    private static String json(JsonNode arguments) {
        try {
            return Json.MAPPER.writeValueAsString(arguments.isMissingNode() || arguments.isNull()
                    ? Json.MAPPER.createObjectNode() : arguments);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
