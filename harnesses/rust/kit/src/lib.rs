//! The harness protocol (docs/harness.md, version 1) for the Rust harnesses.
//!
//! A harness crate holds only its library's tool loop: it describes itself with an
//! [`Implementation`] and hands [`serve`] one async function from a [`Case`] to an [`Outcome`].
//! The kit reads the commands on stdin, answers on stdout (nothing else is written there), runs
//! each case on a Tokio runtime and turns an error or a panic of the library into `errored`, so one
//! case's fault never ends the process.

mod case;
mod protocol;
mod tools;

pub use case::{Case, Leg, Settings, ToolSpec};
pub use protocol::{serve, Implementation, Outcome};
pub use tools::{call_tool, RunInterrupted};

/// What a harness's tool loop may fail with: any error of the library, boxed.
pub type Error = Box<dyn std::error::Error + Send + Sync>;
