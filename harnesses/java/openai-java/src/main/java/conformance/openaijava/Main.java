package conformance.openaijava;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import conformance.kit.Case;
import conformance.kit.Harness;
import conformance.kit.Implementation;
import conformance.kit.Protocol;
import conformance.kit.Skipped;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The openai-java harness. The SDK has no tool runner of its own: each case runs the loop its README
 * and examples write, on Chat Completions or on the Responses API, against the replay server.
 */
public final class Main implements Harness {
    static final List<String> CHAT_APIS = List.of("openai-chat", "kimi-chat");
    static final List<String> RESPONSES_APIS = List.of("openai-responses", "azure-foundry", "openresponses");
    /** The loop gives up after this many model turns, so a loop that never stops ends in a verdict. */
    static final int MAX_TURNS = 12;

    public static void main(String[] args) throws Exception {
        Protocol.serve(new Main());
    }

    @Override
    public Implementation implementation() {
        String version = com.openai.core.Properties.getPackageVersion();
        Map<String, String> libraries = new LinkedHashMap<>();
        libraries.put("com.openai:openai-java", version);
        Map<String, String> unsupported = new LinkedHashMap<>();
        for (String api : List.of("anthropic-messages", "gemini", "bedrock-converse", "ollama-chat", "cohere-v2")) {
            unsupported.put(api, "openai-java speaks OpenAI's APIs only");
        }
        unsupported.put("mistral-chat", "Mistral documents its own SDKs, not the OpenAI client, for its chat API");
        List<String> apis = new java.util.ArrayList<>(CHAT_APIS);
        apis.addAll(RESPONSES_APIS);
        return new Implementation("openai-java", version, libraries, List.copyOf(apis), unsupported,
                "https://github.com/openai/openai-java", List.of("history", "sessions"));
    }

    @Override
    public String run(Case c) throws Exception {
        boolean chat = CHAT_APIS.contains(c.api());
        if (!chat && !RESPONSES_APIS.contains(c.api())) {
            throw new Skipped("openai-java has no client for " + c.api());
        }
        List<String> sameForm = chat ? CHAT_APIS : RESPONSES_APIS;
        if (c.historyApi() != null && c.history().size() > 0 && !sameForm.contains(c.historyApi())) {
            throw new Skipped("openai-java takes a history in its own API's wire form only; one saved from "
                    + c.historyApi() + " is the application's to translate");
        }
        if (c.interrupted().size() > 0) {
            throw new Skipped("openai-java keeps no conversation of its own: a run cut off before its tool "
                    + "answered leaves the application's message list to repair");
        }
        OpenAIClient client = OpenAIOkHttpClient.builder()
                .baseUrl(c.baseUrl()).apiKey(c.apiKey()).maxRetries(0).build();
        try {
            return chat ? new Chat(client, c).run() : new Responses(client, c).run();
        } finally {
            client.close();
        }
    }
}
