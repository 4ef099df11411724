package conformance.springai;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.genai.Client;
import com.google.genai.types.HttpOptions;
import conformance.kit.Case;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.anthropic.AnthropicChatOptions;
import org.springframework.ai.anthropic.api.AnthropicApi;
import org.springframework.ai.bedrock.converse.BedrockChatOptions;
import org.springframework.ai.bedrock.converse.BedrockProxyChatModel;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.google.genai.GoogleGenAiChatModel;
import org.springframework.ai.google.genai.GoogleGenAiChatOptions;
import org.springframework.ai.mistralai.MistralAiChatModel;
import org.springframework.ai.mistralai.MistralAiChatOptions;
import org.springframework.ai.mistralai.api.MistralAiApi;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.ollama.api.OllamaApi;
import org.springframework.ai.ollama.api.OllamaChatOptions;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.openai.api.OpenAiApi;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.retry.support.RetryTemplate;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeAsyncClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;

/**
 * Spring AI's chat model for each of the suite's APIs, built directly from its API client, pointed at
 * the case's base URL as each module documents it, with retries off (a retried request would be
 * judged as a turn).
 */
final class Models {
    static final List<String> APIS = List.of("openai-chat", "anthropic-messages", "gemini", "bedrock-converse",
            "mistral-chat", "kimi-chat", "ollama-chat");
    static final Map<String, String> UNSUPPORTED = Map.of(
            "openai-responses", "Spring AI 1.1's OpenAI module speaks Chat Completions only (no Responses API)",
            "azure-foundry", "the Foundry cases are Responses API conversations; Spring AI 1.1 has no Responses API client",
            "openresponses", "Spring AI 1.1 has no Responses API client",
            "cohere-v2", "Spring AI has no Cohere chat model");

    private static final Duration TIMEOUT = Duration.ofSeconds(50);

    private Models() {}

    static ChatModel chatModel(Case c) {
        return switch (c.api()) {
            case "openai-chat", "kimi-chat" -> OpenAiChatModel.builder()
                    .openAiApi(OpenAiApi.builder()
                            // The base URL carries the version (`.../v1`), so the documented
                            // completions path for an OpenAI-compatible server is relative to it.
                            .baseUrl(c.baseUrl()).completionsPath("/chat/completions").apiKey(c.apiKey())
                            .restClientBuilder(rest()).webClientBuilder(web()).build())
                    .defaultOptions(OpenAiChatOptions.builder().model(c.model()).build())
                    .retryTemplate(noRetry()).build();
            case "anthropic-messages" -> {
                AnthropicApi.Builder api = AnthropicApi.builder().baseUrl(c.baseUrl()).apiKey(c.apiKey())
                        .restClientBuilder(rest()).webClientBuilder(web());
                if (c.header("anthropic-beta") != null) {
                    api.anthropicBetaFeatures(c.header("anthropic-beta"));
                }
                yield AnthropicChatModel.builder().anthropicApi(api.build())
                        .defaultOptions(anthropicOptions(c))
                        .retryTemplate(noRetry()).build();
            }
            case "gemini" -> {
                HttpOptions.Builder http = HttpOptions.builder().baseUrl(c.baseUrl());
                String version = c.settings().path("api_version").asText("");
                if (!version.isEmpty() && !"null".equals(version)) {
                    http.apiVersion(version);
                }
                Client client = Client.builder().apiKey(c.apiKey()).vertexAI(false).httpOptions(http.build()).build();
                yield GoogleGenAiChatModel.builder().genAiClient(client)
                        .defaultOptions(GoogleGenAiChatOptions.builder().model(c.model())
                                .googleSearchRetrieval(serverToolTypes(c).contains("google_search")).build())
                        .retryTemplate(noRetry()).build();
            }
            case "mistral-chat" -> MistralAiChatModel.builder()
                    // MistralAiApi adds `/v1/chat/completions` to a base URL without the version.
                    .mistralAiApi(MistralAiApi.builder().baseUrl(withoutVersion(c.baseUrl())).apiKey(c.apiKey())
                            .restClientBuilder(rest()).webClientBuilder(web()).build())
                    .defaultOptions(MistralAiChatOptions.builder().model(c.model()).build())
                    .retryTemplate(noRetry()).build();
            case "ollama-chat" -> OllamaChatModel.builder()
                    .ollamaApi(OllamaApi.builder().baseUrl(c.baseUrl())
                            .restClientBuilder(rest()).webClientBuilder(web()).build())
                    .defaultOptions(OllamaChatOptions.builder().model(c.model()).build())
                    .retryTemplate(noRetry()).build();
            case "bedrock-converse" -> BedrockProxyChatModel.builder()
                    .bedrockRuntimeClient(BedrockRuntimeClient.builder()
                            .endpointOverride(URI.create(c.baseUrl())).region(Region.US_EAST_1)
                            .credentialsProvider(credentials()).build())
                    .bedrockRuntimeAsyncClient(BedrockRuntimeAsyncClient.builder()
                            .endpointOverride(URI.create(c.baseUrl())).region(Region.US_EAST_1)
                            .credentialsProvider(credentials())
                            // ConverseStream is HTTP/1.1 event-stream framing; the replay speaks no h2c.
                            .httpClientBuilder(NettyNioAsyncHttpClient.builder().protocol(Protocol.HTTP1_1))
                            .build())
                    .defaultOptions(BedrockChatOptions.builder().model(c.model()).build())
                    .build();
            default -> throw new IllegalArgumentException("no Spring AI chat model for " + c.api());
        };
    }

