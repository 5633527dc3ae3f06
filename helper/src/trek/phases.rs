//! Each `trek` phase as a call in this process, without a command line:
//! what the integration tests drive runs through (`helper/tests/
//! trek_phases.rs`), the same functions the command line runs. Each takes
//! the directory the call is made from, as the command line takes its
//! current directory; none reads or changes the process's own.

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

/// `trek start PLAN` called in `dir`.
pub fn start(dir: &Path, plan: &Path) -> Replied {
    let args = StartArgs {
        project: None,
        fg: false,
        resume: false,
        fresh: false,
        allow_dirty: false,
        in_place: false,
        dry_run: false,
        no_push: false,
        validate: false,
        step: None,
        session: None,
        gates: None,
        profile: None,
        entry: None,
        json: false,
        plan: Some(plan.to_path_buf()),
    };
    replied(&super::start::start(dir, &args))
}

/// `trek step-begin N` called in `dir`.
pub fn step_begin(dir: &Path, n: u32) -> Replied {
    replied(&super::step::begin(dir, n))
}

/// `trek step-done N` called in `dir`.
pub fn step_done(dir: &Path, n: u32) -> Replied {
    replied(&super::step::done(dir, n))
}

/// `trek finish` called in `dir`, or with `confirm` the main-merge gate
/// answered (`Some(true)` confirms, `Some(false)` declines).
pub fn finish(dir: &Path, confirm: Option<bool>) -> Replied {
    let gate = confirm.map(|yes| {
        if yes {
            GateAnswer::Confirm
        } else {
            GateAnswer::Decline
        }
    });
    replied(&super::finish::finish(dir, gate, None, false))
}

/// `trek release` called in `dir`.
pub fn release(dir: &Path) -> Replied {
    replied(&super::release::release(dir))
}
