//! Responses: the `responses-function-call` example's loop, each call's output sent back after
//! the response's items. Unstreamed, the whole output goes back, as the
//! `responses-multi-turn-reasoning` example does it; streamed, the calls the example assembles from
//! `response.output_item.added` (name and `call_id`, keyed by item id), the argument deltas and
//! `response.function_call_arguments.done`.

use crate::{client, MAX_TURNS};
use async_openai::types::responses::{
    CreateResponseArgs, CustomToolCall, CustomToolCallOutput, CustomToolCallOutputOutput, CustomToolParam,
    EasyInputMessage, FunctionCallOutput, FunctionCallOutputItemParam, FunctionTool, FunctionToolCall, InputItem,
    InputParam, Item, OutputItem, ResponseStreamEvent, Tool,
};
use futures::StreamExt;
use kit::{call_tool, Case, Error, Outcome, RunInterrupted};
use serde_json::{json, Value};
use std::collections::HashMap;

/// Provider tools whose calls the application carries out and answers with items of their own
/// (a computer action, a shell command, a patch, an MCP approval, a tool search).
const APPLICATION_RUN: [&str; 6] = ["computer_use_preview", "local_shell", "shell", "apply_patch", "mcp", "tool_search"];

/// The case's tools as async-openai's `Tool`s; a recorded provider tool goes through the crate's
/// own `Tool` type, and one it has no variant for cannot be sent.
fn tools(case: &Case) -> Result<Result<Vec<Tool>, String>, Error> {
    let mut tools: Vec<Tool> = case
        .tools
        .iter()
        .map(|spec| {
            if spec.is_custom() {
                Tool::Custom(CustomToolParam {
                    name: spec.name.clone(),
                    description: Some(spec.description.clone()),
                    ..Default::default()
                })
            } else {
                Tool::Function(FunctionTool {
                    name: spec.name.clone(),
                    description: Some(spec.description.clone()),
                    parameters: Some(spec.schema()),
                    ..Default::default()
                })
            }
        })
        .collect();
    for recorded in &case.recorded_tools {
        let kind = recorded.get("type").and_then(Value::as_str).unwrap_or("");
        if kind == "function" || kind == "custom" {
            continue;
        }
        if APPLICATION_RUN.contains(&kind) {
            return Ok(Err(format!(
                "async-openai has no tool loop, and the one its examples write runs function calls only; \
                 the recorded '{kind}' tool's calls are the application's to carry out and answer"
            )));
        }
        match serde_json::from_value::<Tool>(recorded.clone()) {
            Ok(tool) => tools.push(tool),
            Err(error) => {
                return Ok(Err(format!("async-openai's responses::Tool cannot hold the recorded '{kind}' tool: {error}")))
            }
        }
    }
    Ok(Ok(tools))
}

/// The calls of one response, in order.
enum Call {
    Function(FunctionToolCall),
    Custom(CustomToolCall),
}

struct Turn {
    text: String,
    calls: Vec<Call>,
    /// What goes back of the response before the outputs.
    echo: Vec<InputItem>,
}

pub async fn run(case: &Case) -> Result<Outcome, Error> {
    let client = client(case);
    let tools = match tools(case)? {
        Ok(tools) => tools,
        Err(reason) => return Ok(Outcome::Skipped(reason)),
    };
    // A continued conversation is the input list the example's loop keeps, restored from storage, and
    // each run of the session is the loop run again on it after the run's user message.
    let mut input = restored(case)?;
    let mut output = String::new();
    for prompt in case.run_prompts() {
        if let Some(prompt) = prompt {
            input.push(EasyInputMessage::from(prompt.as_str()).into());
        }
        match tool_loop(case, &client, &tools, &mut input).await {
            Ok(text) => {
                let answer = json!({"type": "message", "role": "assistant", "content": text});
                input.push(serde_json::from_value(answer)?);
                output = text;
            }
            Err(error) if error.downcast_ref::<RunInterrupted>().is_some() => {}
            Err(error) => return Err(error),
        }
    }
    Ok(Outcome::Ok(output))
}

/// A restored history as the crate's input items, read from the stored JSON: the request's own
/// input items when the history was kept on the Responses API, else each neutral message written as
/// the item a Responses request holds for it (a message, a `function_call`, a
/// `function_call_output`). A call saved without an id is given one, its output the same.
fn restored(case: &Case) -> Result<Vec<InputItem>, Error> {
    let items: Vec<Value> = if matches!(case.history_api.as_deref(), Some("openai-responses" | "openresponses" | "azure-foundry")) {
        case.history_wire.clone()
    } else {
        let mut items = Vec::new();
        let mut issued: Vec<String> = Vec::new();
        for message in &case.history {
            let parts = message.get("parts").and_then(Value::as_array).cloned().unwrap_or_default();
            let text: String = parts
                .iter()
                .filter(|part| part.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect();
            let field = |part: &Value, key: &str| part.get(key).and_then(Value::as_str).unwrap_or("").to_string();
            let role = message.get("role").and_then(Value::as_str).unwrap_or("");
            match role {
                "user" | "system" => items.push(json!({"type": "message", "role": role, "content": text})),
                "assistant" => {
                    issued.clear();
                    if !text.is_empty() {
                        items.push(json!({"type": "message", "role": "assistant", "content": text}));
                    }
                    for part in parts.iter().filter(|part| part.get("type").and_then(Value::as_str) == Some("tool_call")) {
                        let mut id = field(part, "call_id");
                        if id.is_empty() {
                            id = format!("call_restored_{}_{}", items.len(), issued.len());
                        }
                        issued.push(id.clone());
                        let arguments = part.get("arguments").cloned().unwrap_or_else(|| json!({}));
                        items.push(json!({"type": "function_call", "call_id": id, "name": field(part, "name"),
                                          "arguments": arguments.to_string()}));
                    }
                }
                "tool" => {
                    for (index, part) in parts.iter().enumerate() {
                        let mut id = field(part, "call_id");
                        if id.is_empty() {
                            id = issued.get(index).cloned().unwrap_or_default();
                        }
                        items.push(json!({"type": "function_call_output", "call_id": id, "output": field(part, "output")}));
                    }
                }
                other => return Err(format!("history: a message with role {other:?}").into()),
            }
        }
        items
    };
    if items.is_empty() {
        return Ok(Vec::new());
    }
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| {
            serde_json::from_value(item).map_err(|error| format!("history item {index}: the crate cannot read it: {error}").into())
        })
        .collect()
}

