//! The suite's APIs as rig-core's provider clients, each configured with the case's base URL the way
//! its configuration documents it.

use kit::Case;
use rig_core::operation::Completion;
use rig_core::providers::anthropic::AnthropicConfig;
use rig_core::providers::cohere::{ChatRoute, CohereConfig};
use rig_core::providers::gemini::GeminiConfig;
use rig_core::providers::ollama::OllamaConfig;
use rig_core::providers::openai::wire::{DEEPSEEK, MISTRAL, MOONSHOT};
use rig_core::providers::openai::OpenAIConfig;
use rig_core::DynModel;
use serde_json::{Map, Value};

pub const APIS: [&str; 10] = [
    "openai-chat",
    "openai-responses",
    "openresponses",
    "azure-foundry",
    "anthropic-messages",
    "gemini",
    "mistral-chat",
    "kimi-chat",
    "ollama-chat",
    "cohere-v2",
];

pub const UNSUPPORTED: [(&str, &str); 1] = [(
    "bedrock-converse",
    "rig-core has no Bedrock provider; Bedrock is the separate rig-bedrock crate over the AWS SDK, not built here",
)];

/// Why a case cannot be run with rig.
pub struct Unsupported(pub String);

/// A model for the case's API, and what the case's recorded request carried that rig takes as
/// `additional_params` (provider tools, request fields it has no typed option for).
pub struct Configured {
    pub model: DynModel<Completion>,
    pub additional_params: Map<String, Value>,
}

/// Which of rig's OpenAI-shaped dialects runs the `openai-chat` cases.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ChatDialect {
    OpenAi,
    /// rig's DeepSeek provider, whose dialect rewrites the request body for DeepSeek
    /// (`BodyRewrite::DeepSeek`); DeepSeek documents `https://api.deepseek.com/v1` as a base URL.
    DeepSeek,
}

pub fn model(case: &Case, chat: ChatDialect) -> Result<Configured, Unsupported> {
    let key = case.api_key.clone();
    let model = case.model.clone();
    let dynamic: DynModel<Completion> = match case.api.as_str() {
        "openai-chat" if chat == ChatDialect::DeepSeek => OpenAIConfig::with_key(&DEEPSEEK, key)
            .with_base_url(&case.base_url)
            .client()
            .chat(model)
            .into(),
        // OpenAI's base URL convention ends in /v1 (https://api.openai.com/v1), as the case's does.
        "openai-chat" => OpenAIConfig::new(key).with_base_url(&case.base_url).client().chat(model).into(),
        // Open Responses servers and Azure AI Foundry's project endpoint (`.../openai/v1`) speak
        // OpenAI's Responses API at an OpenAI-style base URL. rig's Azure dialect addresses
        // classic deployments (`/openai/deployments/{d}/...?api-version=`), which Foundry's v1
        // Responses endpoint is not.
        "openai-responses" | "openresponses" | "azure-foundry" => {
            OpenAIConfig::new(key).with_base_url(&case.base_url).client().responses(model).into()
        }
        // The API root without /v1; the Messages wire adds it.
        "anthropic-messages" => {
            let mut config = AnthropicConfig::new(key).with_base_url(&case.base_url);
            if let Some(version) = case.settings.headers.get("anthropic-version") {
                config = config.with_version(version.clone());
            }
            if let Some(betas) = case.settings.headers.get("anthropic-beta") {
                for beta in betas.split(',').map(str::trim).filter(|beta| !beta.is_empty()) {
                    config = config.with_beta(beta);
                }
            }
            config.client().completion(model).into()
        }
        // The API root; the wire adds /v1beta/models/{model}:generateContent.
        "gemini" => GeminiConfig::new(key).with_base_url(&case.base_url).client().completion(model).into(),
        // Mistral's dialect takes the bare host: every path carries its own /v1.
        "mistral-chat" => OpenAIConfig::with_key(&MISTRAL, key)
            .with_base_url(case.base_url_without("/v1"))
            .client()
            .chat(model)
            .into(),
        "kimi-chat" => OpenAIConfig::with_key(&MOONSHOT, key)
            .with_base_url(&case.base_url)
            .client()
            .chat(model)
            .into(),
        // The daemon's address; the native wire posts to /api/chat.
        "ollama-chat" => OllamaConfig::new()
            .with_api_key(key)
            .with_base_url(&case.base_url)
            .client()
            .native_completion(model)
            .into(),
        // The API root; the native route posts to /v2/chat (the default route is Cohere's OpenAI
        // Compatibility API, which is not the v2 chat API).
        "cohere-v2" => {
            let mut chat = CohereConfig::new(key).with_base_url(&case.base_url).client().completion(model);
            chat.wire = chat.wire.with_route(ChatRoute::Native);
            chat.into()
        }
        other => {
            let reason = UNSUPPORTED
                .iter()
                .find(|(api, _)| *api == other)
                .map(|(_, reason)| reason.to_string())
                .unwrap_or_else(|| format!("the rig harness serves no {other}"));
            return Err(Unsupported(reason));
        }
    };
    Ok(Configured { model: dynamic, additional_params: additional_params(case) })
}

/// Request fields rig sets itself (the conversation, the model, the function tools, the typed
/// options), which the recorded settings must not override.
const SET_BY_RIG: [&str; 12] = [
    "model",
    "messages",
    "input",
    "contents",
    "system",
    "instructions",
    "stream",
    "tools",
    "tool_choice",
    "max_tokens",
    "max_output_tokens",
    "generationConfig",
];

fn additional_params(case: &Case) -> Map<String, Value> {
    let mut params: Map<String, Value> = case
        .settings
        .body
        .iter()
        // A recorded `null` is a field the client left unset (the Ollama client writes `keep_alive: null`):
        // an application sets no such parameter, and rig refuses a `null` where it checks the type.
        .filter(|(key, value)| !SET_BY_RIG.contains(&key.as_str()) && !value.is_null())
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let provider_tools: Vec<Value> = case
        .recorded_tools
        .iter()
        .filter(|tool| is_provider_tool(&case.api, tool))
        .cloned()
        .collect();
    if !provider_tools.is_empty() {
        // rig documents `additional_params.tools` as raw tools sent beside the declared ones.
        params.insert("tools".to_string(), Value::Array(provider_tools));
    }
    params
}

/// A recorded tool the provider runs (web search, code execution, MCP, ...), as opposed to a
/// function tool the case declares.
fn is_provider_tool(api: &str, tool: &Value) -> bool {
    let kind = tool.get("type").and_then(Value::as_str);
    match api {
        "anthropic-messages" => kind.is_some_and(|kind| kind != "custom"),
        "gemini" => tool.get("functionDeclarations").is_none() && tool.get("function_declarations").is_none(),
        "openai-chat" | "openai-responses" | "openresponses" | "azure-foundry" => {
            kind.is_some_and(|kind| kind != "function" && kind != "custom")
        }
        _ => false,
    }
}
