package conformance.openaijava;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionMessage;
import com.openai.models.chat.completions.ChatCompletionMessageParam;
import com.openai.models.chat.completions.ChatCompletionMessageToolCall;
import com.openai.models.chat.completions.ChatCompletionTool;
import com.openai.models.chat.completions.ChatCompletionToolMessageParam;
import com.openai.models.chat.completions.ChatCompletionUserMessageParam;
import conformance.kit.Case;
import conformance.kit.Json;
import conformance.kit.Tool;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The README's function-calling loop on Chat Completions: the assistant message goes back as
 * returned (ChatCompletionMessage.toParam), then one tool message per call under the call's id. A
 * stream is folded by the SDK's ChatCompletionAccumulator. A restored conversation is the saved
 * message list read as the SDK's ChatCompletionMessageParam; each run of a session appends its user
 * message to the same list and runs the loop on it.
 */
final class Chat {
    private static final Set<String> MANAGED = Set.of("model", "messages", "tools", "stream", "stream_options");

    private final OpenAIClient client;
    private final Case c;
    private final List<ChatCompletionMessageParam> messages = new ArrayList<>();
    private final List<ChatCompletionTool> tools = new ArrayList<>();

    Chat(OpenAIClient client, Case c) throws IOException {
        this.client = client;
        this.c = c;
        messages.addAll(Sdk.readAll(c.historyWire(), ChatCompletionMessageParam.class));
        for (Tool tool : c.tools()) {
            ObjectNode json = Json.MAPPER.createObjectNode();
            if (tool.custom()) {
                json.put("type", "custom").putObject("custom").put("name", tool.name()).put("description", tool.description());
            } else {
                ObjectNode function = json.put("type", "function").putObject("function");
                function.put("name", tool.name()).put("description", tool.description()).set("parameters", tool.parameters());
            }
            tools.add(Sdk.read(json, ChatCompletionTool.class));
        }
    }

    String run() throws Exception {
        String answer = "";
        for (String prompt : c.runs()) {
            if (prompt != null) {
                messages.add(ChatCompletionMessageParam.ofUser(ChatCompletionUserMessageParam.builder().content(prompt).build()));
            }
            answer = runOnce();
        }
        return answer;
    }

    private String runOnce() throws Exception {
        for (int turn = 0; turn < Main.MAX_TURNS; turn++) {
            ChatCompletionMessage message = turn();
            messages.add(ChatCompletionMessageParam.ofAssistant(message.toParam()));
            List<ChatCompletionMessageToolCall> calls = message.toolCalls().orElse(List.of());
            if (calls.isEmpty()) {
                return message.content().orElse("");
            }
            for (ChatCompletionMessageToolCall call : calls) {
                String id;
                String output;
                if (call.isCustom()) {
                    var custom = call.asCustom();
                    id = custom.id();
                    output = c.callTool(custom.custom().name(), Map.of("input", custom.custom().input()), id);
                } else {
                    var function = call.asFunction();
                    id = function.id();
                    output = c.callTool(function.function().name(), function.function().arguments(), id);
                }
                messages.add(ChatCompletionMessageParam.ofTool(
                        ChatCompletionToolMessageParam.builder().toolCallId(id).content(output).build()));
            }
        }
        throw new IllegalStateException("the model still called tools after " + Main.MAX_TURNS + " turns");
    }

    private ChatCompletionMessage turn() {
        ChatCompletionCreateParams.Builder params = ChatCompletionCreateParams.builder()
                .model(c.model()).messages(messages);
        if (!tools.isEmpty()) {
            params.tools(tools);
        }
        Sdk.settings(c, MANAGED, params::putAdditionalBodyProperty, params::putAdditionalHeader,
                params::putAdditionalQueryParam);
        ChatCompletion completion;
        if (!c.stream()) {
            completion = client.chat().completions().create(params.build());
        } else {
            ChatCompletionAccumulator accumulator = ChatCompletionAccumulator.create();
            try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params.build())) {
                stream.stream().forEach(accumulator::accumulate);
            }
            completion = accumulator.chatCompletion();
        }
        if (completion.choices().isEmpty()) {
            throw new IllegalStateException("the completion has no choices");
        }
        return completion.choices().get(0).message();
    }
}