/// The `responses-function-call` example's loop on `input`, which it extends with each response's
/// items and the calls' outputs.
async fn tool_loop(
    case: &Case,
    client: &async_openai::Client<async_openai::config::OpenAIConfig>,
    tools: &[Tool],
    input: &mut Vec<InputItem>,
) -> Result<String, Error> {
    for _ in 0..MAX_TURNS {
        let mut request = CreateResponseArgs::default();
        request.model(case.model.clone()).input(InputParam::Items(input.clone())).tools(tools.to_vec());
        if let Some(store) = case.settings.body.get("store").and_then(Value::as_bool) {
            request.store(store);
        }
        let turn = if case.stream {
            streamed_turn(client, request.stream(true).build()?).await?
        } else {
            let response = client.responses().create(request.build()?).await?;
            let text = response.output_text().unwrap_or_default();
            // The `responses-multi-turn-reasoning` example: the whole output goes back, through
            // the crate's `From<OutputItem> for InputItem`.
            let echo = response.output.iter().cloned().map(InputItem::from).collect();
            let calls = response
                .output
                .into_iter()
                .filter_map(|item| match item {
                    OutputItem::FunctionCall(call) => Some(Call::Function(call)),
                    OutputItem::CustomToolCall(call) => Some(Call::Custom(call)),
                    _ => None,
                })
                .collect();
            Turn { text, calls, echo }
        };
        if turn.calls.is_empty() {
            return Ok(turn.text);
        }
        input.extend(turn.echo);
        let mut outputs = Vec::new();
        for call in &turn.calls {
            match call {
                Call::Function(call) => {
                    let arguments: Value = serde_json::from_str(&call.arguments).unwrap_or(json!({}));
                    let output = call_tool(&case.tools_url, &call.name, arguments, Some(&call.call_id)).await?;
                    outputs.push(InputItem::Item(Item::FunctionCallOutput(FunctionCallOutputItemParam {
                        call_id: Some(call.call_id.clone()),
                        output: FunctionCallOutput::Text(output),
                        id: None,
                        status: None,
                        name: None,
                        namespace: None,
                        caller: None,
                    })));
                }
                Call::Custom(call) => {
                    let arguments = json!({"input": call.input});
                    let output = call_tool(&case.tools_url, &call.name, arguments, Some(&call.call_id)).await?;
                    outputs.push(InputItem::Item(Item::CustomToolCallOutput(CustomToolCallOutput {
                        call_id: call.call_id.clone(),
                        output: CustomToolCallOutputOutput::Text(output),
                        id: None,
                        caller: None,
                    })));
                }
            }
        }
        input.extend(outputs);
    }
    Ok(String::new())
}

async fn streamed_turn(
    client: &async_openai::Client<async_openai::config::OpenAIConfig>,
    request: async_openai::types::responses::CreateResponse,
) -> Result<Turn, Error> {
    let mut stream = client.responses().create_stream(request).await?;
    let mut arguments: HashMap<String, String> = HashMap::new();
    let mut metadata: HashMap<String, (String, String)> = HashMap::new();
    let mut text = String::new();
    let mut calls = Vec::new();
    while let Some(event) = stream.next().await {
        match event? {
            ResponseStreamEvent::ResponseOutputItemAdded(added) => {
                if let OutputItem::FunctionCall(call) = &added.item {
                    let item_id = call.id.clone().unwrap_or_default();
                    metadata.insert(item_id, (call.name.clone(), call.call_id.clone()));
                }
            }
            ResponseStreamEvent::ResponseFunctionCallArgumentsDelta(delta) => {
                arguments.entry(delta.item_id.clone()).or_default().push_str(&delta.delta);
            }
            ResponseStreamEvent::ResponseFunctionCallArgumentsDone(done) => {
                if let Some((name, call_id)) = metadata.get(&done.item_id) {
                    let arguments = arguments.remove(&done.item_id).unwrap_or_else(|| done.arguments.clone());
                    calls.push(Call::Function(FunctionToolCall {
                        namespace: None,
                        name: name.clone(),
                        arguments,
                        call_id: call_id.clone(),
                        id: Some(done.item_id.clone()),
                        status: None,
                        r#async: None,
                        caller: None,
                    }));
                }
            }
            // The example has no custom tool; its finished item carries the whole call.
            ResponseStreamEvent::ResponseOutputItemDone(done) => {
                if let OutputItem::CustomToolCall(call) = done.item {
                    calls.push(Call::Custom(call));
                }
            }
            ResponseStreamEvent::ResponseOutputTextDelta(delta) => text.push_str(&delta.delta),
            _ => {}
        }
    }
    // The `responses-function-call` example sends back the calls it assembled, and nothing else.
    let echo = calls
        .iter()
        .map(|call| match call {
            Call::Function(call) => InputItem::Item(Item::FunctionCall(call.clone())),
            Call::Custom(call) => InputItem::Item(Item::CustomToolCall(call.clone())),
        })
        .collect();
    Ok(Turn { text, calls, echo })
}
