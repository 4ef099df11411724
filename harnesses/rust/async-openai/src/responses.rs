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
use kit::{call_tool, Case, Error, Outcome};
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
    let mut input: Vec<InputItem> = vec![EasyInputMessage::from(case.prompt.as_str()).into()];
    for _ in 0..MAX_TURNS {
        let mut request = CreateResponseArgs::default();
        request.model(case.model.clone()).input(InputParam::Items(input.clone())).tools(tools.clone());
        if let Some(store) = case.settings.body.get("store").and_then(Value::as_bool) {
            request.store(store);
        }
        let turn = if case.stream {
            streamed_turn(&client, request.stream(true).build()?).await?
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
            return Ok(Outcome::Ok(turn.text));
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
    Ok(Outcome::Ok(String::new()))
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
