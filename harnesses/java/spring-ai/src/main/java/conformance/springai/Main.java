package conformance.springai;

import conformance.kit.Case;
import conformance.kit.Harness;
import conformance.kit.Implementation;
import conformance.kit.Protocol;
import conformance.kit.Skipped;
import conformance.kit.Versions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.ai.chat.client.ChatClient;

/**
 * The Spring AI harness: each case runs through a ChatClient whose chat model executes the tools
 * itself (the default ToolCallingManager), Spring AI's own tool loop.
 */
public final class Main implements Harness {
    static final String GROUP = "org.springframework.ai";

    public static void main(String[] args) throws Exception {
        Protocol.serve(new Main());
    }

    @Override
    public Implementation implementation() {
        Map<String, String> libraries = new LinkedHashMap<>();
        for (String module : List.of("spring-ai-client-chat", "spring-ai-model", "spring-ai-openai", "spring-ai-anthropic",
                "spring-ai-google-genai", "spring-ai-ollama", "spring-ai-mistral-ai", "spring-ai-bedrock-converse")) {
            libraries.put(GROUP + ":" + module, Versions.of(GROUP, module));
        }
        libraries.put("org.springframework:spring-web", org.springframework.core.SpringVersion.getVersion());
        libraries.put("com.google.genai:google-genai", Versions.of("com.google.genai", "google-genai"));
        libraries.put("software.amazon.awssdk:bedrockruntime", Versions.of("software.amazon.awssdk", "bedrockruntime"));
        return new Implementation("spring-ai", Versions.of(GROUP, "spring-ai-client-chat"), libraries,
                Models.APIS, Models.UNSUPPORTED, "https://spring.io/projects/spring-ai",
                List.of("history", "sessions", "handoffs"));
    }

    @Override
    public String run(Case c) throws Exception {
        if (c.tools().stream().anyMatch(tool -> tool.custom())) {
            throw new Skipped("Spring AI has no free-form (custom) tools: a ToolDefinition always has a JSON input schema");
        }
        String undeclarable = Models.undeclarable(c);
        if (undeclarable != null) {
            throw new Skipped(undeclarable);
        }
        if (Continued.applies(c)) {
            return Continued.run(c);
        }
        ChatClient.ChatClientRequestSpec request = ChatClient.create(Models.chatModel(c))
                .prompt()
                .user(c.prompt())
                .toolCallbacks(Tools.of(c));
        if (!c.stream()) {
            return request.call().content();
        }
        List<String> parts = request.stream().content().collectList().block(Duration.ofSeconds(55));
        return parts == null ? "" : parts.stream().collect(Collectors.joining());
    }
}
