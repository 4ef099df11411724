package conformance.springai;

import conformance.kit.Case;
import conformance.kit.RunInterrupted;
import conformance.kit.Skipped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.ToolCallback;

/**
 * A conversation continued (docs/harness.md, "Restored histories and sessions"): the saved messages
 * handed to a ChatClient prompt as its prior messages, each run of the session a prompt on the same
 * conversation (its user message, when it has one, after them), and what the run returns kept for
 * the next, as a ChatMemory advisor keeps it: the user message and the final assistant message.
 * A hand-off's first leg runs on its own chat model through Spring AI's user-controlled tool
 * execution (internal tool execution off, ToolCallingManager running the calls) for the leg's
 * steps, and its conversation history is continued on the case's model: Spring AI's messages are
 * provider-neutral.
 */
final class Continued {
    private Continued() {}

    static boolean applies(Case c) {
        return c.history().size() > 0 || c.runs().size() > 1 || c.runs().get(0) == null || c.legs().size() > 0;
    }

    static String run(Case c) throws Exception {
        List<Case> legs = c.legCases();
        // A hand-off's legs replay the turns the history holds: the history is loaded only without them.
        List<Message> conversation = new ArrayList<>(legs.isEmpty() ? History.messages(c.history()) : List.of());
        if (!legs.isEmpty()) {
            conversation.add(new UserMessage(c.prompt()));
            for (int i = 0; i < legs.size(); i++) {
                Case leg = legs.get(i);
                if (!Models.APIS.contains(leg.api())) {
                    throw new Skipped("the conversation begins on " + leg.api() + ": "
                            + Models.UNSUPPORTED.getOrDefault(leg.api(), "Spring AI does not serve it"));
                }
                conversation = firstLeg(leg, c.legSteps(i), conversation);
            }
        }
        ChatClient client = ChatClient.create(Models.chatModel(c));
        List<ToolCallback> tools = Tools.of(c);
        String output = "";
        for (String prompt : c.runs()) {
            ChatClient.ChatClientRequestSpec request = client.prompt().messages(conversation).toolCallbacks(tools);
            if (prompt != null) {
                request = request.user(prompt);
                conversation.add(new UserMessage(prompt));
            }
            try {
                output = c.stream() ? streamed(request) : request.call().content();
            } catch (RuntimeException e) {
                // A run cut off in a tool returns nothing to keep; the next run continues without it.
                if (interruption(e) == null) {
                    throw e;
                }
                continue;
            }
            conversation.add(new AssistantMessage(output == null ? "" : output));
        }
        return output;
    }

    private static String streamed(ChatClient.ChatClientRequestSpec request) {
        List<String> parts = request.stream().content().collectList().block(Duration.ofSeconds(55));
        return parts == null ? "" : parts.stream().collect(Collectors.joining());
    }

    /** The leg's model responses, each one's calls run by the ToolCallingManager, for {@code steps} responses. */
    private static List<Message> firstLeg(Case leg, int steps, List<Message> conversation) {
        ChatModel model = Models.chatModel(leg);
        ToolCallingManager manager = ToolCallingManager.builder().build();
        ToolCallingChatOptions options = ToolCallingChatOptions.builder()
                .toolCallbacks(Tools.of(leg)).internalToolExecutionEnabled(false).build();
        List<Message> messages = conversation;
        for (int step = 0; step < steps; step++) {
            Prompt prompt = new Prompt(messages, options);
            ChatResponse response = model.call(prompt);
            if (response == null || !response.hasToolCalls()) {
                messages = new ArrayList<>(messages);
                if (response != null && response.getResult() != null) {
                    messages.add(response.getResult().getOutput());
                }
                return messages;
            }
            messages = new ArrayList<>(manager.executeToolCalls(prompt, response).conversationHistory());
        }
        return messages;
    }

    private static RunInterrupted interruption(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof RunInterrupted interrupted) {
                return interrupted;
            }
        }
        return null;
    }
}
