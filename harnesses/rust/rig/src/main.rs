//! The rig harness: rig-agent's tool loop (an `Agent` with dynamic tools, `prompt(..).max_turns(n)`,
//! streamed with `.stream()` when the recording streamed) over rig-core's provider clients.
//!
//! A continued conversation (docs/harness.md) is a `Vec<Message>`, rig's provider-neutral chat
//! history: each run is `prompt(..).history(..)`, its `messages` appended, as `Agent::chat` does. A
//! run that continues the history without a user message prompts with the history's last message:
//! in rig, tool results are a user message. A hand-off's first leg is the leg's agent run with
//! `max_turns(steps)`, whose budget error carries the history to continue on the case's agent.

mod providers;

use futures::StreamExt;
use kit::{call_tool, Case, Error, Implementation, Outcome, RunInterrupted};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use rig_agent::agent::MultiTurnStreamItem;
use rig_agent::AgentBuilder;
use rig_agent::agent::{AgentHook, HookContext, OutcomeAction, OutcomeEvent};
use rig_agent::completion::PromptError;
use rig_agent::Agent;
use rig_core::message::{AssistantContent, CallId, Message, ToolCall, ToolFunction, ToolName, UserContent};
use rig_core::tool::{DynamicTool, ToolExecutionError, ToolOutput};
use serde_json::Value;

/// Model calls one case may take; the longest recorded chain has four.
const MAX_TURNS: usize = 12;

/// The version `Cargo.toml` pins (`=0.44.0`) for both rig crates.
const RIG_VERSION: &str = "0.44.0";

/// Set by a tool the case cuts off (`call_tool` gave `RunInterrupted`), for the `CutOff` hook.
type CutOffFlag = Arc<AtomicBool>;

/// Ends the run once a tool was cut off: rig's way for a hook that observed an answer to stop the
/// run (`OutcomeAction::stop`, a `Cancelled` error carrying the history so far).
struct CutOff(CutOffFlag);

impl AgentHook for CutOff {
    async fn on_outcome(&self, _ctx: &HookContext, _event: OutcomeEvent<'_>) -> OutcomeAction {
        if self.0.load(Ordering::SeqCst) {
            OutcomeAction::stop("the run was cut off before its tool answered")
        } else {
            OutcomeAction::proceed()
        }
    }
}

fn tools(case: &Case, cut: &CutOffFlag) -> Result<Vec<DynamicTool>, Error> {
    case.tools
        .iter()
        .map(|spec| {
            let name = rig_core::message::ToolName::new(spec.name.clone())?;
            let tools_url = case.tools_url.clone();
            let tool_name = spec.name.clone();
            let cut = cut.clone();
            Ok(DynamicTool::new(name, spec.description.clone(), spec.schema(), move |arguments: Value| {
                let tools_url = tools_url.clone();
                let tool_name = tool_name.clone();
                let cut = cut.clone();
                Box::pin(async move {
                    // The callback is not told the call's id, so none is logged.
                    match call_tool(&tools_url, &tool_name, arguments, None).await {
                        Ok(output) => Ok(ToolOutput::text(output)),
                        Err(error) if error.downcast_ref::<RunInterrupted>().is_some() => {
                            cut.store(true, Ordering::SeqCst);
                            Err(ToolExecutionError::from_error(std::io::Error::other(error.to_string())))
                        }
                        Err(error) => Err(ToolExecutionError::from_error(std::io::Error::other(error.to_string()))),
                    }
                })
            }))
        })
        .collect()
}

fn build_agent(case: &Case, chat: providers::ChatDialect, cut: &CutOffFlag) -> Result<Result<Agent, String>, Error> {
    let configured = match providers::model(case, chat) {
        Ok(configured) => configured,
        Err(providers::Unsupported(reason)) => return Ok(Err(reason)),
    };
    let mut builder = AgentBuilder::new(configured.model).dynamic_tools(tools(case, cut)?);
    if let Some(max_tokens) = case.settings.body.get("max_tokens").and_then(Value::as_u64) {
        builder = builder.max_tokens(max_tokens);
    }
    if !configured.additional_params.is_empty() {
        builder = builder.additional_params(Value::Object(configured.additional_params));
    }
    Ok(Ok(builder.build()))
}

