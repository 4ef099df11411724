//! The kit with no library behind it, for the kit's own protocol tests: each case's prompt says
//! what to do (`panic`, `fail`, `skip`, or `tool`: call the case's first tool with `{}`).

use kit::{call_tool, serve, Case, Error, Implementation, Outcome};

async fn run(case: Case) -> Result<Outcome, Error> {
    match case.prompt.as_str() {
        "panic" => panic!("the probe panics as asked"),
        "fail" => Err("the probe fails as asked".into()),
        "skip" => Ok(Outcome::Skipped("the probe skips as asked".to_string())),
        "tool" => {
            let tool = case.tools.first().ok_or("the case has no tool")?;
            let output = call_tool(&case.tools_url, &tool.name, serde_json::json!({}), Some("probe_1")).await?;
            Ok(Outcome::Ok(output))
        }
        other => Ok(Outcome::Ok(other.to_string())),
    }
}

fn main() {
    let implementation = Implementation {
        name: "kit-probe".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        apis: vec!["openai-chat".to_string()],
        ..Implementation::default()
    };
    serve(implementation, run);
}
