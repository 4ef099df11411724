//! Chat Completions: the `tool-call` example's loop, and the `tool-call-stream` example's
//! assembly of streamed calls (by `index`, the id and name taken from the chunk that has them).

use crate::{client, MAX_TURNS};
use async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionMessageToolCalls,
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestMessage, ChatCompletionRequestToolMessage,
    ChatCompletionRequestSystemMessage, ChatCompletionRequestUserMessage, ChatCompletionTool, ChatCompletionTools,
    CreateChatCompletionRequestArgs, CustomToolChatCompletions, CustomToolProperties, FunctionCall, FunctionObjectArgs,
};
use futures::StreamExt;
use kit::{call_tool, Case, Error, Outcome, RunInterrupted};
use serde_json::{json, Value};

fn tools(case: &Case) -> Result<Vec<ChatCompletionTools>, Error> {
    case.tools
        .iter()
        .map(|spec| {
            if spec.is_custom() {
                return Ok(ChatCompletionTools::Custom(CustomToolChatCompletions {
                    custom: CustomToolProperties {
                        name: spec.name.clone(),
                        description: Some(spec.description.clone()),
                        ..Default::default()
                    },
                }));
            }
            let function = FunctionObjectArgs::default()
                .name(spec.name.clone())
                .description(spec.description.clone())
                .parameters(spec.schema())
                .build()?;
            Ok(ChatCompletionTools::Function(ChatCompletionTool { function }))
        })
        .collect()
}

/// One assistant turn: its text and its tool calls.
struct Turn {
    content: Option<String>,
    calls: Vec<ChatCompletionMessageToolCalls>,
}

pub async fn run(case: &Case) -> Result<Outcome, Error> {
    let client = client(case);
    let tools = tools(case)?;
    // A continued conversation is the same message list the example's loop keeps, restored from
    // storage, and each run of the session is the loop run again on it after the run's user message.
    let mut messages = restored(&case.history)?;
    let mut output = String::new();
    for prompt in case.run_prompts() {
        if let Some(prompt) = prompt {
            messages.push(ChatCompletionRequestUserMessage::from(prompt.as_str()).into());
        }
        match tool_loop(case, &client, &tools, &mut messages).await {
            Ok(text) => {
                messages.push(
                    ChatCompletionRequestAssistantMessage { content: Some(text.clone().into()), ..Default::default() }
                        .into(),
                );
                output = text;
            }
            // A run cut off in its tool ends there; the list keeps what the loop had pushed.
            Err(error) if error.downcast_ref::<RunInterrupted>().is_some() => {}
            Err(error) => return Err(error),
        }
    }
    Ok(Outcome::Ok(output))
}

/// The `tool-call` example's loop on `messages`, which it extends with each turn and its results.
async fn tool_loop(
    case: &Case,
    client: &async_openai::Client<async_openai::config::OpenAIConfig>,
    tools: &[ChatCompletionTools],
    messages: &mut Vec<ChatCompletionRequestMessage>,
) -> Result<String, Error> {
    for _ in 0..MAX_TURNS {
        let mut request = CreateChatCompletionRequestArgs::default();
        request.model(case.model.clone()).messages(messages.clone()).tools(tools.to_vec());
        let turn = if case.stream {
            streamed_turn(client, request.stream(true).build()?).await?
        } else {
            let response = client.chat().create(request.build()?).await?;
            let message = response.choices.into_iter().next().ok_or("the response has no choice")?.message;
            Turn { content: message.content, calls: message.tool_calls.unwrap_or_default() }
        };
        if turn.calls.is_empty() {
            return Ok(turn.content.unwrap_or_default());
        }
        messages.push(
            ChatCompletionRequestAssistantMessage {
                content: turn.content.map(Into::into),
                tool_calls: Some(turn.calls.clone()),
                ..Default::default()
            }
            .into(),
        );
        for call in &turn.calls {
            let (id, output) = match call {
                ChatCompletionMessageToolCalls::Function(call) => {
                    let arguments: Value = serde_json::from_str(&call.function.arguments).unwrap_or(json!({}));
                    (call.id.clone(), call_tool(&case.tools_url, &call.function.name, arguments, Some(&call.id)).await?)
                }
                ChatCompletionMessageToolCalls::Custom(call) => {
                    let arguments = json!({"input": call.custom_tool.input});
                    (call.id.clone(), call_tool(&case.tools_url, &call.custom_tool.name, arguments, Some(&call.id)).await?)
                }
            };
            messages.push(ChatCompletionRequestToolMessage { content: output.into(), tool_call_id: id }.into());
        }
    }
    Ok(String::new())
}

