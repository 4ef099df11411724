package conformance.langchain4j;

import conformance.kit.Case;
import conformance.kit.Harness;
import conformance.kit.Implementation;
import conformance.kit.Protocol;
import conformance.kit.Skipped;
import conformance.kit.Versions;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.TokenStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The LangChain4j harness: each case runs through an AiServices assistant, LangChain4j's own tool loop. */
public final class Main implements Harness {
    static final String GROUP = "dev.langchain4j";
    private static final int ROUND_TRIPS = 12;

    interface Assistant {
        String chat(String userMessage);
    }

    interface StreamingAssistant {
        TokenStream chat(String userMessage);
    }

    public static void main(String[] args) throws Exception {
        Protocol.serve(new Main());
    }

    @Override
    public Implementation implementation() {
        Map<String, String> libraries = new LinkedHashMap<>();
        for (String module : List.of("langchain4j", "langchain4j-core", "langchain4j-open-ai", "langchain4j-anthropic",
                "langchain4j-google-ai-gemini", "langchain4j-ollama", "langchain4j-mistral-ai", "langchain4j-bedrock")) {
            libraries.put(GROUP + ":" + module, Versions.of(GROUP, module));
        }
        libraries.put("software.amazon.awssdk:bedrockruntime", Versions.of("software.amazon.awssdk", "bedrockruntime"));
        return new Implementation("langchain4j", Versions.of(GROUP, "langchain4j"), libraries,
                Models.APIS, Models.UNSUPPORTED, "https://docs.langchain4j.dev",
                List.of("history", "sessions", "handoffs"));
    }

    @Override
    public String run(Case c) throws Exception {
        if (c.tools().stream().anyMatch(tool -> tool.custom())) {
            throw new Skipped("LangChain4j has no free-form (custom) tools: a ToolSpecification always has JSON parameters");
        }
        String clientRun = Models.clientRunToolReason(c);
        if (clientRun != null) {
            throw new Skipped(clientRun);
        }
        if (Continued.applies(c)) {
            return Continued.run(c, ROUND_TRIPS);
        }
        MessageWindowChatMemory memory = MessageWindowChatMemory.withMaxMessages(100);
        if (!c.stream()) {
            Assistant assistant = AiServices.builder(Assistant.class)
                    .chatModel(Models.chatModel(c))
                    .chatMemory(memory)
                    .tools(Tools.of(c))
                    .maxToolCallingRoundTrips(ROUND_TRIPS)
                    .build();
            return assistant.chat(c.prompt());
        }
        StreamingAssistant assistant = AiServices.builder(StreamingAssistant.class)
                .streamingChatModel(Models.streamingChatModel(c))
                .chatMemory(memory)
                .tools(Tools.of(c))
                .maxToolCallingRoundTrips(ROUND_TRIPS)
                .build();
        return StreamRun.run(assistant.chat(c.prompt()));
    }
}
