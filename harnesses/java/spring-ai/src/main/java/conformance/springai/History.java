package conformance.springai;

import com.fasterxml.jackson.databind.JsonNode;
import conformance.kit.Json;
import conformance.kit.Skipped;
import java.util.ArrayList;
import java.util.List;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

/**
 * A restored history as Spring AI's Messages, the provider-neutral messages a ChatMemory keeps and a
 * ChatClient prompt takes, so that a conversation begun on another provider continues on this one.
 */
final class History {
    private History() {}

    static List<Message> messages(JsonNode history) {
        List<Message> messages = new ArrayList<>();
        for (JsonNode message : history) {
            String role = message.path("role").asText();
            JsonNode parts = message.path("parts");
            switch (role) {
                case "user" -> messages.add(new UserMessage(text(parts)));
                case "system" -> messages.add(new SystemMessage(text(parts)));
                case "assistant" -> messages.add(assistant(parts));
                case "tool" -> {
                    List<ToolResponseMessage.ToolResponse> responses = new ArrayList<>();
                    for (JsonNode part : parts) {
                        responses.add(new ToolResponseMessage.ToolResponse(
                                id(part), part.path("name").asText(""), part.path("output").asText("")));
                    }
                    messages.add(ToolResponseMessage.builder().responses(responses).build());
                }
                default -> throw new IllegalArgumentException("history: a message with role " + role);
            }
        }
        return messages;
    }

    private static AssistantMessage assistant(JsonNode parts) {
        List<AssistantMessage.ToolCall> calls = new ArrayList<>();
        for (JsonNode part : parts) {
            if (!"tool_call".equals(part.path("type").asText())) {
                continue;
            }
            if (part.path("provider_executed").asBoolean(false)) {
                throw new Skipped("Spring AI's AssistantMessage has no provider-executed (server) tool call: a ToolCall is"
                        + " always one the application runs, so the saved " + part.path("name").asText()
                        + " call cannot be restored");
            }
            calls.add(new AssistantMessage.ToolCall(id(part), "function", part.path("name").asText(), json(part.path("arguments"))));
        }
        return AssistantMessage.builder().content(text(parts)).toolCalls(calls).build();
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

    /** The call's id as saved; Spring AI's ToolCall and ToolResponse ids are strings, "" for a call saved without one. */
    private static String id(JsonNode part) {
        JsonNode id = part.path("call_id");
        return id.isTextual() ? id.asText() : "";
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