/// A restored history as the crate's request messages: user and system text, assistant turns with
/// their function calls (arguments as JSON text), and one tool message per result. The crate sends
/// the id the application gives: a call saved without one (Gemini before ids) is given one here, and
/// its result, which comes in the same order, the same.
fn restored(history: &[Value]) -> Result<Vec<ChatCompletionRequestMessage>, Error> {
    let mut messages: Vec<ChatCompletionRequestMessage> = Vec::new();
    let mut issued: Vec<String> = Vec::new();
    for message in history {
        let parts = message.get("parts").and_then(Value::as_array).cloned().unwrap_or_default();
        let text: String = parts
            .iter()
            .filter(|part| part.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect();
        let field = |part: &Value, key: &str| part.get(key).and_then(Value::as_str).unwrap_or("").to_string();
        match message.get("role").and_then(Value::as_str) {
            Some("user") => messages.push(ChatCompletionRequestUserMessage::from(text.as_str()).into()),
            Some("system") => messages.push(ChatCompletionRequestSystemMessage::from(text.as_str()).into()),
            Some("assistant") => {
                issued.clear();
                let mut calls = Vec::new();
                for part in parts.iter().filter(|part| part.get("type").and_then(Value::as_str) == Some("tool_call")) {
                    if part.get("provider_executed").and_then(Value::as_bool) == Some(true) {
                        return Err("Chat Completions has no provider-executed call to restore".into());
                    }
                    let arguments = part.get("arguments").cloned().unwrap_or_else(|| json!({}));
                    let mut id = field(part, "call_id");
                    if id.is_empty() {
                        id = format!("call_restored_{}_{}", messages.len(), issued.len());
                    }
                    issued.push(id.clone());
                    calls.push(ChatCompletionMessageToolCalls::Function(ChatCompletionMessageToolCall {
                        id,
                        function: FunctionCall { name: field(part, "name"), arguments: arguments.to_string() },
                    }));
                }
                messages.push(
                    ChatCompletionRequestAssistantMessage {
                        content: (!text.is_empty()).then(|| text.clone().into()),
                        tool_calls: (!calls.is_empty()).then_some(calls),
                        ..Default::default()
                    }
                    .into(),
                );
            }
            Some("tool") => {
                for (index, part) in parts.iter().enumerate() {
                    let mut id = field(part, "call_id");
                    if id.is_empty() {
                        id = issued.get(index).cloned().unwrap_or_default();
                    }
                    messages.push(
                        ChatCompletionRequestToolMessage { content: field(part, "output").into(), tool_call_id: id }
                        .into(),
                    );
                }
            }
            other => return Err(format!("history: a message with role {other:?}").into()),
        }
    }
    Ok(messages)
}

/// The `tool-call-stream` example's assembly: a call per `index`, grown to fit; the id and the
/// name set from each chunk that carries them, the arguments appended.
async fn streamed_turn(
    client: &async_openai::Client<async_openai::config::OpenAIConfig>,
    request: async_openai::types::chat::CreateChatCompletionRequest,
) -> Result<Turn, Error> {
    let mut stream = client.chat().create_stream(request).await?;
    let mut content: Option<String> = None;
    let mut calls: Vec<ChatCompletionMessageToolCall> = Vec::new();
    while let Some(chunk) = stream.next().await {
        for choice in chunk?.choices {
            if let Some(text) = choice.delta.content {
                content.get_or_insert_with(String::new).push_str(&text);
            }
            for delta in choice.delta.tool_calls.unwrap_or_default() {
                let index = delta.index as usize;
                while calls.len() <= index {
                    calls.push(ChatCompletionMessageToolCall { id: String::new(), function: Default::default() });
                }
                let call = &mut calls[index];
                if let Some(id) = delta.id {
                    call.id = id;
                }
                if let Some(function) = delta.function {
                    if let Some(name) = function.name {
                        call.function.name = name;
                    }
                    if let Some(arguments) = function.arguments {
                        call.function.arguments.push_str(&arguments);
                    }
                }
            }
        }
    }
    Ok(Turn { content, calls: calls.into_iter().map(ChatCompletionMessageToolCalls::Function).collect() })
}
