//! Chat Completions: the `tool-call` example's loop, and the `tool-call-stream` example's
//! assembly of streamed calls (by `index`, the id and name taken from the chunk that has them).

use crate::{client, MAX_TURNS};
use async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionMessageToolCalls,
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestMessage, ChatCompletionRequestToolMessage,
    ChatCompletionRequestUserMessage, ChatCompletionTool, ChatCompletionTools, CreateChatCompletionRequestArgs,
    CustomToolChatCompletions, CustomToolProperties, FunctionObjectArgs,
};
use futures::StreamExt;
use kit::{call_tool, Case, Error, Outcome};
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
    let mut messages: Vec<ChatCompletionRequestMessage> =
        vec![ChatCompletionRequestUserMessage::from(case.prompt.as_str()).into()];
    for _ in 0..MAX_TURNS {
        let mut request = CreateChatCompletionRequestArgs::default();
        request.model(case.model.clone()).messages(messages.clone()).tools(tools.clone());
        let turn = if case.stream {
            streamed_turn(&client, request.stream(true).build()?).await?
        } else {
            let response = client.chat().create(request.build()?).await?;
            let message = response.choices.into_iter().next().ok_or("the response has no choice")?.message;
            Turn { content: message.content, calls: message.tool_calls.unwrap_or_default() }
        };
        if turn.calls.is_empty() {
            return Ok(Outcome::Ok(turn.content.unwrap_or_default()));
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
    Ok(Outcome::Ok(String::new()))
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