async fn run(case: Case, chat: providers::ChatDialect) -> Result<Outcome, Error> {
    if let Some(custom) = case.tools.iter().find(|tool| tool.is_custom()) {
        return Ok(Outcome::Skipped(format!(
            "rig's agent runs the tools it declares, and it declares JSON-schema function tools (ToolDefinition: name, description, parameters); the free-form custom tool '{}' is not one",
            custom.name
        )));
    }
    if let Some(called) = case.tools.iter().find(|tool| !tool.allowed_callers.is_empty()) {
        return Ok(Outcome::Skipped(format!(
            "rig declares a tool as a ToolDefinition (name, description, parameters: rig-core src/completion/request.rs:64-71), which has no allowed_callers: the tool '{}' that the scenario's code calls cannot be declared",
            called.name
        )));
    }
    let cut = CutOffFlag::default();
    let agent = match build_agent(&case, chat, &cut)? {
        Ok(agent) => agent,
        Err(reason) => return Ok(Outcome::Skipped(reason)),
    };
    let continued = !case.history.is_empty() || !case.legs.is_empty() || case.run_prompts() != [Some(case.prompt.clone())];
    if continued {
        return continue_conversation(&case, chat, &agent, &cut).await;
    }
    let runner = agent.prompt(case.prompt.as_str()).max_turns(MAX_TURNS);
    if !case.stream {
        return Ok(Outcome::Ok(runner.await?.output()));
    }
    let mut stream = runner.stream();
    let mut output = String::new();
    while let Some(item) = stream.next().await {
        if let MultiTurnStreamItem::FinalResponse(response) = item? {
            output = response.output();
        }
    }
    Ok(Outcome::Ok(output))
}

async fn continue_conversation(
    case: &Case,
    chat: providers::ChatDialect,
    agent: &Agent,
    cut: &CutOffFlag,
) -> Result<Outcome, Error> {
    let mut history = if case.legs.is_empty() { restored(&case.history)? } else { Vec::new() };
    let mut pending = Some(Message::user(case.prompt.clone()));
    for leg in &case.legs {
        let leg_case = case.leg_case(leg);
        let leg_agent = match build_agent(&leg_case, chat, cut)? {
            Ok(leg_agent) => leg_agent,
            Err(reason) => return Ok(Outcome::Skipped(format!("the conversation begins on {}: {reason}", leg.api))),
        };
        let prompt = match pending.take().or_else(|| history.pop()) {
            Some(prompt) => prompt,
            None => return Err("a leg has no conversation to continue".into()),
        };
        // The budget error carries the whole conversation, the results of the last step's calls last.
        match leg_agent.prompt(prompt).history(history.clone()).max_turns(leg.steps).await {
            Ok(response) => history.extend(response.messages.iter().cloned()),
            Err(PromptError::MaxTurns { chat_history, .. }) => history = chat_history,
            Err(error) => return Err(error.into()),
        }
    }
    let mut output = String::new();
    for run_prompt in case.run_prompts() {
        let prompt = match run_prompt {
            Some(text) => Message::user(text),
            None => match history.pop() {
                Some(message @ Message::User { .. }) => message,
                _ => return Err("a run without a user message continues a history that ends on no user message".into()),
            },
        };
        cut.store(false, Ordering::SeqCst);
        let runner = agent.prompt(prompt).history(history.clone()).max_turns(MAX_TURNS).add_hook(CutOff(cut.clone()));
        let response = if case.stream {
            let mut stream = runner.stream();
            let mut last = None;
            let mut failed = None;
            while let Some(item) = stream.next().await {
                match item {
                    Ok(MultiTurnStreamItem::FinalResponse(response)) => last = Some(response),
                    Ok(_) => {}
                    Err(error) => {
                        failed = Some(error);
                        break;
                    }
                }
            }
            match (last, failed) {
                (Some(response), None) => Ok(response),
                (_, Some(error)) => Err(error),
                (None, None) => return Err("the stream ended without a final response".into()),
            }
        } else {
            runner.await
        };
        match response {
            Ok(response) => {
                output = response.output();
                history.extend(response.messages.iter().cloned());
            }
            // A run cut off in its tool ends there; the history it had goes on to the next run.
            Err(PromptError::Cancelled { chat_history, .. }) if cut.load(Ordering::SeqCst) => history = chat_history,
            Err(error) => return Err(error.into()),
        }
    }
    Ok(Outcome::Ok(output))
}