    /**
     * Why Spring AI cannot declare what the case's request must declare, or null. Its Anthropic model's
     * request tools are the ToolDefinitions' alone (AnthropicChatModel.getFunctionTools), each an
     * AnthropicApi.Tool of type, name, description, input_schema and cache_control; its Gemini model adds
     * one built-in, Google Search (GoogleGenAiChatOptions.googleSearchRetrieval).
     */
    static String undeclarable(Case c) {
        List<String> types = serverToolTypes(c);
        if ("anthropic-messages".equals(c.api())) {
            if (!types.isEmpty()) {
                return "Spring AI's AnthropicChatModel declares function tools only (the ToolDefinitions, through "
                        + "getFunctionTools; AnthropicChatOptions has no server tools): it cannot declare "
                        + String.join(", ", types);
            }
            for (conformance.kit.Tool tool : c.tools()) {
                if (!tool.allowedCallers().isEmpty()) {
                    return "Spring AI cannot declare allowed_callers on the tool '" + tool.name()
                            + "': an AnthropicApi.Tool has type, name, description, input_schema and cache_control only";
                }
            }
            if (c.body("mcp_servers").isArray()) {
                return "Spring AI's AnthropicChatOptions has no mcp_servers: the recording's MCP servers cannot be declared";
            }
        }
        if ("gemini".equals(c.api())) {
            List<String> other = types.stream().filter(type -> !"google_search".equals(type)).toList();
            if (!other.isEmpty()) {
                return "Spring AI's GoogleGenAiChatModel declares function declarations and Google Search only "
                        + "(GoogleGenAiChatOptions.googleSearchRetrieval): it cannot declare the Gemini built-in "
                        + String.join(", ", other);
            }
        }
        return null;
    }

    /** The types of the case's server tools, in order. */
    private static List<String> serverToolTypes(Case c) {
        List<String> types = new java.util.ArrayList<>();
        c.serverTools().forEach(tool -> types.add(tool.path("type").asText("")));
        return types;
    }

    // Spring's JDK-based HTTP clients, on HTTP/1.1: the replay is plain HTTP and answers no h2c upgrade.
    private static HttpClient jdk() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    }

    private static RestClient.Builder rest() {
        JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(jdk());
        factory.setReadTimeout(TIMEOUT);
        return RestClient.builder().requestFactory(factory);
    }

    private static WebClient.Builder web() {
        return WebClient.builder().clientConnector(new JdkClientHttpConnector(jdk()));
    }

    private static RetryTemplate noRetry() {
        return RetryTemplate.builder().maxAttempts(1).build();
    }

    private static StaticCredentialsProvider credentials() {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create("conformance", "conformance-replay-key"));
    }

    private static String withoutVersion(String url) {
        String base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        return base.endsWith("/v1") ? base.substring(0, base.length() - 3) : base;
    }

    /**
     * The model, and the recording's extended thinking ({@code thinking: {type: enabled, budget_tokens}}) as
     * {@code AnthropicChatOptions.thinking} takes it, with the recorded {@code max_tokens} (Anthropic refuses a
     * budget that is not below it): an application that asks for thinking, as the recording did. No thinking
     * when the recording asked for none.
     */
    static AnthropicChatOptions anthropicOptions(Case c) {
        AnthropicChatOptions.Builder options = AnthropicChatOptions.builder().model(c.model());
        JsonNode thinking = c.body("thinking");
        if ("enabled".equals(thinking.path("type").asText(""))) {
            JsonNode budget = thinking.path("budget_tokens");
            options.thinking(AnthropicApi.ThinkingType.ENABLED, budget.isInt() ? budget.asInt() : null);
            JsonNode maxTokens = c.body("max_tokens");
            if (maxTokens.isInt()) {
                options.maxTokens(maxTokens.asInt());
            }
        }
        return options.build();
    }
}
