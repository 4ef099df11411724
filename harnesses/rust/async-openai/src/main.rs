//! The async-openai harness: the tool loop an application writes with async-openai, as the
//! crate's `tool-call`, `tool-call-stream` and `responses-function-call` examples write it (the
//! crate has no loop of its own): send, read the calls, run each, send the calls and their results
//! back, until the model answers in text.

mod chat;
mod responses;

use async_openai::config::OpenAIConfig;
use async_openai::Client;
use kit::{Case, Error, Implementation, Outcome};

/// Model calls one case may take; the longest recorded chain has four.
pub const MAX_TURNS: usize = 12;

/// The version `Cargo.toml` pins (`=0.43.0`).
const ASYNC_OPENAI_VERSION: &str = "0.43.0";

/// The client as the crate's README configures it: an `OpenAIConfig` with the API base (which,
/// like OpenAI's, ends in /v1) and the key.
pub fn client(case: &Case) -> Client<OpenAIConfig> {
    Client::with_config(OpenAIConfig::new().with_api_base(&case.base_url).with_api_key(&case.api_key))
}

async fn run(case: Case) -> Result<Outcome, Error> {
    match case.api.as_str() {
        "openai-chat" => chat::run(&case).await,
        "openai-responses" | "openresponses" | "azure-foundry" => responses::run(&case).await,
        other => Ok(Outcome::Skipped(format!("async-openai is an OpenAI client; it has no {other} API"))),
    }
}

fn main() {
    let openai_only = "async-openai is a client of OpenAI's own APIs (and of servers compatible with them)";
    let implementation = Implementation {
        name: "async-openai".to_string(),
        version: ASYNC_OPENAI_VERSION.to_string(),
        libraries: [("async-openai".to_string(), ASYNC_OPENAI_VERSION.to_string())].into(),
        apis: ["openai-chat", "openai-responses", "openresponses", "azure-foundry"]
            .iter()
            .map(|api| api.to_string())
            .collect(),
        unsupported: [
            "anthropic-messages",
            "gemini",
            "bedrock-converse",
            "mistral-chat",
            "kimi-chat",
            "ollama-chat",
            "cohere-v2",
        ]
        .iter()
        .map(|api| (api.to_string(), openai_only.to_string()))
        .collect(),
        homepage: "https://github.com/64bit/async-openai".to_string(),
        notes: Some("a manual tool loop, as the crate's examples write it".to_string()),
        // No hand-offs: a conversation begun on another provider is handed over as its saved history.
        continues: vec!["history".to_string(), "sessions".to_string()],
        ..Implementation::default()
    };
    kit::serve(implementation, run);
}
