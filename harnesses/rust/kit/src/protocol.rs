//! The conversation with the suite: `start`/`started`, `run`/`ran`, `stop` or end of input.

use crate::{Case, Error};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::future::Future;
use std::io::{BufRead, Write};
use std::sync::Mutex;

const PROTOCOL: u64 = 1;

/// Who the harness is (the `started` answer): `name` and `version` name the matrix column.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Implementation {
    pub name: String,
    pub language: String,
    pub version: String,
    pub libraries: BTreeMap<String, String>,
    pub apis: Vec<String>,
    pub unsupported: BTreeMap<String, String>,
    pub homepage: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// What the harness can be handed beyond a new conversation: "history", "sessions".
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub continues: Vec<String>,
}

/// How a case ended when the library did not fail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The tool loop ended; the final answer text, for the log.
    Ok(String),
    /// The library cannot express the case; why.
    Skipped(String),
}

/// Serve the protocol on stdin/stdout until `stop` or end of input, running each case with `run`.
pub fn serve<F, Fut>(implementation: Implementation, run: F)
where
    F: Fn(Case) -> Fut,
    Fut: Future<Output = Result<Outcome, Error>> + Send + 'static,
{
    install_panic_hook();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("harness: cannot start the Tokio runtime: {error}");
            std::process::exit(2);
        }
    };
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(error) => {
                eprintln!("harness: cannot read stdin: {error}");
                return;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let command: Value = match serde_json::from_str(&line) {
            Ok(command) => command,
            Err(error) => {
                eprintln!("harness: a command that is not JSON ({error}): {line}");
                continue;
            }
        };
        match command.get("cmd").and_then(Value::as_str) {
            Some("start") => answer(&json!({"version": PROTOCOL, "implementation": started(&implementation)})),
            Some("run") => {
                let seq = command.get("seq").cloned().unwrap_or(Value::Null);
                let ran = match command.get("case").cloned().map(serde_json::from_value::<Case>) {
                    Some(Ok(case)) => runtime.block_on(run_case(run(case))),
                    Some(Err(error)) => errored(format!("the run command's case does not parse: {error}"), String::new()),
                    None => errored("the run command has no case".to_string(), String::new()),
                };
                let mut message = ran;
                message.insert("seq".to_string(), seq);
                answer(&Value::Object(message));
            }
            Some("stop") => return,
            other => eprintln!("harness: unknown command {other:?}: {line}"),
        }
    }
}

fn started(implementation: &Implementation) -> Value {
    let mut described = implementation.clone();
    if described.language.is_empty() {
        described.language = "rust".to_string();
    }
    let mut value = serde_json::to_value(described).unwrap_or(Value::Null);
    if let Some(fields) = value.as_object_mut() {
        // The schema wants these only when they say something.
        for key in ["unsupported", "homepage"] {
            let empty = match fields.get(key) {
                Some(Value::Object(map)) => map.is_empty(),
                Some(Value::String(text)) => text.is_empty(),
                _ => false,
            };
            if empty {
                fields.remove(key);
            }
        }
    }
    value
}

/// Run one case on its own task, so that a panic in the library ends that task only and
/// becomes the case's `errored`.
async fn run_case<Fut>(future: Fut) -> serde_json::Map<String, Value>
where
    Fut: Future<Output = Result<Outcome, Error>> + Send + 'static,
{
    let mut message = serde_json::Map::new();
    match tokio::spawn(future).await {
        Ok(Ok(Outcome::Ok(output))) => {
            message.insert("ok".to_string(), Value::Bool(true));
            message.insert("output".to_string(), Value::String(output));
        }
        Ok(Ok(Outcome::Skipped(reason))) => {
            message.insert("skipped".to_string(), Value::String(reason));
        }
        Ok(Err(error)) => return errored(error.to_string(), chain(error.as_ref())),
        Err(join) if join.is_panic() => {
            let payload = join.into_panic();
            let text = payload
                .downcast_ref::<&str>()
                .map(|text| text.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string());
            let location = LAST_PANIC.lock().map(|last| last.clone()).unwrap_or_default();
            return errored(format!("panic: {text}"), location);
        }
        Err(join) => return errored(format!("the case's task was cancelled: {join}"), String::new()),
    }
    message
}

fn errored(message: String, detail: String) -> serde_json::Map<String, Value> {
    let mut errored = serde_json::Map::new();
    errored.insert("message".to_string(), Value::String(message));
    if !detail.is_empty() {
        errored.insert("detail".to_string(), Value::String(detail));
    }
    let mut answer = serde_json::Map::new();
    answer.insert("errored".to_string(), Value::Object(errored));
    answer
}

/// The error's debug form and its chain of sources: the library's own account of the failure.
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut lines = vec![format!("{error:?}")];
    let mut source = error.source();
    while let Some(cause) = source {
        lines.push(format!("caused by: {cause}"));
        source = cause.source();
    }
    lines.join("\n")
}

/// Where the last panic happened, for the `errored` detail; the default hook still prints it to
/// stderr.
static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = format!("{info}");
        }
        default(info);
    }));
}

fn answer(message: &Value) {
    let mut stdout = std::io::stdout().lock();
    let written = writeln!(stdout, "{message}").and_then(|()| stdout.flush());
    if let Err(error) = written {
        eprintln!("harness: cannot write stdout: {error}");
        std::process::exit(1);
    }
}
