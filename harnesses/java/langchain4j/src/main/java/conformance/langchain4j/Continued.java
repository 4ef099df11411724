package conformance.langchain4j;

import conformance.kit.Case;
import conformance.kit.RunInterrupted;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.tool.ToolErrorHandlerResult;
import dev.langchain4j.service.tool.ToolExecutor;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A conversation continued (docs/harness.md, "Restored histories and sessions"): the saved messages
 * loaded into the ChatMemory an AiServices assistant keeps, each run of the session played on that
 * memory. AiServices sends a user message with every call (a method without one is refused), so a
 * run that continues the history without a message of its own, and each first leg of a hand-off, is
 * played through LangChain4j's low-level ChatModel API on the same memory: the model's response, its
 * calls run by the same tools, until it answers in text. A hand-off switches the model, not the
 * memory: LangChain4j's messages are provider-neutral.
 */
final class Continued {
    private static final int MEMORY = 200;
    private static final long LIMIT_SECONDS = 55;

    private Continued() {}

    static boolean applies(Case c) {
        return c.history().size() > 0 || c.runs().size() > 1 || c.runs().get(0) == null || c.legs().size() > 0;
    }

    static String run(Case c, int roundTrips) throws Exception {
        ChatMemory memory = MessageWindowChatMemory.withMaxMessages(MEMORY);
        List<Case> legs = c.legCases();
        // A hand-off's legs replay the turns the history holds: the history is loaded only without them.
        if (legs.isEmpty()) {
            History.messages(c.history()).forEach(memory::add);
        } else {
            memory.add(UserMessage.from(c.prompt()));
            for (int i = 0; i < legs.size(); i++) {
                Case leg = legs.get(i);
                if (!Models.APIS.contains(leg.api())) {
                    throw new conformance.kit.Skipped("the conversation begins on " + leg.api() + ": "
                            + Models.UNSUPPORTED.getOrDefault(leg.api(), "LangChain4j does not serve it"));
                }
                respond(leg, memory, Tools.of(leg), c.legSteps(i));
            }
        }
        Map<ToolSpecification, ToolExecutor> tools = Tools.of(c);
        Main.Assistant assistant = null;
        Main.StreamingAssistant streaming = null;
        String output = "";
        for (String prompt : c.runs()) {
            try {
                if (prompt == null) {
                    output = respond(c, memory, tools, roundTrips);
                } else if (c.stream()) {
                    if (streaming == null) {
                        streaming = AiServices.builder(Main.StreamingAssistant.class)
                                .streamingChatModel(Models.streamingChatModel(c)).chatMemory(memory).tools(tools)
                                .toolExecutionErrorHandler(Continued::interrupting)
                                .maxToolCallingRoundTrips(roundTrips).build();
                    }
                    output = StreamRun.run(streaming.chat(prompt));
                } else {
                    if (assistant == null) {
                        assistant = AiServices.builder(Main.Assistant.class)
                                .chatModel(Models.chatModel(c)).chatMemory(memory).tools(tools)
                                .toolExecutionErrorHandler(Continued::interrupting)
                                .maxToolCallingRoundTrips(roundTrips).build();
                    }
                    output = assistant.chat(prompt);
                }
            } catch (Exception e) {
                // A run cut off in a tool ends there; the session's next run continues the same memory.
                if (interruption(e) == null) {
                    throw e;
                }
            }
        }
        return output;
    }

    /**
     * Model responses on the memory's conversation through the ChatModel API, each call run and its
     * result added, until the model answers in text or {@code limit} responses have been run.
     */
    private static String respond(Case c, ChatMemory memory, Map<ToolSpecification, ToolExecutor> tools, int limit)
            throws Exception {
        List<ToolSpecification> specifications = new ArrayList<>(tools.keySet());
        dev.langchain4j.model.chat.ChatModel model = c.stream() ? null : Models.chatModel(c);
        StreamingChatModel streaming = c.stream() ? Models.streamingChatModel(c) : null;
        String text = "";
        for (int step = 0; step < limit; step++) {
            ChatRequest request = ChatRequest.builder().messages(memory.messages()).toolSpecifications(specifications).build();
            AiMessage reply = model != null ? model.chat(request).aiMessage() : streamed(streaming, request);
            memory.add(reply);
            text = reply.text() == null ? "" : reply.text();
            if (!reply.hasToolExecutionRequests()) {
                return text;
            }
            for (ToolExecutionRequest call : reply.toolExecutionRequests()) {
                ToolExecutor executor = tools.entrySet().stream()
                        .filter(entry -> entry.getKey().name().equals(call.name()))
                        .map(Map.Entry::getValue).findFirst()
                        .orElseThrow(() -> new IllegalStateException("the model called an undeclared tool " + call.name()));
                memory.add(ToolExecutionResultMessage.from(call, executor.execute(call, "default")));
            }
        }
        return text;
    }

    private static AiMessage streamed(StreamingChatModel model, ChatRequest request) throws Exception {
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        model.chat(request, new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String partial) {}

            @Override
            public void onCompleteResponse(ChatResponse response) {
                done.complete(response);
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }
        });
        try {
            return done.get(LIMIT_SECONDS, TimeUnit.SECONDS).aiMessage();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    /** AiServices' tool error handler: a cut-off run ends the run; any other error is told to the model, as by default. */
    private static ToolErrorHandlerResult interrupting(Throwable error, dev.langchain4j.service.tool.ToolErrorContext context) {
        RunInterrupted interrupted = interruption(error);
        if (interrupted != null) {
            throw new UncheckedIOException(interrupted);
        }
        return ToolErrorHandlerResult.text(error.getMessage());
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
