package conformance.langchain4j;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import conformance.kit.Case;
import conformance.kit.Json;
import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.anthropic.AnthropicServerTool;
import dev.langchain4j.model.anthropic.AnthropicStreamingChatModel;
import dev.langchain4j.model.bedrock.BedrockChatModel;
import dev.langchain4j.model.bedrock.BedrockChatRequestParameters;
import dev.langchain4j.model.bedrock.BedrockStreamingChatModel;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.googleai.GoogleAiGeminiChatModel;
import dev.langchain4j.model.googleai.GoogleAiGeminiStreamingChatModel;
import dev.langchain4j.model.mistralai.MistralAiChatModel;
import dev.langchain4j.model.mistralai.MistralAiStreamingChatModel;
import dev.langchain4j.model.ollama.OllamaChatModel;
import dev.langchain4j.model.ollama.OllamaStreamingChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiResponsesChatModel;
import dev.langchain4j.model.openai.OpenAiResponsesStreamingChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeAsyncClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;

/**
 * LangChain4j's chat model for each of the suite's APIs, pointed at the case's base URL the way each
 * module's builder documents it, with retries off (a retried request would be judged as a turn).
 */
final class Models {
    static final List<String> APIS = List.of("openai-chat", "openai-responses", "anthropic-messages", "gemini",
            "bedrock-converse", "mistral-chat", "kimi-chat", "ollama-chat", "azure-foundry", "openresponses");
    static final Map<String, String> UNSUPPORTED = Map.of("cohere-v2",
            "LangChain4j's Cohere module (langchain4j-cohere) has embedding and scoring models only, no chat model");

    private static final Duration TIMEOUT = Duration.ofSeconds(50);
    private static final Set<String> CLIENT_TOOL_TYPES = Set.of("function", "custom");
    private static final Set<String> RESPONSES_APIS = Set.of("openai-responses", "azure-foundry", "openresponses");
    // Built-in Responses tools whose calls the client must run (a computer action, a shell command, a patch).
    private static final Set<String> RESPONSES_CLIENT_RUN = Set.of("computer_use_preview", "local_shell", "shell",
            "apply_patch");

    private Models() {}

    static ChatModel chatModel(Case c) {
        return switch (c.api()) {
            case "openai-chat", "kimi-chat" -> OpenAiChatModel.builder()
                    .baseUrl(c.baseUrl()).apiKey(c.apiKey()).modelName(c.model())
                    .maxRetries(0).timeout(TIMEOUT).build();
            case "openai-responses", "azure-foundry", "openresponses" -> OpenAiResponsesChatModel.builder()
                    .baseUrl(c.baseUrl()).apiKey(c.apiKey()).modelName(c.model())
                    .serverTools(responsesServerTools(c)).build();
            case "anthropic-messages" -> {
                Thinking thinking = thinking(c);
                yield AnthropicChatModel.builder()
                        .baseUrl(anthropicBase(c)).apiKey(c.apiKey()).modelName(c.model())
                        .beta(c.header("anthropic-beta")).serverTools(anthropicServerTools(c))
                        .toolMetadataKeysToSend(Tools.ANTHROPIC_METADATA).customParameters(anthropicParameters(c))
                        .thinkingType(thinking.type()).thinkingBudgetTokens(thinking.budgetTokens())
                        .returnThinking(thinking.keep()).maxTokens(thinking.maxTokens())
                        .maxRetries(0).timeout(TIMEOUT).build();
            }
            case "gemini" -> GoogleAiGeminiChatModel.builder()
                    .baseUrl(geminiBase(c)).apiKey(c.apiKey()).modelName(c.model())
                    .allowCodeExecution(declares(c, "code_execution")).allowGoogleSearch(declares(c, "google_search"))
                    .allowUrlContext(declares(c, "url_context"))
                    .timeout(TIMEOUT).maxRetries(0).build();
            case "mistral-chat" -> MistralAiChatModel.builder()
                    .baseUrl(c.baseUrl()).apiKey(c.apiKey()).modelName(c.model())
                    .maxRetries(0).timeout(TIMEOUT).build();
            case "ollama-chat" -> OllamaChatModel.builder()
                    .baseUrl(c.baseUrl()).modelName(c.model()).timeout(TIMEOUT).maxRetries(0).build();
            case "bedrock-converse" -> BedrockChatModel.builder()
                    .client(BedrockRuntimeClient.builder()
                            .endpointOverride(URI.create(c.baseUrl()))
                            .region(Region.US_EAST_1)
                            .credentialsProvider(credentials())
                            .build())
                    .modelId(c.model()).maxRetries(0)
                    .defaultRequestParameters(bedrockParameters(c)).returnThinking(bedrockThinking(c)).build();
            default -> throw new IllegalArgumentException("no LangChain4j model for " + c.api());
        };
    }

