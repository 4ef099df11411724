//! A tool's implementation: ask the replay server for the output of the call the library made.

use crate::Error;
use serde_json::{json, Value};
use std::sync::OnceLock;

/// `call_tool`'s error for a call the case cuts off before its tool answers: the run ends there,
/// without a result, and the session's next run continues the conversation.
#[derive(Debug)]
pub struct RunInterrupted(pub String);

impl std::fmt::Display for RunInterrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RunInterrupted {}

fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(reqwest::Client::new)
}

/// POST a `toolCall` to the case's `tools_url` and return the `output` of its `toolOutput`.
/// `call_id` is the id the library gave the call (for the suite's log only).
pub async fn call_tool(
    tools_url: &str,
    name: &str,
    arguments: Value,
    call_id: Option<&str>,
) -> Result<String, Error> {
    let body = json!({"name": name, "arguments": arguments, "call_id": call_id});
    let response = client()
        .post(tools_url)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await?;
    let status = response.status();
    let text = response.text().await?;
    if !status.is_success() {
        return Err(format!("tool {name}: the replay answered HTTP {status}: {text}").into());
    }
    let answer: Value = serde_json::from_str(&text)
        .map_err(|error| format!("tool {name}: the replay's answer is not JSON ({error}): {text}"))?;
    if let Some(Value::String(reason)) = answer.get("interrupted") {
        return Err(Box::new(RunInterrupted(reason.clone())));
    }
    match answer.get("output") {
        Some(Value::String(output)) => Ok(output.clone()),
        _ => Err(format!("tool {name}: the replay's answer has no string `output`: {text}").into()),
    }
}
