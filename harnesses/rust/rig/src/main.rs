//! The rig harness: rig-agent's tool loop (an `Agent` with dynamic tools, `prompt(..).max_turns(n)`,
//! streamed with `.stream()` when the recording streamed) over rig-core's provider clients.

mod providers;

use futures::StreamExt;
use kit::{call_tool, Case, Error, Implementation, Outcome};
use rig_agent::agent::MultiTurnStreamItem;
use rig_agent::AgentBuilder;
use rig_core::tool::{DynamicTool, ToolExecutionError, ToolOutput};
use serde_json::Value;

/// Model calls one case may take; the longest recorded chain has four.
const MAX_TURNS: usize = 12;

/// The version `Cargo.toml` pins (`=0.44.0`) for both rig crates.
const RIG_VERSION: &str = "0.44.0";

fn tools(case: &Case) -> Result<Vec<DynamicTool>, Error> {
    case.tools
        .iter()
        .map(|spec| {
            let name = rig_core::message::ToolName::new(spec.name.clone())?;
            let tools_url = case.tools_url.clone();
            let tool_name = spec.name.clone();
            Ok(DynamicTool::new(name, spec.description.clone(), spec.schema(), move |arguments: Value| {
                let tools_url = tools_url.clone();
                let tool_name = tool_name.clone();
                Box::pin(async move {
                    // The callback is not told the call's id, so none is logged.
                    match call_tool(&tools_url, &tool_name, arguments, None).await {
                        Ok(output) => Ok(ToolOutput::text(output)),
                        Err(error) => Err(ToolExecutionError::from_error(std::io::Error::other(error.to_string()))),
                    }
                })
            }))
        })
        .collect()
}

async fn run(case: Case, chat: providers::ChatDialect) -> Result<Outcome, Error> {
    if let Some(custom) = case.tools.iter().find(|tool| tool.is_custom()) {
        return Ok(Outcome::Skipped(format!(
            "rig's agent runs the tools it declares, and it declares JSON-schema function tools (ToolDefinition: name, description, parameters); the free-form custom tool '{}' is not one",
            custom.name
        )));
    }
    let configured = match providers::model(&case, chat) {
        Ok(configured) => configured,
        Err(providers::Unsupported(reason)) => return Ok(Outcome::Skipped(reason)),
    };
    let mut builder = AgentBuilder::new(configured.model).dynamic_tools(tools(&case)?);
    if let Some(max_tokens) = case.settings.body.get("max_tokens").and_then(Value::as_u64) {
        builder = builder.max_tokens(max_tokens);
    }
    if !configured.additional_params.is_empty() {
        builder = builder.additional_params(Value::Object(configured.additional_params));
    }
    let agent = builder.build();
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