    static StreamingChatModel streamingChatModel(Case c) {
        return switch (c.api()) {
            case "openai-chat", "kimi-chat" -> OpenAiStreamingChatModel.builder()
                    .baseUrl(c.baseUrl()).apiKey(c.apiKey()).modelName(c.model()).timeout(TIMEOUT).build();
            case "openai-responses", "azure-foundry", "openresponses" -> OpenAiResponsesStreamingChatModel.builder()
                    .baseUrl(c.baseUrl()).apiKey(c.apiKey()).modelName(c.model())
                    .serverTools(responsesServerTools(c)).build();
            case "anthropic-messages" -> {
                Thinking thinking = thinking(c);
                yield AnthropicStreamingChatModel.builder()
                        .baseUrl(anthropicBase(c)).apiKey(c.apiKey()).modelName(c.model())
                        .beta(c.header("anthropic-beta")).serverTools(anthropicServerTools(c))
                        .toolMetadataKeysToSend(Tools.ANTHROPIC_METADATA).customParameters(anthropicParameters(c))
                        .thinkingType(thinking.type()).thinkingBudgetTokens(thinking.budgetTokens())
                        .returnThinking(thinking.keep()).maxTokens(thinking.maxTokens())
                        .timeout(TIMEOUT).build();
            }
            case "gemini" -> GoogleAiGeminiStreamingChatModel.builder()
                    .baseUrl(geminiBase(c)).apiKey(c.apiKey()).modelName(c.model())
                    .allowCodeExecution(declares(c, "code_execution")).allowGoogleSearch(declares(c, "google_search"))
                    .allowUrlContext(declares(c, "url_context"))
                    .timeout(TIMEOUT).build();
            case "mistral-chat" -> MistralAiStreamingChatModel.builder()
                    .baseUrl(c.baseUrl()).apiKey(c.apiKey()).modelName(c.model()).timeout(TIMEOUT).build();
            case "ollama-chat" -> OllamaStreamingChatModel.builder()
                    .baseUrl(c.baseUrl()).modelName(c.model()).timeout(TIMEOUT).build();
            case "bedrock-converse" -> BedrockStreamingChatModel.builder()
                    .client(BedrockRuntimeAsyncClient.builder()
                            .endpointOverride(URI.create(c.baseUrl()))
                            .region(Region.US_EAST_1)
                            .credentialsProvider(credentials())
                            // ConverseStream is HTTP/1.1 event-stream framing; the replay speaks no h2c.
                            .httpClientBuilder(NettyNioAsyncHttpClient.builder().protocol(Protocol.HTTP1_1))
                            .build())
                    .modelId(c.model())
                    .defaultRequestParameters(bedrockParameters(c)).returnThinking(bedrockThinking(c)).build();
            default -> throw new IllegalArgumentException("no LangChain4j streaming model for " + c.api());
        };
    }

    /** The Anthropic modules append `messages` to a base that carries the API version (`.../v1/`). */
    private static String anthropicBase(Case c) {
        return stripSlash(c.baseUrl()) + "/v1/";
    }

    /** GeminiService appends `/models/{model}:generateContent` to a base that carries the API version. */
    private static String geminiBase(Case c) {
        String version = c.settings().path("api_version").asText("");
        return stripSlash(c.baseUrl()) + "/" + (version.isEmpty() || "null".equals(version) ? "v1beta" : version);
    }

