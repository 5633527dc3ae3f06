//! Each `trek` phase as a call in this process, without a command line:
//! what the integration tests drive a whole run through (`helper/tests/
//! trek_phases.rs`), the same functions the command line runs.

use std::path::Path;

use super::cli::{GateAnswer, StartArgs};
use super::reply::Reply;

/// A phase's answer: the text the agent reads, the reply as `--json`
/// prints it (schema `trek-reply`), and the exit code.
#[derive(Debug, Clone)]
pub struct Replied {
    pub text: String,
    pub json: serde_json::Value,
    pub exit: u8,
}

fn replied(reply: &Reply) -> Replied {
    let mut text = Vec::new();
    let mut json = Vec::new();
    // Writing into memory does not fail.
    let exit = reply
        .render(false, &mut text)
        .unwrap_or(crate::exit::CANNOT_CHECK);
    let _ = reply.render(true, &mut json);
    Replied {
        text: String::from_utf8_lossy(&text).into_owned(),
        json: serde_json::from_slice(&json).unwrap_or(serde_json::Value::Null),
        exit,
    }
}

/// `trek start PLAN` in the current directory.
pub fn start(plan: &Path) -> Replied {
    let args = StartArgs {
        project: None,
        fg: false,
        resume: false,
        fresh: false,
        dry_run: false,
        validate: false,
        step: None,
        session: None,
        gates: None,
        profile: None,
        entry: None,
        json: false,
        plan: Some(plan.to_path_buf()),
    };
    replied(&super::start::start(&args))
}

/// `trek step-begin N`.
pub fn step_begin(n: u32) -> Replied {
    replied(&super::step::begin(n))
}

/// `trek step-done N`.
pub fn step_done(n: u32) -> Replied {
    replied(&super::step::done(n))
}

/// `trek finish`, or with `confirm` the main-merge gate answered (`Some(true)`
/// confirms, `Some(false)` declines).
pub fn finish(confirm: Option<bool>) -> Replied {
    let gate = confirm.map(|yes| {
        if yes {
            GateAnswer::Confirm
        } else {
            GateAnswer::Decline
        }
    });
    replied(&super::finish::finish(gate, None, false))
}