/// A restored history as rig Messages: user text, assistant turns with their calls, and each tool
/// message's results as one user message of tool results, as rig keeps them. A call saved without
/// an id (Gemini before ids) gets the id rig issues for one (`CallId::from_wire("")`), and its
/// result, which comes in the same order, the same id.
fn restored(history: &[Value]) -> Result<Vec<Message>, Error> {
    let mut messages = Vec::new();
    let mut issued: Vec<CallId> = Vec::new();
    for message in history {
        let parts = message.get("parts").and_then(Value::as_array).cloned().unwrap_or_default();
        let text: String = parts
            .iter()
            .filter(|part| part.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect();
        match message.get("role").and_then(Value::as_str) {
            Some("user") => messages.push(Message::user(text)),
            Some("system") => messages.push(Message::system(text)),
            Some("assistant") => {
                issued.clear();
                let mut content = Vec::new();
                if !text.is_empty() {
                    content.push(AssistantContent::text(text));
                }
                for part in parts.iter().filter(|part| part.get("type").and_then(Value::as_str) == Some("tool_call")) {
                    if part.get("provider_executed").and_then(Value::as_bool) == Some(true) {
                        return Err("rig's AssistantContent has no provider-executed call to restore".into());
                    }
                    let id = CallId::from_wire(part.get("call_id").and_then(Value::as_str).unwrap_or(""));
                    issued.push(id.clone());
                    let name = ToolName::new(part.get("name").and_then(Value::as_str).unwrap_or("").to_string())?;
                    let arguments = part.get("arguments").cloned().unwrap_or_else(|| serde_json::json!({}));
                    content.push(AssistantContent::ToolCall(ToolCall::new(id, ToolFunction::new(name, arguments))));
                }
                messages.push(Message::Assistant(rig_core::message::AssistantMessage::new(content)));
            }
            Some("tool") => {
                let mut results = Vec::new();
                for (index, part) in parts.iter().enumerate() {
                    let id = match part.get("call_id").and_then(Value::as_str) {
                        Some(id) if !id.is_empty() => CallId::from_wire(id),
                        _ => issued.get(index).cloned().unwrap_or_else(|| CallId::from_wire("")),
                    };
                    let name = ToolName::new(part.get("name").and_then(Value::as_str).unwrap_or("").to_string())?;
                    let output = part.get("output").and_then(Value::as_str).unwrap_or("").to_string();
                    results.push(UserContent::tool_result(id, name, vec![rig_core::message::ToolResultContent::text(output)]));
                }
                messages.push(Message::User { content: results });
            }
            other => return Err(format!("history: a message with role {other:?}").into()),
        }
    }
    Ok(messages)
}

/// `--openai-chat=deepseek` runs the openai-chat cases through rig's DeepSeek provider, as the
/// `rig-deepseek` column; nothing else.
fn main() {
    let deepseek = std::env::args().any(|arg| arg == "--openai-chat=deepseek");
    let chat = if deepseek { providers::ChatDialect::DeepSeek } else { providers::ChatDialect::OpenAi };
    let mut implementation = Implementation {
        name: "rig".to_string(),
        version: RIG_VERSION.to_string(),
        libraries: [
            ("rig-core".to_string(), RIG_VERSION.to_string()),
            ("rig-agent".to_string(), RIG_VERSION.to_string()),
        ]
        .into(),
        apis: providers::APIS.iter().map(|api| api.to_string()).collect(),
        unsupported: providers::UNSUPPORTED
            .iter()
            .map(|(api, reason)| (api.to_string(), reason.to_string()))
            .collect(),
        homepage: "https://rig.rs".to_string(),
        continues: vec!["history".to_string(), "sessions".to_string(), "handoffs".to_string()],
        ..Implementation::default()
    };
    if deepseek {
        implementation.name = "rig-deepseek".to_string();
        implementation.apis = vec!["openai-chat".to_string()];
        implementation.unsupported.clear();
        implementation.notes = Some("rig's DeepSeek provider on the openai-chat cases".to_string());
    }
    kit::serve(implementation, move |case| run(case, chat));
}