    private static StaticCredentialsProvider credentials() {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create("conformance", "conformance-replay-key"));
    }

    /**
     * The recording's {@code additionalModelRequestFields} (Claude's {@code thinking} on Bedrock), passed as
     * LangChain4j's Bedrock request parameters take them; null, the model's defaults, when it sent none.
     */
    private static BedrockChatRequestParameters bedrockParameters(Case c) {
        JsonNode fields = c.body("additionalModelRequestFields");
        if (!fields.isObject()) {
            return null;
        }
        return BedrockChatRequestParameters.builder()
                .additionalModelRequestFields(
                        Json.MAPPER.convertValue(fields, new TypeReference<LinkedHashMap<String, Object>>() {}))
                .build();
    }

    /**
     * Whether the recording asked Claude on Bedrock to think: then {@code returnThinking} keeps each response's
     * reasoning text and signature in the AiMessage, which {@code sendThinking} (on by default) sends back as
     * its reasoningContent, as Bedrock requires of thinking with tools. Null (the default, off) otherwise.
     */
    private static Boolean bedrockThinking(Case c) {
        String type = c.body("additionalModelRequestFields").path("thinking").path("type").asText("");
        return type.isEmpty() || "disabled".equals(type) ? null : Boolean.TRUE;
    }

    /** Provider tools of the recording (web search, MCP, ...), passed through as LangChain4j's server tools. */
    private static List<Map<String, Object>> responsesServerTools(Case c) {
        List<Map<String, Object>> tools = new ArrayList<>();
        for (JsonNode tool : providerTools(c)) {
            tools.add(Json.MAPPER.convertValue(tool, new TypeReference<LinkedHashMap<String, Object>>() {}));
        }
        return tools;
    }

    private static List<AnthropicServerTool> anthropicServerTools(Case c) {
        List<AnthropicServerTool> tools = new ArrayList<>();
        for (JsonNode tool : providerTools(c)) {
            Map<String, Object> attributes = Json.MAPPER.convertValue(tool, new TypeReference<LinkedHashMap<String, Object>>() {});
            String type = String.valueOf(attributes.remove("type"));
            String name = (String) attributes.remove("name");
            tools.add(AnthropicServerTool.builder().type(type).name(name).attributes(attributes).build());
        }
        return tools;
    }

    /**
     * Why LangChain4j cannot play the case, when the recording declares a Responses built-in tool whose items
     * the client must answer: `serverTools` only declares a tool, and AiServices answers function calls only,
     * so the loop would end at the first such item with the call unanswered. Null when there is none.
     */
    static String clientRunToolReason(Case c) {
        if (!RESPONSES_APIS.contains(c.api())) {
            return null;
        }
        for (JsonNode tool : providerTools(c)) {
            String type = tool.path("type").asText("");
            boolean clientSearch = "tool_search".equals(type) && "client".equals(tool.path("execution").asText(""));
            if (RESPONSES_CLIENT_RUN.contains(type) || clientSearch) {
                return "LangChain4j cannot run the client-side items of the Responses built-in tool " + type
                        + ": serverTools only declares it, and AiServices runs function calls only";
            }
            if ("mcp".equals(type) && !"never".equals(tool.path("require_approval").asText("never"))) {
                return "LangChain4j has no way to answer a Responses MCP approval request";
            }
        }
        return null;
    }

    /**
     * The provider's tools to declare: the recorded request's tools that are neither function nor custom
     * tools (an Anthropic client tool has no type), then each of the case's server tools of a type not
     * recorded among them (an MCP toolset, which a recording declares beside its `mcp_servers`).
     */
    private static List<JsonNode> providerTools(Case c) {
        List<JsonNode> tools = new ArrayList<>();
        Set<String> types = new java.util.HashSet<>();
        for (JsonNode tool : c.recordedTools()) {
            String type = tool.path("type").asText("");
            if (!type.isEmpty() && !CLIENT_TOOL_TYPES.contains(type)) {
                tools.add(tool);
                types.add(type);
            }
        }
        for (JsonNode tool : c.serverTools()) {
            if (types.add(tool.path("type").asText(""))) {
                tools.add(tool);
            }
        }
        return tools;
    }

    /** Whether the case's server tools include a Gemini built-in of this type (`code_execution`, ...). */
    private static boolean declares(Case c, String type) {
        for (JsonNode tool : c.serverTools()) {
            if (type.equals(tool.path("type").asText(""))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Request fields beside the conversation that the recording sent and LangChain4j has no option of its
     * own for, as the model's `customParameters`: the MCP servers an `mcp_toolset` names.
     */
    private static Map<String, Object> anthropicParameters(Case c) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        JsonNode servers = c.body("mcp_servers");
        if (servers.isArray()) {
            parameters.put("mcp_servers", Json.MAPPER.convertValue(servers, new TypeReference<List<Object>>() {}));
        }
        return parameters;
    }

    /**
     * The recording's extended thinking ({@code thinking: {type, budget_tokens}}), as LangChain4j's Anthropic
     * models take it: {@code thinkingType} and {@code thinkingBudgetTokens} ask for it, and {@code returnThinking}
     * keeps each response's thinking and signature in the AiMessage, which {@code sendThinking} (on by default)
     * sends back before the tool_use, as Anthropic requires of thinking with tools. The recorded
     * {@code max_tokens} goes with it: Anthropic refuses a budget that is not below it. All null (the models'
     * defaults, no thinking) when the recording asked for none.
     */
    record Thinking(String type, Integer budgetTokens, Boolean keep, Integer maxTokens) {}

    static Thinking thinking(Case c) {
        JsonNode thinking = c.body("thinking");
        String type = thinking.path("type").asText("");
        if (type.isEmpty() || "disabled".equals(type)) {
            return new Thinking(null, null, null, null);
        }
        JsonNode budget = thinking.path("budget_tokens");
        JsonNode maxTokens = c.body("max_tokens");
        return new Thinking(type, budget.isInt() ? budget.asInt() : null, true,
                maxTokens.isInt() ? maxTokens.asInt() : null);
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
