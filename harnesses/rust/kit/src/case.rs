//! A `run` command's case, as conformance/schemas/harness.schema.json defines it.

use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One scenario to run: the client configuration, the conversation and the tools to declare.
#[derive(Clone, Debug, Deserialize)]
pub struct Case {
    pub id: String,
    pub api: String,
    pub base_url: String,
    pub api_key: String,
    pub model: String,
    pub prompt: String,
    pub stream: bool,
    pub tools: Vec<ToolSpec>,
    #[serde(default)]
    pub recorded_tools: Vec<Value>,
    #[serde(default)]
    pub settings: Settings,
    pub tools_url: String,
    /// The provider's own tools the scenario's responses use, as a request declares them.
    #[serde(default)]
    pub server_tools: Vec<Value>,
    /// A saved conversation to continue, the prompt first (empty for a new one), in the neutral
    /// model (docs/adapters.md); `history_wire` the same in `history_api`'s wire form.
    #[serde(default)]
    pub history: Vec<Value>,
    #[serde(default)]
    pub history_api: Option<String>,
    #[serde(default)]
    pub history_wire: Vec<Value>,
    /// The user message that begins each run of the session; None: the run continues the history
    /// without one. Use `run_prompts`, which gives a case without runs its prompt.
    #[serde(default)]
    pub runs: Vec<Option<String>>,
    /// Calls whose run is cut off before the tool answers (`call_tool` gives `RunInterrupted`).
    #[serde(default)]
    pub interrupted: Vec<Value>,
    /// The first legs of a hand-off across providers: run the prompt on each leg's API for its
    /// `steps` model responses, then continue the same conversation on the case's API. Use
    /// `leg_case` for a leg's client configuration.
    #[serde(default)]
    pub legs: Vec<Leg>,
}

/// A first leg of a hand-off (docs/harness.md, "Restored histories and sessions").
#[derive(Clone, Debug, Deserialize)]
pub struct Leg {
    pub api: String,
    pub model: String,
    pub base_url: String,
    pub tools_url: String,
    #[serde(default)]
    pub stream: bool,
    /// Model responses the leg runs, each with calls the harness runs, before the hand-off.
    pub steps: usize,
    #[serde(default)]
    pub recorded_tools: Vec<Value>,
    #[serde(default)]
    pub settings: Settings,
}

/// A client-side tool the case declares.
#[derive(Clone, Debug, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The JSON Schema of a function tool's arguments; custom tools have none.
    #[serde(default)]
    pub parameters: Option<Value>,
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// Who besides the model may call the tool (Anthropic programmatic tool calling): declare it as given.
    #[serde(default)]
    pub allowed_callers: Vec<String>,
}

impl ToolSpec {
    /// A free-form (`"type": "custom"`) tool, which takes text rather than JSON arguments.
    pub fn is_custom(&self) -> bool {
        self.kind.as_deref() == Some("custom")
    }

    /// The argument schema, an empty object schema where the case gives none.
    pub fn schema(&self) -> Value {
        self.parameters
            .clone()
            .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}))
    }
}

/// The first recorded request's settings beside the conversation.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Settings {
    #[serde(default)]
    pub body: Map<String, Value>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub query: BTreeMap<String, String>,
    #[serde(default)]
    pub api_version: Option<String>,
}

impl Case {
    /// A first leg as a case of its own: the leg's API, model, URLs, streaming and settings in place
    /// of the case's, with no history, runs or legs.
    pub fn leg_case(&self, leg: &Leg) -> Case {
        Case {
            api: leg.api.clone(),
            model: leg.model.clone(),
            base_url: leg.base_url.clone(),
            tools_url: leg.tools_url.clone(),
            stream: leg.stream,
            recorded_tools: leg.recorded_tools.clone(),
            settings: leg.settings.clone(),
            server_tools: Vec::new(),
            history: Vec::new(),
            history_api: None,
            history_wire: Vec::new(),
            runs: Vec::new(),
            interrupted: Vec::new(),
            legs: Vec::new(),
            ..self.clone()
        }
    }

    /// The user message of each run of the case's session (None: continue the history).
    pub fn run_prompts(&self) -> Vec<Option<String>> {
        if self.runs.is_empty() {
            vec![Some(self.prompt.clone())]
        } else {
            self.runs.clone()
        }
    }

    /// The base URL without a trailing slash or the given suffix (`/v1`), for clients whose
    /// convention is the bare host and which add the version themselves.
    pub fn base_url_without(&self, suffix: &str) -> String {
        let base = self.base_url.trim_end_matches('/');
        base.strip_suffix(suffix).unwrap_or(base).to_string()
    }
}
